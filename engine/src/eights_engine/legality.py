"""Legality: what the seat to play may do now (RULES.md: the common core, the draw rule of each system).

``legal_ids(deal)`` is ``Deal.legal_ids``: the fast path's legal action ids in canonical order (``actions.py``), by
phase as OpenSpiel's ``crazy_eights.cc`` does: the dealer declaring a suit for a starter eight (D), a seat facing a
draw penalty (twos, queen of spades), and an ordinary turn (before or after drawing). It reads only the deal and the
ruleset's options resolved once (``options.Options``), never the ``Ruleset`` itself, so no option is looked up by
name on the hot path.

The draw rule is worked out once, as a reason: ``legal_ids`` finds why the seat may not draw now (None when it
may), lists ``DRAW`` exactly when there is none and keeps the reason on the deal, where ``explain.py`` reads it, so
the legal actions and the message can never disagree. Its clauses: there must be a card to draw; forced play (C)
forbids a first draw while holding a playable card; later draws follow the system's ``DrawRule`` below, resolved
once per ruleset (``options.py``).
"""

from __future__ import annotations

from typing import NamedTuple

from .actions import ANNOUNCE, DECLARE_IDS, DRAW, PASS, play_ids
from .cards import EIGHT
from .hands import ALL_MASK, CARD_BITS, EIGHTS_MASK, RANK_MASKS, SUIT_MASKS, TWOS_MASK

NOTHING_TO_DRAW = "there is nothing to draw: the stock is empty and there is no card under the top card"
MUST_PLAY = "you must play: you hold a playable card and drawing is only allowed without one"
ALREADY_DREW = "you have already drawn your card this turn: play the drawn card or pass"
LIMIT_REACHED = "you have drawn the limit of {limit} {cards} this turn: play or pass"
PLAY_THE_DRAWN_CARD = "you drew a playable card: play it"
STOCK_RAN_OUT = ("the stock ran out during your draws: pass (the cards under the top card become the new stock "
                 "for the next seat's draw)")
STOCK_RAN_OUT_PLAY = "the stock ran out during your draws: play a card that fits"
TURN_ENDS_AFTER_DRAW = "after drawing the turn ends without a play under this ruleset"
NO_DRAW_AFTER_DRAW = "after drawing the turn ends under this ruleset: pass"
DRAWN_CARD_ONLY = "after drawing only the drawn card{drawn} may be played"


# ---- what may be played ----------------------------------------------------------------------------------------
def active_suit(deal) -> int | None:
    """The suit to follow: the declared suit, else the top card's suit (None on an empty discard pile)."""
    if deal.declared_suit is not None:
        return deal.declared_suit
    return deal.discard[-1] // 13 if deal.discard else None


def fits_mask(deal) -> int:
    """Cards that may go on the discard pile now, ignoring whose hand (common core; ``eights`` of C)."""
    if not deal.discard:
        return ALL_MASK  # whole deck dealt: the first player leads any card (our reading, A4)
    top = deal.discard[-1]
    top_rank = top % 13
    suit = deal.declared_suit if deal.declared_suit is not None else top // 13
    fits = SUIT_MASKS[suit] | RANK_MASKS[top_rank]
    if deal._o.eights_match_suit and top_rank != EIGHT:
        return fits  # an eight too must follow suit unless an eight is on top
    return fits | EIGHTS_MASK


def playable_mask(deal) -> int:
    """Distinct cards the seat to play may play now: a pending penalty may only be answered with a two under
    ``twos="stack"``; after a draw the ruleset's ``after_draw`` step narrows the hand (``play_after_draw``); no
    going out on an eight without ``go_out_on_eight`` (B)."""
    o = deal._o
    seat = deal.to_play
    hand = deal.masks[seat]
    if deal.pending_draw:
        return hand & TWOS_MASK if deal.pending_from_twos and o.twos_stack else 0
    if deal.drawn_this_turn:
        hand = o.after_draw(deal, hand)
    mask = hand & fits_mask(deal)
    if not o.go_out_on_eight and deal.sizes[seat] == 1:
        mask &= ~EIGHTS_MASK
    return mask


# play_after_draw: the cards of ``hand`` that may still be played after drawing (D B, and "none")
def any_card_after_draw(deal, hand: int) -> int:
    """``any`` (B): every card of the hand, as before drawing."""
    return hand


def drawn_card_only(deal, hand: int) -> int:
    """``drawn_only`` (D, A, C): only the card just drawn, if it fits; otherwise the turn ends."""
    card = deal.last_drawn
    return CARD_BITS[card] if card is not None and hand & CARD_BITS[card] else 0


def no_card_after_draw(deal, hand: int) -> int:
    """``none``: drawing ends the turn without a play."""
    return 0


# ---- the draw rule ---------------------------------------------------------------------------------------------
# ``legal_ids`` works out why the seat to play may not draw (a reason, or None when it may): DRAW is legal exactly
# when there is none, and a refusal is kept on the deal (``deal._why_no_draw``) for explain.py, which gives that very
# reason. The clauses, in order: a seat facing a penalty may always take it; there must be a card to draw (the stock,
# or the cards under the top card when the ruleset reshuffles); a first draw is refused to a seat holding a playable
# card only under forced play (C); a seat whose draws used up the stock stops (``stock_out_ends_turn``, C); then the
# system's ``DrawRule``: at most ``cards_a_turn`` cards, and a later draw refused or not to a seat holding a playable
# card.
NO_LIMIT = 1 << 30


class DrawRule(NamedTuple):
    """A system's draw rule as data, resolved once per ruleset by ``draw_rule`` (``options.Options`` copies it)."""

    name: str  # the rule's name, e.g. "one_card_a_turn"
    cards_a_turn: int  # draws a turn at most (NO_LIMIT: until a playable card comes)
    at_the_limit: str  # why no draw once that many were drawn
    holding_a_play_first: str | None  # why no first draw while holding a playable card (None: it may draw)
    holding_a_play_later: str | None  # why no later draw while holding a playable card (None: it may draw)


def draw_rule(draw: str, draw_limit: int, play_after_draw: str, voluntary_draw: bool) -> DrawRule:
    """The draw rule of ``Ruleset`` fields ``draw``, ``draw_limit``, ``play_after_draw`` and ``voluntary_draw``:
    D one card a turn; A and C until a playable card comes; B up to ``draw_limit`` cards; forced play (C,
    ``voluntary_draw`` false) refuses a draw to a seat holding a playable card; ``play_after_draw="none"``: a draw
    ends the turn, so no draw follows it (with ``draw="one"`` the one-card reason is kept)."""
    forced = None if voluntary_draw else MUST_PLAY
    if draw == "one":
        return DrawRule("one_card_a_turn", 1, ALREADY_DREW, forced, None)
    if play_after_draw == "none":
        return DrawRule("turn_ends_after_draw", 1, NO_DRAW_AFTER_DRAW, forced, None)
    if draw == "up_to":
        return DrawRule("draw_up_to_limit", draw_limit, LIMIT_REACHED.format(limit=draw_limit, cards="card" if draw_limit == 1 else "cards"), forced, forced)
    return DrawRule("draw_until_playable", NO_LIMIT, "", forced, PLAY_THE_DRAWN_CARD)


# ---- the legal actions -----------------------------------------------------------------------------------------
def legal_ids(deal) -> list[int]:
    """The fast path's legal action ids (``actions.py``), canonical order; [] once the deal is over. Cached until
    the next ply; treat the list as read-only."""
    legal = deal._legal
    if legal is not None:
        return legal
    if deal.result is not None:
        legal = []
    elif deal.awaiting_declaration:
        legal = list(DECLARE_IDS)
    elif deal.pending_draw:
        legal = _facing_a_penalty(deal)
    else:  # an ordinary turn: play, draw, pass, announce
        o = deal._o
        drawn = deal.drawn_this_turn
        if not deal.discard or o.special_fits or (drawn and not o.any_card_after_draw):
            playable = playable_mask(deal)
        else:  # the common case, inlined: follow suit or rank, or an eight (fits_mask with eights anytime)
            top = deal.discard[-1]
            suit = deal.declared_suit
            fits = SUIT_MASKS[top // 13 if suit is None else suit] | RANK_MASKS[top % 13] | EIGHTS_MASK
            playable = deal.masks[deal.to_play] & fits
        if playable:
            ids = o.play_ids.get(playable)
            if ids is None:
                ids = play_ids(playable, o.declares)
            legal = list(ids)
        else:
            legal = []
        # the draw rule (see above): why this seat may not draw now, or None
        if not deal.stock and not (o.reshuffle and len(deal.discard) > 1):
            why = NOTHING_TO_DRAW
        elif not drawn:
            why = o.holding_a_play_first if playable else None
        elif o.stock_out_ends_turn and not deal.stock:  # holding a play, the draw rule's own reason comes first
            why = (o.holding_a_play_later or STOCK_RAN_OUT_PLAY) if playable else STOCK_RAN_OUT
        elif drawn >= o.cards_a_turn:
            why = o.at_the_limit
        else:
            why = o.holding_a_play_later if playable else None
        if why is None:
            legal.append(DRAW)
        else:
            deal._why_no_draw = why  # for explain.py
        if (why is not None and not playable) or (drawn and o.may_keep_drawn_card):
            legal.append(PASS)  # nothing to play or draw; or D's "may": keep a playable drawn card
        if o.last_card and playable and not deal.announced and deal.sizes[deal.to_play] == 2:
            legal.append(ANNOUNCE)
    deal._legal = legal
    return legal


def _facing_a_penalty(deal) -> list[int]:
    """A seat facing a draw penalty takes it (``DRAW``, even from an empty stock) or, under ``twos="stack"``,
    answers a two with a two; it never passes. Announcing applies as in a turn (the answer may be its last but one
    card)."""
    o = deal._o
    playable = playable_mask(deal)
    legal = list(play_ids(playable, o.declares)) if playable else []
    legal.append(DRAW)
    if o.last_card and playable and not deal.announced and deal.sizes[deal.to_play] == 2:
        legal.append(ANNOUNCE)
    return legal
