"""What the match, replay and home pages show of matches, read for the views (presentation: card faces, the deal
table, starting hands, replay frames). Reads only; what is public is ``games.matches.exports``' rule."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from eights_engine import Deal as EngineDeal
from eights_engine import referee
from eights_engine.cards import SUIT_SYMBOLS, SUITS
from eights_engine.frames import replay_frames
from games.matches.exports import MatchNotFinished, match_export, match_is_public
from games.matches.reasons import card_words
from games.matches.snapshots import ruleset_of
from games.models import Deal, Match, Move, Seat


def match_list(*, status: str | None = None) -> QuerySet[Match]:
    """Matches, newest first, with seats and players loaded (one query each)."""
    qs = Match.objects.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player__user")))
    if status:
        qs = qs.filter(status=status)
    return qs


def match_page(*, match_id: int) -> dict | None:
    """The match page's data as of one instant: ``match`` (the row), ``deals`` (``match_deal_table`` rows) and
    ``seats`` (index order, with players and their users). The deals and the match row come from one SELECT; the
    seats are read after it, and while that instant's match is running their places and forfeits (written with the
    match's end, which may have come since) are left out. None for an unknown match."""
    deals = list(Deal.objects.filter(match_id=match_id).select_related("match").order_by("number"))
    if not deals:  # every match has its first deal row from the start
        return None
    match = deals[0].match
    seats = list(Seat.objects.filter(match_id=match_id).select_related("player__user").order_by("index"))
    for seat in seats:
        seat.match = match
        if match.status == Match.Status.RUNNING:
            seat.place, seat.forfeited = None, False
    public = match_is_public(match=match)  # read after the match row: a sibling seen running may only have ended since
    page = {"match": match, "seats": seats, "public": public,
            "deals": match_deal_table(match=match, deals=deals, seats=seats, public=public)}
    if public:  # seeds are public once the match (and every match dealt the same cards) is finished, never before
        for row, hands in zip(page["deals"], match_starting_hands(match=match, deals=deals)):
            row["hands"] = hands
    return page


def match_starting_hands(*, match: Match, deals: list[Deal]) -> list[list[list[dict]]]:
    """Each seat's starting hand in each of ``deals`` (number order), dealt again by the engine from the deal's
    stored seed and dealer (``Deal.start``): per deal, per seat, the cards in code order as ``card_faces`` dicts.

    Only for a FINISHED match (a running match's seeds and hands are secret): raises ``MatchNotFinished`` otherwise.
    """
    if not match.is_finished:
        raise MatchNotFinished(f"match {match.pk} is {match.status}: its starting hands are shown once it is finished")
    ruleset = ruleset_of(match)
    return [[card_faces(EngineDeal.start(ruleset, match.seat_count, bytes.fromhex(deal.key) if deal.key else deal.seed,
                                         dealer=deal.dealer).hand(seat))
             for seat in range(match.seat_count)] for deal in deals]


_RED_SUITS = {"D", "H"}


def card_faces(codes: list[str]) -> list[dict]:
    """Cards as a page draws them (the play table's faces, static/js/table.js ``cardEl``): ``code``, ``rank``
    (text: "10" for T), ``suit`` (its symbol), ``colour`` (red or black) and ``words`` ("eight of hearts")."""
    return [{"code": code, "rank": "10" if code[0] == "T" else code[0],
             "suit": SUIT_SYMBOLS[SUITS.index(code[1])], "colour": "red" if code[1] in _RED_SUITS else "black",
             "words": card_words(code)} for code in codes]


def match_deal_table(*, match: Match, deals: list[Deal], seats: list[Seat], public: bool | None = None) -> list[dict]:
    """Per deal of ``deals`` (read with ``match`` at one instant, number order): number, code (only when the match
    is public, ``match_is_public``; ``public`` passes that answer when the caller has it), dealer, outcome, winner,
    points and the running totals after it."""
    if public is None:
        public = match_is_public(match=match)
    running = [0] * match.seat_count
    names = {seat.index: seat.player.name for seat in seats}
    rows = []
    for deal in deals:
        if deal.points is None:  # the deal being played, or the one a forfeit or abort cut off
            rows.append({"number": deal.number, "dealer": deal.dealer,
                         "outcome": "playing" if match.status == Match.Status.RUNNING else "cut off",
                         "winner": None, "points": None, "running": None, "plies": None,
                         "code": deal.code if public else None})
            continue
        running = [a + b for a, b in zip(running, deal.points)]
        rows.append({"number": deal.number, "dealer": deal.dealer, "outcome": deal.outcome, "winner": deal.winner,
                     "winner_name": names.get(deal.winner), "points": deal.points, "running": list(running), "plies": deal.plies,
                     "code": deal.code if public else None})
    return rows


def running_tables(*, player, limit: int = 10) -> list[dict]:
    """The running matches where ``player`` (a person or a guest; None gives []) has a seat, newest first, at most
    ``limit``: ``[{"match": Match, "seat": int, "opponents": [name, ...]}]``, for the home page's way back to a table."""
    if player is None:
        return []
    seats = (Seat.objects.filter(player=player, match__status=Match.Status.RUNNING)
             .select_related("match").order_by("-match__created_at", "-match_id")[:limit])
    others = {}
    for seat in Seat.objects.filter(match_id__in=[s.match_id for s in seats]).exclude(player=player) \
            .select_related("player").order_by("index"):
        others.setdefault(seat.match_id, []).append(seat.player.name)
    return [{"match": s.match, "seat": s.index, "opponents": others.get(s.match_id, [])} for s in seats]


def match_replay(*, match: Match) -> dict:
    """The replay viewer's data of a FINISHED match (``/matches/<id>/replay/``): ``eights_engine.frames.replay_frames``
    of its exported record (``match_export``: one snapshot of the log), with each ply's think time and fault, plus
    ``match`` (id), ``preset``, ``players`` (per seat: ``seat``, ``name``, ``kind``, ``badge``, ``label``, ``total``,
    ``place``, ``forfeited``) and ``result`` (``totals``, ``places``, ``forfeited``) as the export gives them.
    The replay is public: each fault's words are ``referee.public_fault_text``'s (never the bot's endpoint).

    Raises ``MatchNotFinished`` unless the match is finished (nothing of a running or aborted match is replayed),
    ``Match.DoesNotExist`` when it is gone. The moves' think times and faults are read after the snapshot: a
    finished match's moves never change.
    """
    record = match_export(match=match, sign=False)
    moves: list[list[dict]] = [[] for _ in record["deals"]]
    rows = (Move.objects.filter(deal__match_id=match.pk).order_by("deal__number", "ply")
            .values_list("deal__number", "source", "fault_kind", "fault", "think_ms"))
    for number, source, fault_kind, fault, think_ms in rows:
        if 0 < number <= len(moves):
            moves[number - 1].append({"source": source, "fault_kind": fault_kind,
                                      "fault": referee.public_fault_text(fault_kind, fault),
                                      "think_ms": think_ms})
    frames = replay_frames(record, moves)
    players = {s.index: s.player for s in Seat.objects.filter(match_id=match.pk).select_related("player")}
    frames.update(match=match.pk, preset=record["preset"], result=record["result"], players=[
        {**p, "badge": players[p["seat"]].badge, "label": players[p["seat"]].label} for p in record["players"]])
    return frames
