"""Ladder reads for pages and commands."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from games.models import Match
from tournaments.models import DuplicateSet, Ladder, LadderEntry, RatingChange


def ladder_list() -> QuerySet[Ladder]:
    """Ladders with their entry count and finished / running match counts (one query)."""
    return Ladder.objects.annotate(
        entry_count=Count("entries", filter=Q(entries__is_active=True), distinct=True),
        finished_count=Count("ladder_matches", filter=Q(ladder_matches__match__status=Match.Status.FINISHED), distinct=True),
        running_count=Count("ladder_matches", filter=Q(ladder_matches__match__status=Match.Status.RUNNING), distinct=True),
    )


def ladder_leaderboard(*, ladder: Ladder) -> list[LadderEntry]:
    """Entries ranked by the conservative ordinal (mu - 3 sigma), with ``rank`` set (ties share a rank)."""
    entries = list(LadderEntry.objects.filter(ladder=ladder).select_related("player__user")
                   .order_by("-ordinal", "player__name"))
    rank = 0
    previous = None
    for i, entry in enumerate(entries, start=1):
        if previous is None or round(entry.ordinal, 6) != round(previous, 6):
            rank = i
        entry.rank = rank
        previous = entry.ordinal
    return entries


def match_rating_changes(*, match: Match) -> dict[int, RatingChange]:
    """Rating change per player id for a ladder match (empty when unrated)."""
    return {c.entry.player_id: c for c in RatingChange.objects.filter(match=match).select_related("entry")}


def duplicate_sets_recent(*, ladder: Ladder, last: int = 10) -> list[DuplicateSet]:
    """The ladder's last ``last`` duplicate sets, newest first, with their matches, seats and players loaded."""
    return list(DuplicateSet.objects.filter(ladder=ladder).order_by("-id")
                .prefetch_related("set_matches__match__seats__player")[:last])
