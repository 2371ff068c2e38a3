"""Effects: how each ply changes the deal (RULES.md: the common core, action cards, turn order, the reshuffle).

Every function takes the ``Deal`` first and is bound into it (``Deal._play = effects.play`` and so on), so the hot
path pays no extra call. ``apply_id`` (``deal.py``) checks legality first: nothing here checks it again.

* ``play``, ``draw``, ``pass_turn``, ``declare``, ``announce``: one ply each, then the turn moves on (``advance``);
* the action cards' effects, one named step per card, chosen once per ruleset (``options.Options.card_effects``):
  ``twos_stack``, ``twos_winding``, ``queen_of_spades_draw``, ``skip_next_seat``, ``reverse_direction``;
* the starter policies (``starter_eight``), one named step each: ``starter_dealer_declares``,
  ``starter_reshuffled``, ``starter_buried``, ``starter_own_suit``;
* the reshuffle of the discard pile (``refill_stock``) and the end of the deal (``finish``, scored by
  ``scoring.deal_points``).
"""

from __future__ import annotations

from .actions import CODES, PASS
from .cards import EIGHT, SUITS, rank_of
from .hands import CARD_BITS
from .rng import SplitMix64, shuffler
from .scoring import DealResult, deal_points

_MAX_STARTER_TURNS = 10_000  # bound on turning a starter eight again (``starter_reshuffled``); never reached in play


# ---- the plies --------------------------------------------------------------------------------------------------
def play(deal, seat: int, a: int) -> None:
    """Play id ``a``: the card goes on the pile; going out ends the deal (or, under ``partnership``, the seat's
    part in it); a forgotten last-card announcement costs ``last_card_penalty`` cards (C D); an action card's
    effect applies; the turn moves on."""
    if a < 52:
        card, declared = a, None
    else:
        card, declared = ((a - 52) // 4) * 13 + EIGHT, (a - 52) % 4
    bit = CARD_BITS[card]
    if deal.dups[seat] & bit:
        deal.dups[seat] ^= bit
    else:
        deal.masks[seat] ^= bit
    deal.sizes[seat] -= 1
    deal.discard.append(card)
    deal.declared_suit = declared
    deal.passes_in_row = 0
    if declared is None:
        deal._log.append((seat, "play", CODES[card]))
    else:
        deal._log.append((seat, "play", CODES[card], SUITS[declared]))
    deal.ply += 1
    o = deal._o
    size = deal.sizes[seat]
    if size == 0:
        deal.out[seat] = True
        if deal_ends_with(deal, seat):
            if o.effects_on_going_out and card in o.card_effects:
                o.card_effects[card](deal, card)
                if deal.pending_draw:  # the next seat takes the penalty before the deal is scored
                    advance(deal, deal._step)
                    victim = deal.to_play
                    count = draw_cards(deal, victim, deal.pending_draw)
                    deal._log.append((victim, "penalty", count))
                    deal.pending_draw = 0
            finish(deal, "out", seat)  # going out on an action card: the effect is void (E) by default
            return
    elif size == 1 and o.last_card and not deal.announced:
        count = draw_cards(deal, seat, o.last_card)  # forgot to announce the last card (C D)
        deal._log.append((seat, "penalty", count))
    if card in o.card_effects:
        o.card_effects[card](deal, card)
        advance(deal, deal._step)
        return
    deal.twos_run = 0
    if o.simple_turns:
        deal.to_play = (seat + deal.direction) % deal.seats
        deal.drawn_this_turn = 0
        deal.last_drawn = None
        deal.announced = False
    else:
        advance(deal, 1)


def draw(deal, seat: int) -> None:
    """Draw: a seat facing a penalty takes it all (the rest lapses if the stock runs dry) and misses its turn;
    otherwise one card, from a refilled stock if need be. When the seat can then neither play nor draw its turn
    ends by itself (D: "otherwise the turn ends"), unless the ruleset wants the pass as a ply of its own
    (``explicit_pass``, B)."""
    if deal.pending_draw:
        count = draw_cards(deal, seat, deal.pending_draw)
        deal.pending_draw = 0
        deal.pending_from_twos = False
        deal.passes_in_row = 0
        record(deal, (seat, "draw", count, True))
        advance(deal, 1)  # the victim misses the turn
        return
    stock = deal.stock
    if not stock:
        refill_stock(deal, seat)
        stock = deal.stock
    card = stock.pop()
    bit = CARD_BITS[card]  # add_card, inlined: this is the hot path of every draw
    if deal.masks[seat] & bit:
        deal.dups[seat] |= bit
    else:
        deal.masks[seat] |= bit
    deal.sizes[seat] += 1
    deal.last_drawn = card
    deal.drawn_this_turn += 1
    deal.passes_in_row = 0
    deal.twos_run = 0
    deal._log.append((seat, "draw"))
    deal.ply += 1
    deal._legal = None
    if deal._o.turn_ends_when_stuck and deal.legal_ids() == [PASS]:
        deal._legal = None
        advance(deal, 1)


def pass_turn(deal, seat: int) -> None:
    """Pass; when every seat in play has passed in turn without drawing, the deal is blocked (D)."""
    if not deal.drawn_this_turn:
        deal.passes_in_row += 1
    deal.twos_run = 0
    record(deal, (seat, "pass"))
    if deal.passes_in_row >= active_seats(deal):
        finish(deal, "blocked", None)  # every seat passed in turn (D)
    else:
        advance(deal, 1)


def declare(deal, seat: int, suit: int) -> None:
    """The dealer names the suit of a starter eight (D); the leader then plays first."""
    deal.awaiting_declaration = False
    deal.declared_suit = suit
    deal.to_play = deal.leader
    record(deal, (seat, "declare", SUITS[suit]))


def announce(deal, seat: int) -> None:
    """The seat announces its last card (C D, ``last_card_penalty``); it plays on."""
    deal.announced = True
    record(deal, (seat, "announce"))


def record(deal, entry: tuple) -> None:
    deal._log.append(entry)
    deal.ply += 1


def finish(deal, outcome: str, winner: int | None) -> None:
    """End the deal: hand values in the ruleset's card values, points by ``scoring.deal_points``."""
    values = [deal.hand_value(s) for s in range(deal.seats)]
    points = deal_points(deal.ruleset, outcome, winner, values)
    deal.result = DealResult(outcome=outcome, winner=winner, hand_values=values, points=points, plies=deal.ply)
    deal.drawn_this_turn = 0
    deal.last_drawn = None
    deal.pending_draw = 0
    deal._legal = []


# ---- turn order ------------------------------------------------------------------------------------------------
def advance(deal, steps: int = 1) -> None:
    """Pass the turn ``steps`` (1 or 2) seats on in the current direction, counting only seats in play: every
    step lands on a seat that is not out, so the seat to play never has an empty hand (partnership)."""
    seat = deal.to_play
    n = deal.seats
    for _ in range(steps):
        seat = (seat + deal.direction) % n
        while deal.out[seat]:
            seat = (seat + deal.direction) % n
    deal.to_play = seat
    deal.drawn_this_turn = 0
    deal.last_drawn = None
    deal.announced = False


def active_seats(deal) -> int:
    """Seats still in play (all of them, except partners already out under ``partnership``)."""
    return deal.seats - sum(deal.out)


def deal_ends_with(deal, seat: int) -> bool:
    """Whether ``seat`` going out ends the deal: always, except under ``partnership`` while its partner is in
    (a side is out when both partners are, A C)."""
    if not deal._o.partnership:
        return True
    return deal.out[(seat + 2) % 4]


# ---- action cards (D E A2 A3): each sets the pending penalty, the step for ``advance`` and the direction ----------
# Seats are counted in play (partnership, A C: the deal goes on until both partners of a side are out, and a seat
# that is out never acts again). With ``skip_rank="Q"`` and the queen of spades draw, the Q♠ is the draw-five card
# only (``options.Options.card_effects`` maps it to ``queen_of_spades_draw``): its victim draws five and misses that
# one turn (the skip is not added on top, so the seat after the victim plays next), while the other queens skip.
def twos_stack(deal, card: int) -> None:
    """Twos ``stack`` (D E): the next seat answers with a two or draws the whole sum (an eight is no answer)."""
    deal._step = 1
    deal.pending_draw += 2
    deal.pending_from_twos = True


def twos_winding(deal, card: int) -> None:
    """Twos ``winding`` (A2): the next seat draws 2, 4, 6 or 8 (by the unbroken run of twos), missing its turn."""
    deal._step = 1
    deal.twos_run = min(deal.twos_run + 1, 4)
    deal.pending_draw = 2 * deal.twos_run
    deal.pending_from_twos = True


def queen_of_spades_draw(deal, card: int) -> None:
    """Queen of spades (A3 E): the next seat draws five and misses its turn; it cannot be answered."""
    deal._step = 1
    deal.twos_run = 0
    deal.pending_draw = deal._o.queen_draw
    deal.pending_from_twos = False


def skip_next_seat(deal, card: int) -> None:
    """Skip rank (E D): the next seat in play is skipped (two seats in play: the player goes again)."""
    deal._step = 2
    deal.twos_run = 0


def reverse_direction(deal, card: int) -> None:
    """Reverse (D E): the direction flips. With two seats in play, ``reverse_two_seats="skip"`` makes it a skip (a
    step of two seats in play: the player again, or, when the player has just gone out on it with its partner still
    in, past the next seat in play, so the turn never comes back to an empty hand) and ``noop`` does
    nothing. The count of seats in play excludes the player going out."""
    deal._step = 1
    deal.twos_run = 0
    if active_seats(deal) == 2:
        if deal._o.reverse_skips:
            deal._step = 2
    else:
        deal.direction = -deal.direction


# ---- the stock ---------------------------------------------------------------------------------------------------
def refill_stock(deal, seat: int) -> None:
    """Empty stock: the top card stays, every card under it is shuffled into a new stock (B C D); the declared
    suit does not change. The k-th reshuffle of a deal is keyed by (seed or key, k). The public history records it as
    an event of its own, not a ply: ``(seat, "reshuffle", count)``, ``seat`` the one whose draw found the stock
    empty, ``count`` the cards that went back (seeing them go back is a player's only proof)."""
    deal.reshuffles += 1
    deal._log.append((seat, "reshuffle", len(deal.discard) - 1))
    top = deal.discard.pop()
    deal.stock = deal.discard
    deal.discard = [top]
    shuffler(deal.seed, deal.reshuffles).shuffle(deal.stock)


def draw_cards(deal, seat: int, count: int) -> int:
    """Move up to ``count`` cards from the stock (refilled as needed) to the seat's hand; returns how many."""
    drawn = 0
    while drawn < count:
        if not deal.stock:
            if not (deal._o.reshuffle and len(deal.discard) > 1):
                break
            refill_stock(deal, seat)
        card = deal.stock.pop()
        add_card(deal, seat, card)
        deal.last_drawn = card
        drawn += 1
    return drawn


def add_card(deal, seat: int, card: int) -> None:
    bit = CARD_BITS[card]
    if deal.masks[seat] & bit:
        deal.dups[seat] |= bit
    else:
        deal.masks[seat] |= bit
    deal.sizes[seat] += 1


# ---- the starter (``starter_eight``), after the deal ---------------------------------------------------------------
# When turning again can never bring up anything but an eight, the first eight turned stays as the starter and stands
# for its own suit, as under B: nobody declares, the seat left of the dealer (or ``leader``) plays first, and the
# stock keeps its dealt order. That happens under A when the stock holds only eights (a reshuffle only reorders them;
# e.g. ``eights-classic`` with ``hand_size=17`` and 3 seats leaves one card), and under C when the top half of the
# stock (from index ``(len - 1) // 2`` up, where a buried eight goes back) holds only eights, since burying then only
# rotates that half. RULES.md reads A's rule as "turn the next card onto it" and says the suit to follow is the top
# card's suit unless an eight was *played* (a starter eight declares nothing), so once there is no other card to turn
# the eight on top stands for its own suit. Both tests are exact: every deal that found a non-eight before is dealt
# exactly as before (same cards, same random draws). As a bound on the random reshuffles of A, after
# ``_MAX_STARTER_TURNS`` turns the eight on top stands the same way; with a non-eight among at most nine stock cards
# (eight eights at most, double deck) the chance of getting there is below (8/9)**10000, so it never happens in
# practice and changes no deal.
def starter_dealer_declares(deal, rng: SplitMix64) -> None:
    """D: the card turned is the starter; an eight makes the dealer declare its suit before the leader plays."""
    card = deal.stock.pop()
    deal.discard.append(card)
    if rank_of(card) == EIGHT:
        deal.awaiting_declaration = True
        deal.to_play = deal.dealer


def starter_own_suit(deal, rng: SplitMix64) -> None:
    """B: the card turned is the starter; an eight stands for its own suit."""
    deal.discard.append(deal.stock.pop())


def starter_reshuffled(deal, rng: SplitMix64) -> None:
    """A: an eight goes back into the stock, which is shuffled (by the deal's rng), and the next card is turned."""
    _turn_until_not_an_eight(deal, 0, lambda stock, card: (stock.append(card), rng.shuffle(stock)))


def starter_buried(deal, rng: SplitMix64) -> None:
    """C: an eight is buried in the middle of the stock and the next card is turned."""
    stock = deal.stock
    _turn_until_not_an_eight(deal, (len(stock) - 1) // 2, lambda stock, card: stock.insert(len(stock) // 2, card))


def _turn_until_not_an_eight(deal, start: int, put_back) -> None:
    """Turn cards until one is not an eight, putting each eight back with ``put_back(stock, card)``; when
    ``stock[start:]`` holds only eights (or after ``_MAX_STARTER_TURNS``), the eight on top stands (see above)."""
    stock = deal.stock
    for i in range(start, len(stock)):
        if rank_of(stock[i]) != EIGHT:
            break
    else:  # only eights could ever come up: the first one stays
        deal.discard.append(stock.pop())
        return
    for _ in range(_MAX_STARTER_TURNS):
        card = stock.pop()
        if rank_of(card) != EIGHT:
            deal.discard.append(card)
            return
        put_back(stock, card)
    deal.discard.append(stock.pop())
