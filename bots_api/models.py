"""Submitted bots: an HTTP endpoint, its owner and signing secret, and its standing (verified, suspended)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Match, Player


class Bot(models.Model):
    """A bot registered by an owner. Its seat-taking identity is ``player`` (kind ``bot``).

    ``secret`` signs every request (HMAC-SHA256); it is shown to the owner once, at registration and rotation,
    and is stored because the service must sign with it. A bot plays on ladders only when ``is_enabled``,
    verified (``verified_at``: its last check passed, see ``BotCheck``) and not suspended
    (``suspended_reason``: ``BOT_SUSPEND_AFTER_FAILED_MATCHES`` failed matches in a row, counted in
    ``consecutive_failed_matches``; docs/BOT_PROTOCOL.md, "Faults and the fault policy").

    Escalation: ``suspension_count`` counts the bot's suspensions (never reset). The first is lifted by a passing
    check; a later one only by a passing check that finishes at or after ``suspended_until`` (the cool-off:
    ``BOT_SUSPENSION_COOLOFF_MINUTES``, doubled for each suspension after the second). A lifted bot is on
    probation: its count starts one short of the limit, so one failed match suspends it again.
    """

    player = models.OneToOneField(Player, related_name="bot", on_delete=models.CASCADE)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="bots", on_delete=models.CASCADE)
    endpoint_url = models.URLField(max_length=300)
    secret = models.CharField(max_length=80)
    is_enabled = models.BooleanField(default=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    suspended_reason = models.CharField(max_length=300, blank=True)
    consecutive_failed_matches = models.PositiveIntegerField(
        default=0, help_text="failed matches in a row: forfeited, or faults on at least BOT_FAILED_MATCH_FAULT_SHARE "
                             "of its turns")
    suspension_count = models.PositiveIntegerField(default=0, help_text="how many times the bot was suspended")
    suspended_until = models.DateTimeField(
        null=True, blank=True, help_text="a repeated suspension's cool-off: no check lifts it before this time")
    reported_name = models.CharField(max_length=100, blank=True, help_text="name the bot gave in its last check")
    reported_version = models.CharField(max_length=100, blank=True)
    accepts_challenges = models.BooleanField(
        default=False, help_text="other owners may name this bot as an opponent in their unrated trials "
                                 "(bots_api.trials); off by default")
    webhook_url = models.CharField(max_length=300, blank=True, help_text=(
        "the owner's URL for the bot's notifications (bots_api.webhooks): signed like the protocol, through the "
        "address guard; empty: none"))
    webhook_failures = models.PositiveSmallIntegerField(default=0, help_text="deliveries failed in a row")
    webhook_disabled_at = models.DateTimeField(null=True, blank=True, help_text=(
        "set after BOT_WEBHOOK_MAX_FAILURES failed deliveries in a row (the owner is told); a new URL clears it"))
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["player__name"]

    def __str__(self) -> str:
        return self.player.name

    @property
    def name(self) -> str:
        return self.player.name

    @property
    def can_play(self) -> bool:
        return self.is_enabled and self.verified_at is not None and not self.suspended_reason

    @property
    def suspension_lift(self) -> str:
        """What lifts the bot's suspension and when, in a sentence ("" when it is not suspended)."""
        if not self.suspended_reason:
            return ""
        nth = f"suspension {self.suspension_count}" if self.suspension_count > 1 else "a first suspension"
        if self.suspended_until is None:
            return (f"This is {nth}: a check that passes lifts it. The bot is then on probation: one failed match "
                    "suspends it again.")
        when = self.suspended_until.strftime("%Y-%m-%d %H:%M UTC")
        return (f"This is {nth}: only a check that passes at or after {when} (the cool-off, which doubles with each "
                "further suspension) lifts it. The bot is then on probation: one failed match suspends it again.")


class BotCheck(models.Model):
    """One verification of a bot, asked for by its owner and run outside the request (``bots_api.tasks``): the
    conformance checks of ``eights_engine.bots.check`` (a signed ping, three requests the bot must refuse, the turn
    positions, a ``match_end``) against the endpoint and secret the bot has when the check starts.

    ``state`` goes queued -> running -> passed or failed. ``checks`` is ``[{"name", "status", "detail"}]``
    (status PASS, FAIL or WARN), in the order sent; ``detail`` says the outcome in a sentence (the first failure
    and its cause); ``latency_ms`` is the ping's round trip.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        PASSED = "passed"
        FAILED = "failed"

    bot = models.ForeignKey(Bot, related_name="checks", on_delete=models.CASCADE)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    detail = models.CharField(max_length=500, blank=True)
    checks = models.JSONField(default=list, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["bot", "state"], name="bots_check_bot_state")]

    def __str__(self) -> str:
        return f"check {self.pk} of {self.bot_id}: {self.state}"

    @property
    def is_done(self) -> bool:
        return self.state in (self.State.PASSED, self.State.FAILED)


class Trial(models.Model):
    """An unrated test run of a bot (``bots_api.trials``): ``match_count`` matches of ``bot`` against
    ``opponents`` under ``ruleset``, played by the workers like ladder matches but never rated, never on a ladder and
    never counted by the fault policy. Visible to its owner only (the matches themselves are public like any
    casual match, their hidden information once each is public: ``games.matches.exports.match_is_public``).

    ``seeds``: the owner's fixed seed set (match seeds, in match order; a duplicate trial plays each seed once per
    rotation), or null for random seeds. ``bot_version``: the bot's ``reported_version`` when the trial was created
    (its last passing check), so two runs on the same seeds compare "this version" with "the last one"."""

    bot = models.ForeignKey(Bot, related_name="trials", on_delete=models.CASCADE)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="trials", on_delete=models.CASCADE)
    bot_version = models.CharField(max_length=100, blank=True)
    opponents = models.JSONField(help_text="the opponents as named in the request (house:NAME or a player name)")
    opponent_players = models.JSONField(default=list, help_text="their player ids, in seat order after the bot")
    preset = models.CharField(max_length=30, blank=True)
    ruleset = models.JSONField()
    ladder = models.ForeignKey("tournaments.Ladder", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+", help_text="the ladder whose rules were used (never rated on it)")
    seat_count = models.PositiveSmallIntegerField()
    match_count = models.PositiveIntegerField()
    seeds = models.JSONField(null=True, blank=True)
    duplicate = models.BooleanField(default=False)
    turn_timeout_ms = models.PositiveIntegerField(default=1000)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"trial {self.pk} of {self.bot_id}"


class TrialMatch(models.Model):
    """One match of a trial: its place in the trial (``number``, from 0), the seat the trial's bot sat in and, for a
    duplicate trial, the rotation of its seed's set."""

    trial = models.ForeignKey(Trial, related_name="trial_matches", on_delete=models.CASCADE)
    match = models.OneToOneField(Match, related_name="trial_match", on_delete=models.CASCADE)
    number = models.PositiveIntegerField()
    bot_seat = models.PositiveSmallIntegerField()
    rotation = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["trial", "number"]
        constraints = [models.UniqueConstraint(fields=["trial", "number"], name="trial_match_unique_number")]


class BotTurn(models.Model):
    """One turn call of a bot, as the bot saw it (the turn log, shown to its owner only; ``bots_api.turnlog``).

    ``request`` is the exact body the service sent and signed (compact JSON, as text: the bot's own view, never more);
    ``reply`` the raw body the bot answered, cut at ``TURN_LOG_REPLY_MAX_BYTES`` (``reply_bytes`` is its full size;
    empty when no answer came), ``status`` its HTTP status (None: no answer); ``latency_ms`` the round trip (ms);
    ``debug`` the bot's optional note (at most ``protocol.DEBUG_MAX_CHARS`` characters) and ``warning`` what was
    wrong with it (too long, not a string). The fault and the action played are not copied here: they are the stored
    move's (``games.models.Move`` at this match, deal and ply), joined when read, so the log can never disagree with
    the match record (the referee finds an illegal action only after the call). A call whose ply another writer
    stored first (a retried task) has no move of its own and reads as "not played". Deleted after ``TURN_LOG_DAYS``.
    """

    bot = models.ForeignKey(Bot, related_name="turns", on_delete=models.CASCADE)
    match = models.ForeignKey("games.Match", related_name="+", on_delete=models.CASCADE)
    deal_number = models.PositiveIntegerField()
    ply = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    request = models.TextField()
    reply = models.TextField(blank=True)
    reply_bytes = models.PositiveIntegerField(default=0)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(default=0)
    debug = models.TextField(blank=True)
    warning = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["bot", "-id"], name="bots_turn_bot_id"),
                   models.Index(fields=["bot", "match", "deal_number", "ply"], name="bots_turn_bot_match_ply")]

    def __str__(self) -> str:
        return f"turn of {self.bot_id}: match {self.match_id} deal {self.deal_number} ply {self.ply}"


class BotMatchVersion(models.Model):
    """The version a bot ran in a match's seat: written as the seat is created with the version it last reported
    (``Bot.reported_version``, from its check's ping; no outbound call), then replaced by what the bot says itself
    to a ping after the match's ``match_end`` (``said``; ``bots_api.versions.match_version_ask``, in the worker)."""

    bot = models.ForeignKey(Bot, related_name="match_versions", on_delete=models.CASCADE)
    match = models.ForeignKey("games.Match", related_name="+", on_delete=models.CASCADE)
    seat = models.PositiveSmallIntegerField()
    version = models.CharField(max_length=100, blank=True)
    said = models.BooleanField(default=False, help_text="the bot said this version itself, answering a ping after the "
                               "match's match_end (bots_api.versions.match_version_ask); false: the version of its "
                               "last check")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="bot_match_version_unique")]
        indexes = [models.Index(fields=["bot", "version"], name="bots_matchver_bot_version")]
