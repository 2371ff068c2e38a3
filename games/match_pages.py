"""What the match, replay and home pages show of matches, read for the views (presentation: card faces, the deal
table, starting hands, replay frames). Reads only; what is public is ``games.matches.exports``' rule."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext, ngettext

from eights_engine import Deal as EngineDeal
from eights_engine import referee
from eights_engine.cards import SUIT_SYMBOLS, SUITS
from eights_engine.frames import replay_frames
from games.matches.exports import MatchNotFinished, match_export, match_is_public
from games.matches.reasons import card_words, suit_words
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


def action_words(action: dict) -> str:
    """An action in the reader's words, as a sentence about a decision says it: "playing the eight of clubs and
    declaring hearts", "drawing a card", "passing", "declaring spades", "announcing the last card"."""
    kind = action.get("type")
    if kind == "play":
        card = card_words(action["card"])
        if action.get("suit"):
            return gettext("playing the %(card)s and declaring %(suit)s") % {"card": card,
                                                                             "suit": suit_words(action["suit"])}
        return gettext("playing the %(card)s") % {"card": card}
    if kind == "declare":
        return gettext("declaring %(suit)s") % {"suit": suit_words(action["suit"])}
    return {"draw": gettext("drawing a card"), "pass": gettext("passing"),
            "announce": gettext("announcing the last card")}.get(kind, kind or "")


def replay_analysis(answer: dict | None) -> dict | None:
    """The replay viewer's part of a done analysis (``analysis_answer``; None otherwise): per deal number (a string,
    as JSON keys are), its ``par``, ``points``, ``ply_limit`` and ``decisions`` by the deal's ply before the action
    (``{ply: {"seat", "best", "loss", "options", "agrees"}}``): static/js/replay.js shows it beside each ply."""
    data = (answer or {}).get("analysis")
    if not data:
        return None
    return {str(deal["number"]): {
        "par": deal["par"], "points": deal["points"], "ply_limit": deal["ply_limit"],
        "decisions": {str(d["ply"]): {"seat": d["seat"], "best": d["best"], "loss": d["loss"], "options": d["options"],
                                      "agrees": d["chosen"] == d["best"]} for d in deal["decisions"]}}
        for deal in data["deals"]}


def analysis_view(*, answer: dict | None, seats: list[Seat], user=None) -> dict | None:
    """The match page's analysis section from ``games.matches.analysis.analysis_answer``'s ``answer`` (None: there is
    none): ``status``, progress, and once done ``summary`` (per seat: name, points given up, decisions, share of
    decisions where it chose as the expert would, in %) and ``deals`` (per deal: ``number``, ``ply_limit``, per seat
    ``cells`` of points, par, the decisions' part and points given up, and ``lines``: for each seat that gave up a
    point or more, a sentence naming its costliest decision, "You ..." for the reader's own seat)."""
    if answer is None:
        return None
    view = {key: answer[key] for key in ("status", "deals_done", "deals_total", "error", "cost_ms")}
    data = answer.get("analysis")
    if not data:
        return view
    names = {s.index: s.player.name for s in seats}
    mine = {s.index for s in seats if user is not None and user.is_authenticated and s.player.user_id == user.pk}
    totals = data["totals"]
    view["summary"] = [{"seat": s, "name": names.get(s, str(s)), "given_up": totals["given_up"][s],
                        "decisions": totals["decisions"][s],
                        "best_share": None if totals["best_share"][s] is None else round(100 * totals["best_share"][s])}
                       for s in range(data["seats"])]
    view["lower_is_better"] = data["lower_is_better"]
    deals = []
    for deal in data["deals"]:
        cells = [{"points": None if deal["points"] is None else deal["points"][s],
                  "par": None if deal["par"] is None else deal["par"][s],
                  "decisions_part": None if deal["decisions_part"] is None else deal["decisions_part"][s],
                  "given_up": deal["given_up"][s]} for s in range(data["seats"])]
        lines = []
        for s in range(data["seats"]):
            worst = max((d for d in deal["decisions"] if d["seat"] == s), key=lambda d: d["loss"], default=None)
            if worst is None or deal["given_up"][s] < 1:
                continue
            facts = {"name": names.get(s, str(s)), "points": round(deal["given_up"][s]), "ply": worst["ply"],
                     "chosen": action_words(worst["chosen"]), "best": action_words(worst["best"])}
            count = facts["points"]
            lines.append(ngettext("You gave up %(points)s point on this deal: ply %(ply)s, %(chosen)s instead of "
                                  "%(best)s", "You gave up %(points)s points on this deal: ply %(ply)s, %(chosen)s "
                                  "instead of %(best)s", count) % facts if s in mine else
                         ngettext("%(name)s gave up %(points)s point on this deal: ply %(ply)s, %(chosen)s instead "
                                  "of %(best)s", "%(name)s gave up %(points)s points on this deal: ply %(ply)s, "
                                  "%(chosen)s instead of %(best)s", count) % facts)
        deals.append({"number": deal["number"], "ply_limit": deal["ply_limit"], "cells": cells, "lines": lines})
    view["deals"] = deals
    return view
