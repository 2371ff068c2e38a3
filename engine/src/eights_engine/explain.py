"""Why an action is not legal now, in a player's words: the message of ``IllegalAction`` from ``Deal.apply``.

Built from legality's own work (``legality.py``): a draw is refused with the very reason ``legal_ids`` found when it
left ``DRAW`` out, and a play after drawing with the ruleset's ``after_draw`` step that ``playable_mask`` uses, so a
message can never disagree with the legal actions. ``explain`` is only called for an action that is not legal.
"""

from __future__ import annotations

from .actions import ANNOUNCE, DECLARE, DRAW, PASS, played_card
from .cards import EIGHT, RANK_NAMES, SUIT_NAMES, card_code, describe_card
from .hands import CARD_BITS, bits
from .legality import DRAWN_CARD_ONLY, TURN_ENDS_AFTER_DRAW, active_suit, fits_mask, no_card_after_draw, playable_mask


def explain(deal, a: int) -> str:
    """Why action id ``a`` (0..74) is not legal now for the seat to play."""
    seat = deal.to_play
    o = deal._o
    if deal.awaiting_declaration:
        return (f"seat {seat} (the dealer) must first declare a suit for the starter eight: "
                '{"type": "declare", "suit": "C|D|H|S"}')
    if DECLARE <= a < ANNOUNCE:
        return 'a suit is declared with the eight that is played: {"type": "play", "card": "8H", "suit": "S"}'
    if deal.pending_draw:
        answer = " or answer with a two" if deal.pending_from_twos and o.twos_stack else ""
        extra = " (an eight is no answer to a two)" if a < DRAW and answer and (a >= 52 or a % 13 == EIGHT) else ""
        return f"seat {seat} must draw the {deal.pending_draw} penalty cards{answer}{extra}"
    playable = playable_mask(deal)
    if a == ANNOUNCE:
        if not o.last_card:
            return "this ruleset has no last-card announcement (last_card_penalty is 0)"
        if deal.announced:
            return "you have already announced your last card this turn"
        return "announce only when you hold two cards and are about to play one of them"
    if a == DRAW:
        deal.legal_ids()  # cached: the reason legality found is kept on the deal
        return deal._why_no_draw
    if a == PASS:  # a pass is legal only when the seat can neither play nor draw (legality.legal_ids)
        if playable:
            return f"you cannot pass while you can play (e.g. the {card_code(bits(playable)[0])})"
        return "you cannot pass while you can still draw"
    card = played_card(a)[0]
    code = card_code(card)
    bit = CARD_BITS[card]
    if not deal.masks[seat] & bit:
        return f"seat {seat} does not hold the {code}"
    if deal.drawn_this_turn and not o.after_draw(deal, bit):
        if o.after_draw is no_card_after_draw:
            return TURN_ENDS_AFTER_DRAW
        drawn = "" if deal.last_drawn is None else f" ({card_code(deal.last_drawn)})"
        return DRAWN_CARD_ONLY.format(drawn=drawn)
    if not fits_mask(deal) & bit:
        return f"the {code} does not fit: {needs(deal)}"
    if not o.go_out_on_eight and deal.sizes[seat] == 1 and card % 13 == EIGHT:
        return "going out on an eight is not allowed under this ruleset"
    return f"the {code} cannot be played now"


def needs(deal) -> str:
    """Words for what may be played now, e.g. 'needs a heart, a 6 or an eight; hearts were declared'."""
    top = deal.discard[-1]
    suit = active_suit(deal)
    wants = [f"a {SUIT_NAMES[suit][:-1]}"]
    if top % 13 != EIGHT:
        wants.append(f"a {RANK_NAMES[top % 13]}")
    if not deal._o.eights_match_suit or top % 13 == EIGHT:
        wants.append("an eight")
    text = "needs " + (", ".join(wants[:-1]) + " or " + wants[-1] if len(wants) > 1 else wants[0])
    if deal.declared_suit is not None:
        text += f"; {SUIT_NAMES[suit]} were declared"
    return text + f" (top card {describe_card(top)})"
