"""Ladders, their entries and ratings (openskill Plackett-Luce), and the rating change of every match."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from eights_engine import Ruleset
from eights_engine.deal import check_ruleset_seats
from games.models import Match, Player


class Ladder(models.Model):
    """A ranked ladder: a ruleset (a preset plus overrides), seats per match, and how matches are scheduled."""

    name = models.CharField(max_length=80)
    slug = models.SlugField(max_length=80, unique=True)
    preset = models.CharField(max_length=30, default="pagat")
    ruleset = models.JSONField(help_text="Ruleset.to_dict() of the preset with this ladder's overrides")
    seats_per_match = models.PositiveSmallIntegerField(default=2)
    target = models.PositiveIntegerField(default=100, help_text="points that end a match")
    max_concurrent_per_player = models.PositiveSmallIntegerField(default=1)
    max_running_matches = models.PositiveIntegerField(default=4)
    turn_timeout_ms = models.PositiveIntegerField(default=1000, help_text="per bot turn (ms), before the time bank")
    move_seconds = models.PositiveIntegerField(default=60, help_text="a person's move clock on this ladder (s)")
    leaver_wait_seconds = models.PositiveIntegerField(default=60, help_text=(
        "how long (s) a person may be away on their turn before the others may end the wait: they forfeit"))
    is_active = models.BooleanField(default=True)
    duplicate = models.BooleanField(
        default=False, help_text="duplicate play: each pairing plays the same deal seeds once from each seat (a set of "
                                 "rotations, tournaments.duplicate) and is rated once, from the combined result")
    season_length = models.DurationField(
        null=True, blank=True, help_text="the ladder runs in seasons of this length (tournaments.seasons): at each "
                                         "end the standings are kept and the ratings softened; empty: no seasons")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """``full_clean`` (the admin's form): the ruleset must be one the engine reads and seats
        ``seats_per_match`` (its seat range; exactly 4 under ``partnership``, 2 under ``hollywood`` scoring), and
        the caps and clocks ones the scheduler can work with. Raises ``ValidationError`` naming each field and the
        range that would be right (a stored ladder outside them could schedule no match, and its rules page none)."""
        errors: dict[str, str] = {}
        try:
            ruleset = Ruleset.from_dict(self.ruleset)
        except (ValueError, TypeError) as exc:
            raise ValidationError({"ruleset": str(exc)}) from None
        try:
            check_ruleset_seats(ruleset, self.seats_per_match)
        except ValueError as exc:
            errors["seats_per_match"] = (f"{exc} (preset {self.preset!r} seats {ruleset.seats_min} to "
                                         f"{ruleset.seats_max} players per match, not {self.seats_per_match}): "
                                         "choose a seat count the ruleset allows")
        if self.season_length is not None and not 60 <= self.season_length.total_seconds() <= 366 * 86400:
            errors["season_length"] = (f"a season of 1 minute to 366 days, not {self.season_length}: or leave it "
                                       "empty for no seasons")
        limits = {"max_concurrent_per_player": (1, 100, "running matches per player: at least 1 (up to 100)"),
                  "max_running_matches": (1, 1000, "running matches on the ladder: 1 to 1000"),
                  "turn_timeout_ms": (50, 60000, "a bot's turn: 50 to 60000 ms"),
                  "move_seconds": (5, 86400, "a person's move clock: 5 to 86400 seconds")}
        for name, (low, high, words) in limits.items():
            value = getattr(self, name)
            if value is not None and not low <= value <= high:
                errors[name] = f"{words}, not {value}"
        if errors:
            raise ValidationError(errors)


class LadderEntry(models.Model):
    """A player on a ladder with an openskill rating (mu, sigma); ranked by ``ordinal`` = mu - 3 sigma."""

    ladder = models.ForeignKey(Ladder, related_name="entries", on_delete=models.CASCADE)
    player = models.ForeignKey(Player, related_name="ladder_entries", on_delete=models.CASCADE)
    mu = models.FloatField(default=25.0)
    sigma = models.FloatField(default=25.0 / 3)
    ordinal = models.FloatField(default=0.0, db_index=True)
    matches_played = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    is_active = models.BooleanField(default=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-ordinal", "player__name"]
        verbose_name_plural = "ladder entries"
        constraints = [models.UniqueConstraint(fields=["ladder", "player"], name="entry_unique_player")]

    def __str__(self) -> str:
        return f"{self.player} on {self.ladder}"


class Season(models.Model):
    """One season of a ladder with ``season_length`` (``tournaments.seasons``): open from ``started_at`` until
    ``ends_at``; once ``closed_at`` is set its final standings are its ``SeasonStanding`` rows."""

    ladder = models.ForeignKey(Ladder, related_name="seasons", on_delete=models.CASCADE)
    number = models.PositiveIntegerField(help_text="1, 2, ... within the ladder")
    started_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["ladder", "-number"]
        constraints = [models.UniqueConstraint(fields=["ladder", "number"], name="season_ladder_number")]

    def __str__(self) -> str:
        return f"{self.ladder} season {self.number}"


class SeasonStanding(models.Model):
    """A row of a closed season's leaderboard as it closed: the entry's rank (None: provisional), its rating then,
    and its rated matches and wins in that season."""

    season = models.ForeignKey(Season, related_name="standings", on_delete=models.CASCADE)
    player = models.ForeignKey(Player, related_name="season_standings", on_delete=models.CASCADE)
    position = models.PositiveIntegerField(help_text="1.. in the board's order (provisional entries last)")
    rank = models.PositiveIntegerField(null=True, blank=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    matches_played = models.PositiveIntegerField(help_text="rated matches in all, at the close")
    season_matches = models.PositiveIntegerField(default=0, help_text="finished matches of this season")
    season_wins = models.FloatField(default=0, help_text="first places in them (a shared first counts a share)")

    class Meta:
        ordering = ["season", "position"]
        constraints = [models.UniqueConstraint(fields=["season", "player"], name="standing_season_player")]


class LadderMatch(models.Model):
    """A match played for a ladder; ``rated_at`` is set once its ratings were applied (exactly once); ``season``:
    the season open when it was created (None on a ladder without seasons)."""

    ladder = models.ForeignKey(Ladder, related_name="ladder_matches", on_delete=models.CASCADE)
    match = models.OneToOneField(Match, related_name="ladder_match", on_delete=models.CASCADE)
    rated_at = models.DateTimeField(null=True, blank=True)
    season = models.ForeignKey(Season, null=True, blank=True, related_name="ladder_matches", on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-match_id"]
        indexes = [models.Index(fields=["ladder", "match"], name="laddermatch_ladder_match")]  # a ladder's matches

    def __str__(self) -> str:
        return f"{self.ladder}: {self.match}"


class RatingChange(models.Model):
    """One entry's rating before and after one ladder match."""

    entry = models.ForeignKey(LadderEntry, related_name="rating_changes", on_delete=models.CASCADE)
    match = models.ForeignKey(Match, related_name="rating_changes", on_delete=models.CASCADE)
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_before = models.FloatField()
    ordinal_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["entry", "match"], name="rating_change_unique")]

    @property
    def delta(self) -> float:
        return self.ordinal_after - self.ordinal_before


class PlayRequest(models.Model):
    """A person waiting on a ladder for another person (Play now with ``match_with`` people or both)."""

    ladder = models.ForeignKey(Ladder, related_name="play_requests", on_delete=models.CASCADE)
    player = models.ForeignKey(Player, related_name="play_requests", on_delete=models.CASCADE)
    created_at = models.DateTimeField(auto_now_add=True)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["ladder", "player"], condition=models.Q(match__isnull=True),
                                               name="one_open_play_request")]


def new_tournament_seed() -> int:
    """A tournament's secret seed (62 random bits)."""
    import secrets

    return secrets.randbits(62)


class Tournament(models.Model):
    """A tournament: a format (round robin, Swiss, knockout; optionally duplicate), a ruleset, seats per match, who
    may enter, and its state (registering -> running -> finished). ``seed`` derives every match seed (never shown:
    it would tell the cards of matches still to be played)."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("round robin")
        SWISS = "swiss", _("Swiss")
        KNOCKOUT = "knockout", _("knockout")

    class Status(models.TextChoices):
        REGISTERING = "registering", _("registering")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    class Entrants(models.TextChoices):
        BOTH = "both", _("bots and people")
        BOTS = "bots", _("bots only")
        PEOPLE = "people", _("people only")

    name = models.CharField(max_length=80)
    slug = models.SlugField(max_length=80, unique=True)
    format = models.CharField(max_length=12, choices=Format.choices)
    duplicate = models.BooleanField(default=False, help_text="every pod plays the same match seed once per seat "
                                                             "rotation; the combined result counts")
    preset = models.CharField(max_length=30, default="pagat")
    ruleset = models.JSONField(help_text="Ruleset.to_dict() of the preset with this tournament's overrides")
    seats_per_match = models.PositiveSmallIntegerField(default=2)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Swiss: rounds to play; others: "
                                                                               "set at the start")
    matches_per_pairing = models.PositiveSmallIntegerField(default=1, help_text="round robin: k")
    target = models.PositiveIntegerField(default=100, help_text="points that end a match")
    turn_timeout_ms = models.PositiveIntegerField(default=1000, help_text="per bot turn (ms), before the time bank")
    move_seconds = models.PositiveIntegerField(default=60, help_text="a person's move clock (s)")
    entrants = models.CharField(max_length=10, choices=Entrants.choices, default=Entrants.BOTH,
                                help_text="who may enter")
    max_entrants = models.PositiveSmallIntegerField(default=64)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERING, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="tournaments_organised")
    starts_at = models.DateTimeField(null=True, blank=True, help_text="start time (the beat task starts it then); "
                                                                      "empty: the organiser starts it")
    seed = models.BigIntegerField(editable=False, default=new_tournament_seed,
                                  help_text="derives every match seed; never shown")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="why it ended early, if it did")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """``full_clean`` (the admin's form): a ruleset the engine reads, seats in its range, 2 seats for a
        knockout, rounds for Swiss. Raises ``ValidationError`` naming the field and what is allowed."""
        try:
            ruleset = Ruleset.from_dict(self.ruleset)
        except (ValueError, TypeError) as exc:
            raise ValidationError({"ruleset": str(exc)}) from None
        if not ruleset.seats_min <= self.seats_per_match <= ruleset.seats_max:
            raise ValidationError({"seats_per_match": (
                f"the ruleset seats {ruleset.seats_min} to {ruleset.seats_max} players per match, not "
                f"{self.seats_per_match}")})
        if self.format == self.Format.KNOCKOUT and self.seats_per_match != 2:
            raise ValidationError({"seats_per_match": "a knockout plays 2 seats per match"})
        if self.format == self.Format.SWISS and not self.rounds:
            raise ValidationError({"rounds": "a Swiss tournament needs its number of rounds (1 to 30)"})


class TournamentEntry(models.Model):
    """A player in a tournament: ``seed`` (1 = first) and ``rating`` fixed at the start."""

    tournament = models.ForeignKey(Tournament, related_name="entries", on_delete=models.CASCADE)
    player = models.ForeignKey(Player, related_name="tournament_entries", on_delete=models.CASCADE)
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    rating = models.FloatField(default=0.0, help_text="the player's best ladder ordinal under this preset at the start")
    withdrawn = models.BooleanField(default=False)
    registered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seed", "registered_at", "id"]
        verbose_name_plural = "tournament entries"
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="tournament_entry_unique")]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class TournamentRound(models.Model):
    """One round; ``byes`` are the player ids sitting it out; ``slots`` the knockout bracket slots (ids or null)."""

    tournament = models.ForeignKey(Tournament, related_name="round_set", on_delete=models.CASCADE)
    number = models.PositiveSmallIntegerField()
    byes = models.JSONField(default=list)
    slots = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="tournament_round_unique")]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class TournamentMatch(models.Model):
    """A match of a round: ``pod`` (its group of entrants in the round, 0-based) and ``game`` (the k-th match of a
    round-robin pairing, or the seat rotation of a duplicate pod)."""

    round = models.ForeignKey(TournamentRound, related_name="tournament_matches", on_delete=models.CASCADE)
    match = models.OneToOneField(Match, related_name="tournament_match", on_delete=models.CASCADE)
    pod = models.PositiveSmallIntegerField()
    game = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["round", "pod", "game"]
        verbose_name_plural = "tournament matches"
        constraints = [models.UniqueConstraint(fields=["round", "pod", "game"], name="tournament_match_unique")]

    def __str__(self) -> str:
        return f"{self.round}: {self.match}"


# ---- duplicate play (tournaments.duplicate, tournaments.duplicate_services) --------------------------------------
class DuplicateSet(models.Model):
    """A duplicate set: n matches with one match seed, seating the same n players in the n rotations
    (``tournaments.duplicate.rotations``), rated once from the combined result when every match is finished. Its
    matches share ``Match.reveal_group`` (``reveal_key``), so none publishes a seed while another one runs."""

    ladder = models.ForeignKey(Ladder, null=True, blank=True, related_name="duplicate_sets", on_delete=models.CASCADE)
    seed = models.BigIntegerField(null=True, blank=True, help_text="version 1 sets: the match seed every match of the "
                                  "set is dealt from (version 2 sets share a match secret: Match.secret)")
    seat_count = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    rated_at = models.DateTimeField(null=True, blank=True, help_text="when the combined result was rated (once)")
    void_reason = models.CharField(max_length=200, blank=True,
                                   help_text="why the set is not rated (a match of it was aborted)")

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"duplicate set {self.pk}"

    @property
    def reveal_key(self) -> str:
        """The ``Match.reveal_group`` of the set's matches."""
        return f"duplicate-set-{self.pk}"


class DuplicateSetMatch(models.Model):
    """One match of a duplicate set: ``rotation`` r seats the set's first seating turned r seats on."""

    duplicate_set = models.ForeignKey(DuplicateSet, related_name="set_matches", on_delete=models.CASCADE)
    match = models.OneToOneField(Match, related_name="duplicate_entry", on_delete=models.CASCADE)
    rotation = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["duplicate_set", "rotation"]
        constraints = [models.UniqueConstraint(fields=["duplicate_set", "rotation"], name="duplicate_set_rotation")]

    def __str__(self) -> str:
        return f"{self.duplicate_set} rotation {self.rotation}: {self.match}"
