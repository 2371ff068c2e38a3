"""Reads of matches, deals and moves (no writes here)."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from games.engine import MatchState, Ruleset, replay
from games.models import Deal, Match, Move, Player, Seat


def match_record(*, match: Match) -> dict:
    """The engine record of a stored match (ruleset, engine version, seeds, every ply), for ``replay``."""
    deals = []
    moves_by_deal: dict[int, list[dict]] = {}
    for deal_id, action in Move.objects.filter(deal__match=match).order_by("deal__number", "ply").values_list(
        "deal_id", "action"
    ):
        moves_by_deal.setdefault(deal_id, []).append(action)
    for deal in Deal.objects.filter(match=match).order_by("number"):
        entry = {"number": deal.number, "seed": deal.seed, "actions": moves_by_deal.get(deal.id, [])}
        if deal.points is not None:
            entry["points"] = deal.points
        deals.append(entry)
    record = {"ruleset": match.ruleset, "engine_version": match.engine_version, "seats": match.seat_count,
              "seed": match.seed, "deals": deals}
    if match.single_deal_seed is not None:
        record["single_deal"] = {"seed": match.single_deal_seed, "dealer": match.single_deal_dealer}
    return record


def deal_plays(*, code: str) -> list[Deal]:
    """Every play of the deal with this code whose match is finished (a code is public only then), with the
    match's seats, oldest first. Empty when there is none."""
    return list(Deal.objects.filter(code=code.strip().upper(), match__status=Match.Status.FINISHED,
                                    points__isnull=False)
                .select_related("match").prefetch_related("match__seats__player").order_by("match_id", "number"))


def match_state(*, match: Match) -> MatchState:
    """Rebuild the engine state of a match from its stored log (verifying seeds, plies and points)."""
    return replay(match_record(match=match))


def person_seat(*, match: Match, user) -> Seat | None:
    """The seat ``user`` sits in as a person (kind human), or None. A bot's owner does not sit in the bot's seat:
    its user is the owner, but only the bot plays it (``Player.is_played_by``)."""
    if user is None or not user.is_authenticated:
        return None
    return match.seats.filter(player__kind=Player.Kind.HUMAN, player__user=user).select_related("player").first()


def match_list(*, status: str | None = None) -> QuerySet[Match]:
    """Matches, newest first, with seats and players loaded (one query each)."""
    qs = Match.objects.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player__user")))
    if status:
        qs = qs.filter(status=status)
    return qs


def match_deal_table(*, match: Match) -> list[dict]:
    """Per finished deal: number, code (only once the match is finished), dealer, outcome, winner, points and
    the running totals after it."""
    running = [0] * match.seat_count
    names = {seat.index: seat.player.name for seat in match.seats.all()}
    rows = []
    for deal in match.deals.all().order_by("number"):
        if deal.points is None:  # the deal being played, or the one a forfeit or abort cut off
            rows.append({"number": deal.number, "dealer": deal.dealer,
                         "outcome": "playing" if match.status == Match.Status.RUNNING else "cut off",
                         "winner": None, "points": None, "running": None, "plies": None,
                         "code": deal.code if match.is_finished else None})
            continue
        running = [a + b for a, b in zip(running, deal.points)]
        rows.append({"number": deal.number, "dealer": deal.dealer, "outcome": deal.outcome, "winner": deal.winner,
                     "winner_name": names.get(deal.winner), "points": deal.points, "running": list(running), "plies": deal.plies,
                     "code": deal.code if match.is_finished else None})
    return rows


def ruleset_of(match: Match) -> Ruleset:
    return Ruleset.from_dict(match.ruleset)
