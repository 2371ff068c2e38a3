"""Ladders, their entries and ratings (openskill Plackett-Luce), and the rating change of every match."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

from games.engine import Ruleset
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
    is_active = models.BooleanField(default=True)
    duplicate = models.BooleanField(
        default=False, help_text="duplicate play: each pairing plays the same deal seeds once from each seat (a set of "
                                 "rotations, tournaments.duplicate) and is rated once, from the combined result")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """``full_clean`` (the admin's form): the ruleset must be one the engine reads, and ``seats_per_match`` in
        its seat range (a stored ladder outside it could schedule no match, and its rules page none). Raises
        ``ValidationError`` naming the field and the range."""
        try:
            ruleset = Ruleset.from_dict(self.ruleset)
        except (ValueError, TypeError) as exc:
            raise ValidationError({"ruleset": str(exc)}) from None
        if not ruleset.seats_min <= self.seats_per_match <= ruleset.seats_max:
            raise ValidationError({"seats_per_match": (
                f"the ruleset (preset {self.preset!r}) seats {ruleset.seats_min} to {ruleset.seats_max} players per "
                f"match, not {self.seats_per_match}: choose a seat count in that range")})


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


class LadderMatch(models.Model):
    """A match played for a ladder; ``rated_at`` is set once its ratings were applied (exactly once)."""

    ladder = models.ForeignKey(Ladder, related_name="ladder_matches", on_delete=models.CASCADE)
    match = models.OneToOneField(Match, related_name="ladder_match", on_delete=models.CASCADE)
    rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-match_id"]

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


# ---- duplicate play (tournaments.duplicate, tournaments.duplicate_services) --------------------------------------
class DuplicateSet(models.Model):
    """A duplicate set: n matches with one match seed, seating the same n players in the n rotations
    (``tournaments.duplicate.rotations``), rated once from the combined result when every match is finished. Its
    matches share ``Match.reveal_group`` (``reveal_key``), so none publishes a seed while another one runs."""

    ladder = models.ForeignKey(Ladder, null=True, blank=True, related_name="duplicate_sets", on_delete=models.CASCADE)
    seed = models.BigIntegerField(help_text="the match seed every match of the set is dealt from")
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
