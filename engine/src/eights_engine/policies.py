"""The playout policies of the fast path's pure side (``fast.PureFastDeal.playout``): the same choices, ply for ply,
as ``_fastplay.c``'s ``heuristic_id`` and ``tactical_id`` (engine/tests/test_fast.py plays both). A policy reads the
whole deal (a playout is a simulation: every hand is in view) and returns one of the legal action ids."""

from __future__ import annotations

from .actions import ANNOUNCE, CODES, DECLARE, DRAW, PASS
from .cards import EIGHT
from .deal import Deal
from .hands import bits
from .legality import NO_LIMIT


def heuristic_id(deal: Deal, legal: list[int]) -> int:
    """The heuristic playout policy's choice among ``legal`` (ids) for the seat to play
    (``strategies.heuristic_strategy`` at the ruleset's card values, the compiled path's ``heuristic_id``): shed the
    plain card of most value plus three a card left in its suit (ties to the later card code), keeping an eight
    while a plain card fits unless an opponent holds two cards or fewer; an eight names the longest suit; with no
    play: declare the longest suit, else draw, else pass."""
    seat = deal.to_play
    counts = [0, 0, 0, 0]
    for c in bits(deal.masks[seat]) + bits(deal.dups[seat]):
        if c % 13 != EIGHT:
            counts[c // 13] += 1
    longest = max(range(4), key=lambda s: (counts[s], s)) if any(counts) else 3
    plays = [a for a in legal if a < DRAW]
    if not plays:
        if DECLARE <= legal[0] < ANNOUNCE:
            return DECLARE + longest
        return DRAW if DRAW in legal else PASS if PASS in legal else legal[0]
    low = min((n for s, n in enumerate(deal.sizes) if s != seat), default=99)
    values = deal._o.values
    plain = [a for a in plays if a < 52 and a % 13 != EIGHT]
    eights = [a for a in plays if not (a < 52 and a % 13 != EIGHT)]
    if plain and not (low <= 2 and eights):
        return max(plain, key=lambda c: (values[c] + 3 * (counts[c // 13] - 1), CODES[c]))
    if eights[0] < 52:
        return eights[0]
    return 52 + 4 * ((eights[0] - 52) // 4) + longest


def _fits_after(deal: Deal, target: int, action_id: int) -> int:
    """How many cards of ``target``'s hand would fit after play ``action_id``: its eights, the cards of the suit the
    play leaves to follow, and (a plain card) the cards of its rank."""
    card = action_id if action_id < 52 else (action_id - 52) // 4 * 13 + EIGHT
    suit, rank = (card // 13 if action_id < 52 else (action_id - 52) % 4), card % 13
    held = bits(deal.masks[target]) + bits(deal.dups[target])
    return sum(1 for c in held if c % 13 == EIGHT or c // 13 == suit or c % 13 == rank)


def tactical_id(deal: Deal, legal: list[int]) -> int:
    """The tactical playout policy's choice among ``legal`` (ids) for the seat to play (the compiled path's
    ``tactical_id``): the tactician's tactics (``tactics.py``, seed 001) read with the whole deal in view, as a
    playout may. Out with a last card; an opponent (the next in the direction of play) with one card: the play
    after which it holds fewest fitting cards, the most valuable of those; plain cards before eights, into the
    longest suit once a suit is gone from the hand, else the most valuable (ties: the later card code); with a hand
    longer than four cards, two or more draws a turn (``draw="up_to"``), none drawn yet and nobody within two cards
    of going out, an eight that is the only play is held and a card of ten points or more that nothing in hand
    would follow is kept, by drawing; an eight names the longest suit; with no play, as ``heuristic_id``."""
    plays = [a for a in legal if a < DRAW]
    if not plays:
        return heuristic_id(deal, legal)
    seat, seats, o = deal.to_play, deal.seats, deal._o
    held = bits(deal.masks[seat]) + bits(deal.dups[seat])
    if len(held) == 1:
        return plays[0]
    counts = [0, 0, 0, 0]
    for c in held:
        if c % 13 != EIGHT:
            counts[c // 13] += 1
    others = [t for t in ((seat + k * deal.direction) % seats for k in range(1, seats)) if not deal.out[t]]
    target = next((t for t in others if 0 < deal.sizes[t] <= 1), None)
    values = o.values

    def card_of(a: int) -> int:
        return a if a < 52 else (a - 52) // 4 * 13 + EIGHT

    if target is not None and not deal.pending_draw:
        best, best_key = None, None
        for a in plays:
            key = (-_fits_after(deal, target, a), values[card_of(a)], CODES[card_of(a)])
            if best is None or key > best_key:
                best, best_key = a, key
        return best
    may_draw = (len(held) > 4 and not deal.drawn_this_turn and not deal.pending_draw and DRAW in legal
                and o.cards_a_turn != NO_LIMIT and o.cards_a_turn >= 2
                and not any(deal.sizes[t] <= 2 for t in others))
    gone = not all(counts)
    plain = [a for a in plays if a < 52 and a % 13 != EIGHT]
    if not plain:
        if may_draw:
            return DRAW
        eight = plays[0]
        if eight < 52:
            return eight
        longest = max(range(4), key=lambda s: (counts[s], s)) if any(counts) else 3
        return 52 + 4 * ((eight - 52) // 4) + longest

    def lead(c: int) -> tuple:
        left, value = counts[c // 13] - 1, values[c]
        return (left, value, CODES[c]) if gone else (value, left, CODES[c])
    best = max(plain, key=lead)
    if (may_draw and values[best] >= 10 and counts[best // 13] == 1 and not any(c % 13 == EIGHT for c in held)
            and sum(1 for c in held if c % 13 == best % 13) == 1):
        return DRAW
    return best
