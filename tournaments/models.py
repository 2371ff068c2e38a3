"""Ladders, their entries and ratings (openskill Plackett-Luce), and the rating change of every match."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

from games.engine import Ruleset
from games.engine.deal import check_ruleset_seats
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


class LadderMatch(models.Model):
    """A match played for a ladder; ``rated_at`` is set once its ratings were applied (exactly once)."""

    ladder = models.ForeignKey(Ladder, related_name="ladder_matches", on_delete=models.CASCADE)
    match = models.OneToOneField(Match, related_name="ladder_match", on_delete=models.CASCADE)
    rated_at = models.DateTimeField(null=True, blank=True)

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
