"""The action vocabulary: action ids of the integer fast path, their dict forms, and the history entries.

An action id is the card (0..51, ``suit * 13 + rank``) for a play without declaration, ``52 + 4 * suit + declared``
for an eight with a declaration, then ``DRAW`` (68), ``PASS`` (69), ``DECLARE + suit`` (70..73), ``ANNOUNCE`` (74).
``ACTIONS[id]`` is the dict form (DESIGN.md): ``{"type": "play", "card": "8H", "suit": "S"}``, ``{"type": "draw"}``,
``{"type": "pass"}``, ``{"type": "declare", "suit": "S"}``, ``{"type": "announce"}``.

Legal ids are listed in canonical order: declarations C D H S; plays by card code order, an eight once per
declared suit when eights declare; then draw, pass, announce. ``play_ids`` gives the plays of a playable mask in
that order (memoised per mask). ``parse_action`` turns a dict into its id after checking its shape (not its
legality, which is ``legality.py``'s).
"""

from __future__ import annotations

from .cards import EIGHT, SUITS, card_code, parse_card, parse_suit
from .errors import IllegalAction

DRAW, PASS, DECLARE, ANNOUNCE = 68, 69, 70, 74
DECLARE_IDS = (DECLARE, DECLARE + 1, DECLARE + 2, DECLARE + 3)

#: ACTIONS[id] is the dict form of action id (treat as read-only; ``Deal.legal_actions`` returns copies).
ACTIONS: list[dict] = [{"type": "play", "card": card_code(c)} for c in range(52)]
ACTIONS += [{"type": "play", "card": card_code(s * 13 + EIGHT), "suit": SUITS[d]} for s in range(4) for d in range(4)]
ACTIONS += [{"type": "draw"}, {"type": "pass"}] + [{"type": "declare", "suit": s} for s in SUITS]
ACTIONS += [{"type": "announce"}]

#: EIGHT_IDS[suit][declared]: the id of the eight of ``suit`` declaring ``declared``.
EIGHT_IDS = [[52 + 4 * s + d for d in range(4)] for s in range(4)]
CODES = [card_code(c) for c in range(52)]


def played_card(a: int) -> tuple[int, int | None]:
    """``(card, declared suit or None)`` of play id ``a`` (0..67)."""
    if a < 52:
        return a, None
    return ((a - 52) // 4) * 13 + EIGHT, (a - 52) % 4


class _ChunkIds(dict):
    """(shift + 52 * chunk) -> the action ids of the cards in a 13-bit chunk of a playable mask (one suit),
    in code order, an eight expanded to its four declarations when eights declare. Filled on first use."""

    def __init__(self, declares: bool) -> None:
        super().__init__()
        self.declares = declares

    def __missing__(self, key: int) -> tuple:
        shift, chunk = key % 52, key // 52
        ids: list[int] = []
        for rank in range(13):
            if chunk >> rank & 1:
                card = shift + rank
                ids.extend(EIGHT_IDS[card // 13] if self.declares and rank == EIGHT else [card])
        self[key] = value = tuple(ids)
        return value


_CHUNKS = {True: _ChunkIds(True), False: _ChunkIds(False)}
#: playable mask -> play ids, one bounded memo of ``play_ids`` per ``declares`` (at most 2**17 masks each)
PLAY_IDS: dict[bool, dict[int, tuple]] = {True: {}, False: {}}


def play_ids(playable: int, declares: bool) -> tuple:
    """The play ids for a playable mask, in canonical order (memoised in ``PLAY_IDS[declares]``)."""
    chunks = _CHUNKS[declares]
    ids: tuple = ()
    for shift in (0, 13, 26, 39):
        chunk = (playable >> shift) & 0x1FFF
        if chunk:
            ids += chunks[shift + chunk * 52]
    cache = PLAY_IDS[declares]
    if len(cache) < 1 << 17:
        cache[playable] = ids
    return ids


def fast_ids(declares: bool) -> dict:
    """(type, card, suit, number of keys) -> action id, for actions written exactly as ``ACTIONS`` has them (the
    dict API's common case skips ``parse_action``)."""
    table = {}
    for i, a in enumerate(ACTIONS):
        if a["type"] == "play" and a["card"][0] == "8" and ("suit" in a) != declares:
            continue
        table[(a["type"], a.get("card"), a.get("suit"), len(a))] = i
    return table


_ACTION_KEYS = {
    "play": ({"type", "card"}, {"suit"}),
    "draw": ({"type"}, set()),
    "pass": ({"type"}, set()),
    "declare": ({"type", "suit"}, set()),
    "announce": ({"type"}, set()),
}


def check_shape(action: object) -> str:
    """The action's type, after checking it is a dict with exactly the keys its type takes (``IllegalAction``)."""
    if not isinstance(action, dict):
        raise IllegalAction('an action is a JSON object such as {"type": "draw"}')
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _ACTION_KEYS:
        raise IllegalAction(f"unknown action type {kind!r:.40}: use play, draw, pass, declare or announce")
    required, optional = _ACTION_KEYS[kind]
    missing = sorted(required - set(action), key=repr)
    if missing:
        raise IllegalAction(f"a {kind} action needs {missing[0]!r}")
    extra = sorted(set(action) - required - optional, key=repr)
    if extra:
        raise IllegalAction(f"a {kind} action takes no {extra[0]!r:.40}")
    return kind


def parse_action(action: object, declares: bool, last_card_ends_deal: bool) -> int:
    """The id of a dict action, after checking its shape (not its legality); ``IllegalAction`` saying what is wrong.

    ``declares``: eights declare a suit under the ruleset. ``last_card_ends_deal``: the seat to play holds one
    card and going out ends the deal; an eight played then may leave out its suit, since nobody follows it: the play
    is taken (and recorded) as declaring the eight's own suit; a play naming a suit stays valid.
    """
    kind = check_shape(action)
    if kind == "play":
        card = parse_card(action["card"])
        eight_declares = card % 13 == EIGHT and declares
        if eight_declares and "suit" not in action:
            if last_card_ends_deal:
                return EIGHT_IDS[card // 13][card // 13]
            raise IllegalAction(f'playing the {card_code(card)} needs a declared suit: add "suit": one of C, D, H, S')
        if not eight_declares and "suit" in action:
            why = ("eights declare no suit under this ruleset" if card % 13 == EIGHT
                   else "only an eight declares a suit")
            raise IllegalAction(f'remove "suit": {why}')
        return EIGHT_IDS[card // 13][parse_suit(action["suit"])] if eight_declares else card
    if kind == "declare":
        return DECLARE + parse_suit(action["suit"])
    return {"draw": DRAW, "pass": PASS, "announce": ANNOUNCE}[kind]


def entry_dict(entry: tuple) -> dict:
    """A history entry as ``Deal.history`` gives it, from the compact tuple the deal logs: ``(seat, "play", code[,
    suit])``, ``(seat, "draw"[, count, penalty])``, ``(seat, "pass")``, ``(seat, "declare", suit)``, ``(seat,
    "announce")``, ``(seat, "penalty", count)``, ``(seat, "reshuffle", count)`` (the stock ran out: ``count`` cards
    from under the discard pile's top card were shuffled into a new stock; not a ply)."""
    seat, kind = entry[0], entry[1]
    out = {"seat": seat, "type": kind}
    if kind == "play":
        out["card"] = entry[2]
        if len(entry) > 3:
            out["suit"] = entry[3]
    elif kind == "declare":
        out["suit"] = entry[2]
    elif kind == "penalty" or kind == "reshuffle":
        out["count"] = entry[2]
    elif kind == "draw" and len(entry) > 2:
        out["count"], out["penalty"] = entry[2], entry[3]
    return out
