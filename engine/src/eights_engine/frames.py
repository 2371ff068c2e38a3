"""Replay frames: every position of every deal of a finished match, compact enough to hand to a browser whole (the
replay viewer, ``/matches/<id>/replay/``), built with the engine alone from a match record (no Django, no I/O).

``replay_frames(record, moves=None)`` replays ``record`` (an exported match record, docs/match-record.schema.json, or
``MatchState.record()``) and returns ``{"format": FORMAT, "seats": n, "deals": [...]}`` with, per deal:

* ``number``, ``code``, ``dealer``, ``totals`` (the match totals before the deal);
* ``start``: the position as dealt (a *position*, below);
* ``plies``: one *delta* per action of the deal, in order (ply k of the viewer is the position after the k-th action;
  ply 0 is the deal as dealt);
* ``result``: ``None`` for a deal cut off by a forfeit, else ``{"outcome", "winner", "hand_values", "points",
  "totals"}`` (``totals``: the match totals after the deal).

A *position* is ``{"hands": [[card, ...] by seat], "top": card or None, "suit": the suit to follow or None,
"declared": bool, "stock": count, "discard": count, "to_play": seat or None (the deal is over), "pending": cards a
draw penalty waiting, "direction": 1 or -1, "awaiting": the dealer must declare a suit, "out": [bool by seat]}``;
hands are in code order, as ``Deal.hand`` gives them (every hand face up: a finished match's cards are public).

A *delta* is ``{"seat": the acting seat, "log": [the public history entries the action added, as
``Deal.history``: the play, draw, pass, declaration or announcement, and any penalty or reshuffle entries],
"gain": {seat: [cards]}, "lose": {seat: [cards]}}`` (seat keys as strings, JSON-ready; only seats whose hand
changed, and each left out when empty), plus every position field whose value changed, with its new value, plus from ``moves`` when given:
``"ms"`` (think time, ms; left out when 0) and ``"fault"`` (``{"kind", "detail"}`` when a fault made the referee
play the fallback: the logged action is then the fallback). ``positions(deal_frames)`` applies the deltas (the
viewer's ``static/js/replay.js`` does the same): the list of the deal's positions, ply 0 first.

Size: a delta is about 100 bytes of JSON, a full position a few hundred, so a 2,000-ply match is a few hundred KB
as deltas (BENCHMARKS.md, "Replay viewer").
"""

from __future__ import annotations

from .cards import card_code, parse_card
from .errors import IllegalAction
from .hands import bits
from .match import MatchState, ReplayMismatch, start_from_record

FORMAT = "eights-replay-frames/1"

#: The position fields a delta repeats when they change (``hands`` change through ``gain`` and ``lose``).
FIELDS = ("top", "suit", "declared", "stock", "discard", "to_play", "pending", "direction", "awaiting", "out")


def position(deal, hands: list[list[str]] | None = None) -> dict:
    """The position of an engine ``Deal`` (every hand face up), as described in the module docstring; ``hands``:
    its hands when the caller has them already."""
    return {"hands": [deal.hand(s) for s in range(deal.seats)] if hands is None else hands, "top": deal.top_card,
            "suit": deal.active_suit, "declared": deal.declared_suit is not None, "stock": len(deal.stock),
            "discard": len(deal.discard), "to_play": None if deal.result is not None else deal.to_play,
            "pending": deal.pending_draw, "direction": deal.direction, "awaiting": bool(deal.awaiting_declaration),
            "out": list(deal.out)}


def _hands_now(deal, before: list[list[str]], keys: list[tuple]) -> tuple[list[list[str]], dict, dict]:
    """The deal's hands after a ply, and the cards each seat gained and lost since ``before``. ``keys``: each seat's
    hand masks ``(mask, dup)`` as of ``before``, updated in place; only a seat whose masks changed is read again (a ply
    changes one or two hands). A card's count is its bit in ``mask`` plus its bit in ``dup`` (set only while set in
    ``mask``, hands.py), so the new bits of either mask are the cards gained and the cleared ones the cards lost."""
    hands, gain, lose = list(before), {}, {}
    for seat, (old_mask, old_dup) in enumerate(keys):
        mask, dup = deal.masks[seat], deal.dups[seat]
        if mask == old_mask and dup == old_dup:
            continue
        keys[seat] = (mask, dup)
        hands[seat] = deal.hand(seat)
        added = sorted(bits(mask & ~old_mask) + bits(dup & ~old_dup))
        removed = sorted(bits(old_mask & ~mask) + bits(old_dup & ~dup))
        if added:
            gain[str(seat)] = [card_code(c) for c in added]
        if removed:
            lose[str(seat)] = [card_code(c) for c in removed]
    return hands, gain, lose


def replay_frames(record: dict, moves: list[list[dict]] | None = None) -> dict:
    """The frames of a match record (module docstring). ``moves``: per deal, per ply, ``{"think_ms", "source",
    "fault_kind", "fault"}`` as stored with each move (``games.models.Move``); None leaves think times and faults
    out. Raises ``ReplayMismatch`` (a ``ValueError``) when the record does not replay: a malformed record, another
    engine version, or an action the engine does not allow (``"deal D ply P: ..."``, P 1-based)."""
    state: MatchState = start_from_record(record)
    deals = []
    for i, stored in enumerate(record["deals"]):
        number = i + 1
        if state.is_over or state.deal_number != number:
            raise ReplayMismatch(f"deal {number}: expected no more deals, found another one")
        deal = state.deal
        notes = moves[i] if moves is not None and i < len(moves) else []
        current = position(deal)
        keys = [(deal.masks[s], deal.dups[s]) for s in range(deal.seats)]
        frames = {"number": number, "code": deal.code, "dealer": deal.dealer, "totals": list(state.totals),
                  "start": current, "plies": [], "result": None}
        for ply, action in enumerate(stored["actions"], start=1):
            if deal.is_over:
                raise ReplayMismatch(f"deal {number} ply {ply}: expected the deal to have ended, found {action!r:.80}")
            seat, logged = deal.to_play, deal.history_length
            try:
                state.apply(action)
            except (IllegalAction, TypeError, ValueError) as exc:
                raise ReplayMismatch(f"deal {number} ply {ply}: {exc}") from None
            hands, gain, lose = _hands_now(deal, current["hands"], keys)
            after = position(deal, hands)
            delta = {"seat": seat, "log": deal.history_since(logged)}
            if gain:
                delta["gain"] = gain
            if lose:
                delta["lose"] = lose
            for name in FIELDS:
                if after[name] != current[name]:
                    delta[name] = after[name]
            note = notes[ply - 1] if ply - 1 < len(notes) else None
            if note:
                if note.get("think_ms"):
                    delta["ms"] = note["think_ms"]
                if note.get("source") == "fallback":
                    delta["fault"] = {"kind": note.get("fault_kind") or "fault", "detail": note.get("fault") or ""}
            frames["plies"].append(delta)
            current = after
        if deal.result is not None:
            result = deal.result
            frames["result"] = {"outcome": result.outcome, "winner": result.winner,
                                "hand_values": list(result.hand_values), "points": list(result.points),
                                "totals": list(state.totals)}
        deals.append(frames)
    return {"format": FORMAT, "seats": state.seats, "deals": deals}


def positions(deal_frames: dict) -> list[dict]:
    """Every position of one deal of ``replay_frames``, ply 0 (as dealt) first, each with ``totals`` (the match
    totals then: the deal's ``totals`` until its last ply, the result's after it) added. Pure; a fresh dict each."""
    current = {**deal_frames["start"], "hands": [list(h) for h in deal_frames["start"]["hands"]]}
    totals = list(deal_frames["totals"])
    out = [{**current, "totals": totals}]
    last = len(deal_frames["plies"])
    for k, delta in enumerate(deal_frames["plies"], start=1):
        hands = [list(h) for h in current["hands"]]
        for seat, cards in delta.get("lose", {}).items():
            hand = hands[int(seat)]
            for card in cards:
                hand.remove(card)
        for seat, cards in delta.get("gain", {}).items():
            hands[int(seat)] = sorted(hands[int(seat)] + cards, key=parse_card)  # Deal.hand's order
        current = {**current, **{name: delta[name] for name in FIELDS if name in delta}, "hands": hands}
        if k == last and deal_frames["result"] is not None:
            totals = list(deal_frames["result"]["totals"])
        out.append({**current, "totals": totals})
    return out


__all__ = ["FIELDS", "FORMAT", "position", "positions", "replay_frames"]
