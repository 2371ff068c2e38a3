"""Players, matches and their stored plies. Every deal's seed and every ply are kept, so any match can be
replayed (``eights_engine.replay``). Only ``games.services`` writes these rows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from sitekit.names import name_skeleton


class Player(models.Model):
    """Anyone who takes a seat: a person, a submitted HTTP bot, or a house bot (a built-in strategy)."""

    class Kind(models.TextChoices):
        HUMAN = "human", _("human")
        BOT = "bot", _("bot")
        HOUSE = "house", _("house bot")

    name = models.CharField(max_length=60, unique=True)
    name_skeleton = models.TextField(db_index=True, editable=False, default="",
                                     help_text="sitekit.names.name_skeleton(name): look-alike names share it")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    strategy = models.CharField(max_length=30, blank=True, help_text="house strategy name (house bots only)")
    # the person (human), or the bot's owner (bot: who owns it, never who plays its seat); empty for house bots
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    description = models.CharField(max_length=200, blank=True)
    is_active = models.BooleanField(default=True, help_text="false: not scheduled (a disabled or suspended bot)")
    match_with = models.CharField(max_length=10, default="both", choices=[
        ("both", "people and bots"), ("bots", "bots only"), ("people", "people only")],
        help_text="whom a person wants to be matched with by Play now")
    is_guest = models.BooleanField(default=False, db_index=True,
                                   help_text="a guest: a person without an account (kind human, no user), played "
                                             "only by the browser session that dealt its matches (games.people.guests)")
    guest_address = models.CharField(max_length=64, blank=True,
                                     help_text="a guest's client address at its latest Deal (the per-address limit)")
    language = models.CharField(max_length=8, blank=True, help_text=(
        "a person's language for the site (a code of settings.LANGUAGES); empty: the browser's"))
    banned_at = models.DateTimeField(null=True, blank=True, help_text=(
        "fair play (games.people.fairplay): banned from rated play and tournaments; results stay, marked"))
    hidden_from_boards = models.BooleanField(default=False, help_text="fair play: left off every leaderboard")
    email_notifications = models.BooleanField(default=False, help_text=(
        "a person's opt-in: their notifications are e-mailed to their account's address too (games.notices)"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Keeps ``name_skeleton`` in step with ``name`` (also when only ``name`` is in ``update_fields``)."""
        self.name_skeleton = name_skeleton(self.name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_skeleton"}
        super().save(*args, **kwargs)

    def is_played_by(self, user, guest: "Player | None" = None) -> bool:
        """Whether ``user`` (or the browser session whose guest player is ``guest``) makes this player's moves: a
        person plays only their own human player, a guest session only its own guest player. A bot's moves come only
        from its endpoint, never from its owner, though the owner is the bot's ``user``."""
        if self.kind != self.Kind.HUMAN:
            return False
        if self.is_guest:
            return guest is not None and guest.is_guest and guest.pk == self.pk
        return (self.user_id is not None and user is not None and user.is_authenticated
                and self.user_id == user.pk)

    @property
    def label(self) -> str:
        """What pages call this player's kind: ``guest`` for a guest, else the kind's words (``house bot``...)."""
        return _("guest") if self.is_guest else self.get_kind_display()

    @property
    def badge(self) -> str:
        """The CSS class of the kind's badge: ``guest``, ``human``, ``bot`` or ``house``."""
        return "guest" if self.is_guest else self.kind


class Match(models.Model):
    """One match: deals until the target. ``ruleset`` is the engine's ``Ruleset.to_dict()``."""

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    ruleset = models.JSONField()
    preset = models.CharField(max_length=30, blank=True)
    seat_count = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField(null=True, blank=True, help_text="the chosen match seed (version 1: every match's; "
                               "version 2: only a match dealt from a chosen seed, e.g. a fixed-seed trial)")
    secret = models.CharField(max_length=64, blank=True, help_text="version 2: the match secret, 64 lowercase hex "
                              "digits (eights_engine.keys), secret until the match is public")
    commitment = models.CharField(max_length=64, blank=True, help_text="version 2: keys.secret_commitment(secret), "
                                  "public from the match's creation")
    seating = models.JSONField(default=list, blank=True, help_text="version 2: the player ids seated when the match "
                               "was created, seat order; bound into the commitment (keys.secret_commitment)")
    fault_limit = models.PositiveSmallIntegerField(null=True, blank=True, help_text="consecutive faults that forfeit "
                                                   "a bot's or a person's seat here; empty: BOT_MAX_CONSECUTIVE_FAULTS")
    engine_version = models.CharField(max_length=10)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True)
    deal_number = models.PositiveIntegerField(default=1)
    ply_count = models.PositiveIntegerField(default=0, help_text="plies stored over all deals")
    totals = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_progress_at = models.DateTimeField(auto_now_add=True, db_index=True)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    abort_reason = models.CharField(max_length=200, blank=True)
    turn_timeout_ms = models.PositiveIntegerField(default=1000, help_text="per bot turn, before the time bank")
    resume_count = models.PositiveIntegerField(default=0, help_text="times the watchdog re-queued this match")
    claimed_at = models.DateTimeField(null=True, blank=True,
                                      help_text="when a worker last took (or renewed) the lease")
    failures = models.PositiveIntegerField(
        default=0, help_text="times in a row a worker took the match and nothing came of it (no ply stored); "
                             "MATCH_MAX_FAILURES of them abort it; a stored ply sets it back to 0")
    wake_pending = models.BooleanField(
        default=False, help_text="the match could not be queued (the broker was unreachable): the watchdog queues it")
    awaiting_human = models.BooleanField(default=False, help_text="the match waits for a person's move")
    guest_address = models.CharField(max_length=64, blank=True, help_text=(
        "the client address a guest dealt this match from: the address's limit on running guest matches counts it "
        "until it ends, also once the guest has signed in and the match is their account's"))
    move_seconds = models.PositiveIntegerField(null=True, blank=True,
                                               help_text="a person's move clock here (s); empty: HUMAN_MOVE_SECONDS")
    single_deal_seed = models.BigIntegerField(null=True, blank=True, help_text="replay of one version 1 deal (its seed)")
    single_deal_key = models.CharField(max_length=64, blank=True, help_text="replay of one version 2 deal (its key)")
    single_deal_dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    reveal_group = models.CharField(
        max_length=40, blank=True, db_index=True,
        help_text="matches dealt the same seeds (e.g. a duplicate set) share this key: none of them publishes its "
                  "seeds, deal codes, hands, record or replay while one of them runs (games.selectors.match_is_public)")
    after = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="followers",
        help_text="the match that must end first: this one is not played (no ply, no bot call, no move taken) while "
                  "that one runs (a duplicate set's rotations play one after another: games.services.match_waits)")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
        # the match list's keyset pages (games.browse: ORDER BY id, WHERE id < cursor) under each filter
        indexes = [models.Index(fields=["status", "id"], name="match_status_id"),
                   models.Index(fields=["preset", "id"], name="match_preset_id"),
                   models.Index(fields=["created_at"], name="match_created_at")]

    def __str__(self) -> str:
        return f"match {self.pk}"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def move_clock_seconds(self) -> int:
        """A person's move clock in this match (seconds): the ladder's, else ``HUMAN_MOVE_SECONDS``."""
        return self.move_seconds or settings.HUMAN_MOVE_SECONDS


class Seat(models.Model):
    """A player's place in a match (0..n-1, clockwise), with the final total and place once finished."""

    match = models.ForeignKey(Match, related_name="seats", on_delete=models.CASCADE)
    index = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, related_name="seats", on_delete=models.PROTECT)
    total = models.IntegerField(default=0)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    time_bank_ms = models.PositiveIntegerField(default=0, help_text="left of the seat's time bank (bots)")
    last_latency_ms = models.PositiveIntegerField(null=True, blank=True)
    consecutive_faults = models.PositiveSmallIntegerField(default=0)
    forfeited = models.BooleanField(default=False)
    left_at = models.DateTimeField(null=True, blank=True, help_text=(
        "a person's seat: when the others at the table ended the wait for them (games.matches.leavers)"))
    stand_in = models.CharField(max_length=30, blank=True, help_text=(
        "the house strategy playing a person's seat since they left a casual match; empty: they play it"))

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="seat_unique_index")]
        indexes = [models.Index(fields=["player", "match"], name="seat_player_match")]  # a player's matches, by id

    def __str__(self) -> str:
        return f"{self.match} seat {self.index}: {self.player}"


class Deal(models.Model):
    """One deal of a match: what it was dealt from (secret until the match is public), dealer and result, and its
    commitment (docs/FAIRNESS.md), public from the deal's start. Engine version 2: ``key`` (64 hex digits) and
    ``commitment = keys.deal_key_commitment(key)``, no seed or salt. Version 1: ``seed`` and ``salt``, ``commitment``
    SHA-256 of both; deals stored before commitments have neither salt nor commitment (empty strings)."""

    match = models.ForeignKey(Match, related_name="deals", on_delete=models.CASCADE)
    number = models.PositiveIntegerField()
    seed = models.BigIntegerField(null=True, blank=True, help_text="version 1: the deal seed")
    key = models.CharField(max_length=64, blank=True, help_text="version 2: the deal key, 64 lowercase hex digits")
    salt = models.CharField(max_length=64, blank=True, help_text="version 1: the secret per-deal salt, lowercase hex; "
                            "published only once the match is finished")
    commitment = models.CharField(max_length=64, blank=True, help_text="public from the deal's start: version 2 "
                                  "keys.deal_key_commitment(key), version 1 SHA-256 of f'{seed}:{salt}' "
                                  "(eights_engine.fairness); lowercase hex")
    code = models.CharField(max_length=16, db_index=True)
    contributions = models.JSONField(null=True, blank=True, help_text="version 2: what each seat contributed to "
                                     "this deal's key (a list by seat: lowercase hex or null); null: nothing")
    dealer = models.PositiveSmallIntegerField()
    engine_version = models.CharField(max_length=10)
    outcome = models.CharField(max_length=10, blank=True)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    hand_values = models.JSONField(null=True, blank=True)
    points = models.JSONField(null=True, blank=True)
    plies = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="deal_unique_number")]

    def __str__(self) -> str:
        return f"{self.match} deal {self.number}"


class Move(models.Model):
    """One stored ply. Unique per (deal, ply): a retried task can never write a ply twice."""

    class Source(models.TextChoices):
        AGENT = "agent", "agent"
        FALLBACK = "fallback", "fallback after a fault"

    deal = models.ForeignKey(Deal, related_name="moves", on_delete=models.CASCADE)
    ply = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.AGENT)
    fault = models.CharField(max_length=300, blank=True)
    fault_kind = models.CharField(max_length=20, blank=True, db_index=True)
    think_ms = models.PositiveIntegerField(default=0)
    contribution = models.CharField(max_length=64, blank=True, help_text="the seat's contribution sent with this "
                                    "ply and taken for the next deal's key (its first in this deal), lowercase hex")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["deal", "ply"]
        constraints = [models.UniqueConstraint(fields=["deal", "ply"], name="move_unique_ply")]

    def __str__(self) -> str:
        return f"{self.deal} ply {self.ply}"


class Talk(models.Model):
    """A canned phrase a person said at their table (``games.matches.talk.TALK_PHRASES``: no free text, nothing to
    moderate), with where in the match it was said: ``deal_number`` and ``ply`` (the deal's plies stored by then).
    Shown to the table and in the replay."""

    match = models.ForeignKey(Match, related_name="talk", on_delete=models.CASCADE)
    seat = models.PositiveSmallIntegerField()
    phrase = models.CharField(max_length=20)
    deal_number = models.PositiveIntegerField()
    ply = models.PositiveIntegerField(help_text="the deal's plies stored when it was said")
    said_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "id"]
        indexes = [models.Index(fields=["match", "id"], name="talk_match_id")]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}: {self.phrase}"


class MatchAnalysis(models.Model):
    """The analysis of a finished, public match (``eights_engine.analysis.analyse`` of its record, run by the
    ``analyse_match`` task: ``games.matches.analysis``): every decision weighed by the expert from its seat's
    information, and each deal's luck. One per match; ``data`` is the engine's answer, stored as it came."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    match = models.OneToOneField(Match, primary_key=True, related_name="analysis", on_delete=models.CASCADE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True, help_text="when its task was last sent (the watchdog "
                                     "sends it again when no worker took it for a while)")
    started_at = models.DateTimeField(null=True, blank=True, help_text="when a worker took it (the last time)")
    finished_at = models.DateTimeField(null=True, blank=True)
    deals_done = models.PositiveIntegerField(default=0, help_text="deals analysed so far (progress)")
    deals_total = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="times a worker took it")
    cost_ms = models.PositiveIntegerField(null=True, blank=True, help_text="the worker's CPU time for it (ms)")
    data = models.JSONField(null=True, blank=True, help_text="eights_engine.analysis.analyse's answer")
    error = models.CharField(max_length=300, blank=True, help_text="why it failed")

    class Meta:
        verbose_name_plural = "match analyses"

    def __str__(self) -> str:
        return f"analysis of {self.match_id} ({self.status})"


class Notification(models.Model):
    """Something a person (or a bot's owner) is told (``games.notices``): shown in the site's list and over
    ``GET /api/notifications/`` until read, and e-mailed to those who opted in. ``kind`` and ``params`` make the
    sentence in the reader's language; ``key`` (per user) makes one event one notification however often it is
    noticed."""

    class Kind(models.TextChoices):
        CHALLENGE = "challenge", _("challenge")
        TABLE_INVITE = "table_invite", _("table invitation")
        YOUR_TURN = "your_turn", _("your turn")
        TOURNAMENT_START = "tournament_start", _("tournament starting")
        ROUND_START = "round_start", _("tournament round starting")
        SEASON_END = "season_end", _("season ended")
        BOT_SUSPENDED = "bot_suspended", _("bot suspended")
        BOT_CHECK_FAILED = "bot_check_failed", _("bot check failed")
        BOT_RECOVERED = "bot_recovered", _("bot playing again")
        FAIR_PLAY_WARNING = "fair_play_warning", _("fair-play warning")
        WEBHOOK_DISABLED = "webhook_disabled", _("bot webhook turned off")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="notifications", on_delete=models.CASCADE)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    params = models.JSONField(default=dict, blank=True, help_text="the sentence's values (names, numbers)")
    url = models.CharField(max_length=200, blank=True, help_text="where it leads (a path of this site)")
    key = models.CharField(max_length=120, blank=True, help_text="one event, one notification (unique per user)")
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_user_unread")]
        constraints = [models.UniqueConstraint(fields=["user", "key"], condition=~models.Q(key=""),
                                               name="notification_user_key")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}"


class Report(models.Model):
    """A report on a player (``games.people.fairplay``): by a signed-in person (``reporter``), or a flag of the
    automatic fair-play signals (``reporter`` None), for staff to review in the admin: warn, hide from the
    leaderboards, ban, or dismiss. Nothing is done to anyone automatically."""

    class Reason(models.TextChoices):
        ENGINE_HELP = "engine_help", _("plays with outside help (an engine, another person)")
        ARRANGED = "arranged", _("arranged results (colluding, throwing matches)")
        ABUSE = "abuse", _("abusive name or behaviour")
        STALLING = "stalling", _("stalling or leaving matches on purpose")
        OTHER = "other", _("something else")
        SIGNAL = "signal", _("flagged by the automatic fair-play signals")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        WARNED = "warned", _("warned")
        HIDDEN = "hidden", _("hidden from leaderboards")
        BANNED = "banned", _("banned")
        DISMISSED = "dismissed", _("dismissed")

    player = models.ForeignKey(Player, related_name="reports", on_delete=models.CASCADE)
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, related_name="reports_made",
                                 on_delete=models.SET_NULL)
    match = models.ForeignKey(Match, null=True, blank=True, related_name="reports", on_delete=models.SET_NULL)
    reason = models.CharField(max_length=20, choices=Reason.choices)
    note = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    handled_at = models.DateTimeField(null=True, blank=True)
    handled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, related_name="reports_handled",
                                   on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"report on {self.player} ({self.reason}, {self.status})"
