"""Ladder reads for pages and commands."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from games.browse import BadFilter
from games.models import Match
from tournaments.models import Ladder, LadderEntry, LadderMatch, RatingChange


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


def ladder_matches_q(slug: str) -> Q:
    """The match list's ``ladder`` filter (registered into ``games.browse.MATCH_GROUPS``): a ``Q`` over ``Match``
    selecting the matches of the ladder with this slug. Raises ``BadFilter`` naming the ladders when there is none."""
    ladder_id = Ladder.objects.filter(slug=slug).values_list("pk", flat=True).first()
    if ladder_id is None:
        slugs = list(Ladder.objects.order_by("slug").values_list("slug", flat=True)[:20])
        raise BadFilter("ladder", f"there is no ladder {slug[:80]!r}: give a ladder's slug "
                                  f"({', '.join(slugs) if slugs else 'there are no ladders yet'})")
    return Q(id__in=LadderMatch.objects.filter(ladder_id=ladder_id).values("match_id"))  # index (ladder, match)
