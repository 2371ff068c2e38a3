"""Head to head: what two players' public matches against each other say (``/players/<a>/vs/<b>/`` and
``GET /api/players/<a>/vs/<b>/``): how many, who placed ahead how often, their card points, and the rating changes
those matches caused on each ladder. Reads only public matches (finished, and no match dealt the same cards still
running: ``games.matches.exports.match_is_public``)."""

from __future__ import annotations

from django.db.models import Count, F, Sum

from games.matches.exports import public_matches
from games.models import Match, Player, Seat
from tournaments.models import RatingChange


def head_to_head(*, a: Player, b: Player, recent: int = 20) -> dict:
    """``{"players": [name a, name b], "matches": n, "wins": [a's, b's], "ties": n, "points": [a's, b's],
    "ratings": [{"ladder", "ladder_name", "matches", "change": [a's, b's]}], "recent": [{"match_id", "finished_at",
    "preset", "ladder", "places": [a's, b's], "totals": [a's, b's]}]}``: over the public matches both sat in (a win:
    placed ahead of the other; points: the card points each ended with, summed; a rating change: the sum of the
    ordinal's moves over those matches, per ladder). ``ValueError`` when ``a`` and ``b`` are one player."""
    if a.pk == b.pk:
        raise ValueError("a head to head needs two different players")
    matches = public_matches(Match.objects.filter(seats__player=a).filter(seats__player=b))
    seats: dict[int, dict[int, tuple]] = {}
    for match_id, player_id, place, total in (Seat.objects.filter(match__in=matches, player__in=[a, b])
                                              .values_list("match_id", "player_id", "place", "total")):
        seats.setdefault(match_id, {})[player_id] = (place, total)
    wins, points, ties = [0, 0], [0, 0], 0
    for both in seats.values():
        (place_a, total_a), (place_b, total_b) = both[a.pk], both[b.pk]
        points[0] += total_a
        points[1] += total_b
        if place_a == place_b or place_a is None or place_b is None:
            ties += 1
        else:
            wins[0 if place_a < place_b else 1] += 1
    ratings: dict[str, dict] = {}
    for row in (RatingChange.objects.filter(match__in=matches, entry__player__in=[a, b])
                .values("entry__player_id", "entry__ladder__slug", "entry__ladder__name")
                .annotate(change=Sum(F("ordinal_after") - F("ordinal_before")), count=Count("id"))
                .order_by("entry__ladder__slug")):
        ladder = ratings.setdefault(row["entry__ladder__slug"], {
            "ladder": row["entry__ladder__slug"], "ladder_name": row["entry__ladder__name"], "matches": 0,
            "change": [0.0, 0.0]})
        ladder["change"][0 if row["entry__player_id"] == a.pk else 1] = round(row["change"], 3)
        ladder["matches"] = max(ladder["matches"], row["count"])
    latest = (matches.filter(pk__in=list(seats)).select_related("ladder_match__ladder")
              .order_by("-finished_at", "-id")[:recent])
    return {"players": [a.name, b.name], "matches": len(seats), "wins": wins, "ties": ties, "points": points,
            "ratings": list(ratings.values()),
            "recent": [{"match_id": m.pk, "finished_at": m.finished_at, "preset": m.preset,
                        "ladder": m.ladder_match.ladder.slug if hasattr(m, "ladder_match") else None,
                        "places": [seats[m.pk][a.pk][0], seats[m.pk][b.pk][0]],
                        "totals": [seats[m.pk][a.pk][1], seats[m.pk][b.pk][1]]} for m in latest]}


def frequent_opponents(*, player: Player, limit: int = 5) -> list[dict]:
    """The players ``player`` met most often in public matches: ``[{"name", "matches"}]``, most first (the profile
    page links each to their head to head)."""
    rows = (Seat.objects.filter(match__in=public_matches(Match.objects.filter(seats__player=player)))
            .exclude(player=player).values("player__name").annotate(matches=Count("match", distinct=True))
            .order_by("-matches", "player__name")[:limit])
    return [{"name": row["player__name"], "matches": row["matches"]} for row in rows]
