"""A table waiting for its players (``Table``) and its seats (``TableSeat``). Only ``tables.services`` writes them."""

from __future__ import annotations

from django.db import models

from games.models import Match, Player
from tournaments.models import Ladder


class Table(models.Model):
    """A match being gathered: its rules, its seats, the invite ``code`` (short, unguessable: whoever has it may take
    an open seat), whether the lobby lists it (``listed``), and once it starts the ``match``."""

    class Status(models.TextChoices):
        WAITING = "waiting", "waiting for players"
        STARTED = "started", "started"
        CANCELLED = "cancelled", "cancelled"

    code = models.CharField(max_length=16, unique=True)
    created_by = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="tables_created")
    preset = models.CharField(max_length=40)
    ruleset = models.JSONField(help_text="Ruleset.to_dict() of the rules the match is played under")
    seat_count = models.PositiveSmallIntegerField()
    listed = models.BooleanField(default=True, help_text="shown in the lobby (else only the invite link finds it)")
    challenge = models.BooleanField(default=False, help_text="a challenge: one person invited, a few minutes to answer")
    ladder = models.ForeignKey(Ladder, null=True, blank=True, on_delete=models.CASCADE, related_name="tables",
                               help_text="rated on this ladder (its rules; every seat one of its entries); else casual")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True)
    match = models.OneToOneField(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="table")
    rematch_of = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch",
                                      help_text="the table whose finished match this one plays again, seats rotated")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(help_text="a waiting table is cancelled after this")

    class Meta:
        indexes = [models.Index(fields=["status", "listed", "created_at"])]

    def __str__(self) -> str:
        return f"table {self.code}"


class TableSeat(models.Model):
    """One seat of a table: ``kind`` says who may take it; ``player`` is who sits there (None: free)."""

    class Kind(models.TextChoices):
        CREATOR = "creator", "the table's creator"
        OPEN = "open", "anyone with the link"
        INVITED = "invited", "an invited person"
        HOUSE = "house", "a house bot"
        BOT = "bot", "one of the creator's bots"
        CHALLENGE = "challenge", "another owner's bot that accepts challenges"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="table_seats")
    invited = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="table_invitations",
                                help_text="the person (or a rematch's guest) an invited seat is kept for")

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="table_seat_index_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="table_seat_player_unique"),
        ]
