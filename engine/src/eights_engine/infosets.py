"""A deal as one seat may imagine it: the cards it cannot see dealt at random, everything it can see kept.

``sample_deal(view, ruleset, seed)`` builds an engine ``Deal`` from a seat's view (``Deal.view``, ``MatchState.view``,
or the ``view`` of a bot's ``turn`` request, with the request's ``ruleset``) and nothing else: the seat's own hand,
the discard pile's known cards, the counts, the suit to follow, a pending penalty, the direction, the turn's draws
so far and what the public history says. The cards the seat has not seen (the other hands, the stock, and a
starter buried under the pile, which no view names) are dealt at random by ``SplitMix64(seed)``, each hand keeping
its count. This is the determinization of information-set searches: from the seat's information alone, one
possible deal; ``fast.fast_deal`` of it plays on in the compiled path.

What the view tells, and how (the tactician's reading, ``tactics.known_pile``): the deck from the card
count (36, 52 or 104 cards; the ruleset says which ranks); the pile's known cards are the last ``discard_count``
plays of the history (a reshuffle leaves the last play as the new pile's bottom card), and a pile longer than the
plays since holds the starter at its bottom, unseen by a seat that was not shown it; the seat's draws this turn are
the history's trailing draws by it; the run of twos (``twos="winding"``) and the passes in a row (for a blocked deal)
are counted from the history as the engine counts them. Under a starter eight the dealer must declare (system D):
the seat left of the dealer leads after it.

Raises ``ValueError`` when the view cannot come from a deal of ``ruleset`` (counts that do not add up to its deck, a
card the deck cannot hold twice, a seat out of range).
"""

from __future__ import annotations

from collections import Counter

from .cards import card_code, deck_cards, parse_card, rank_of
from .deal import Deal
from .rng import SplitMix64
from .rules import Ruleset
from .tactics import known_pile



def sample_deal(view: dict, ruleset: Ruleset, seed: int) -> Deal:
    """One deal consistent with everything ``view`` shows (module docstring), the unseen cards dealt by ``seed``
    (an int). Its ``seed`` (for later reshuffles) is drawn from the same stream."""
    seat, counts = view["seat"], list(view["hand_counts"])
    seats = len(counts)
    if not isinstance(seat, int) or not 0 <= seat < seats:
        raise ValueError(f"the view's seat {seat!r} is not one of its {seats} seats")
    hand = list(view["hand"])
    if len(hand) != counts[seat]:
        raise ValueError(f"the view's hand has {len(hand)} cards, its hand_counts say {counts[seat]}")
    history = view.get("history") or []
    pile_count = view["discard_count"]
    pile = known_pile({**view, "history": history})
    hidden_bottom = pile_count - len(pile)
    unseen = Counter(card_code(c) for c in deck_cards(ruleset.ranks, ruleset.deck_count(seats)))
    deck_size = sum(unseen.values())
    if view["stock_count"] + pile_count + sum(counts) != deck_size:
        raise ValueError(f"the view's counts ({view['stock_count']} in stock, {pile_count} on the pile, "
                         f"{sum(counts)} in hands) do not add up to this ruleset's deck of {deck_size}")
    for card in hand + pile:
        code = card_code(parse_card(card))
        if unseen[code] <= 0:
            raise ValueError(f"the view shows {code} more often than the deck holds it")
        unseen[code] -= 1
    pool = [parse_card(code) for code in sorted(unseen.elements())]
    rng = SplitMix64(seed)
    rng.shuffle(pool)
    bottom, at = [card_code(c) for c in pool[:hidden_bottom]], hidden_bottom
    hands: list[list[str]] = []
    for s in range(seats):
        if s == seat:
            hands.append(hand)
        else:
            hands.append([card_code(c) for c in pool[at:at + counts[s]]])
            at += counts[s]
    stock = [card_code(c) for c in pool[at:]]
    mine = view.get("to_play") == seat
    to_play = view["to_play"] if view.get("to_play") is not None else seat
    deal = Deal.from_position(
        ruleset, hands, stock, bottom + pile, to_play,
        declared_suit=view["active_suit"] if view.get("declared") else None,
        drawn_this_turn=_draws_this_turn(history, seat) if mine else 0, pending_draw=view.get("pending_draw", 0),
        direction=view.get("direction", 1), dealer=view.get("dealer"),
        drawn_card=view.get("drawn_card") if mine else None,
        twos_run=_twos_run(history) if ruleset.twos == "winding" else 0, out=list(view.get("out") or [False] * seats))
    deal.passes_in_row = _passes_in_row(history)
    deal.announced = bool(view.get("announced")) and mine
    deal.ply = view.get("ply", len(history))
    if view.get("awaiting_declaration"):
        deal.awaiting_declaration = True
        deal.leader = (deal.dealer + 1) % seats
    deal.seed = rng.next()
    return deal


def _draws_this_turn(history: list[dict], seat: int) -> int:
    """Cards ``seat`` drew in its current turn: the history's trailing draws by it (not a penalty), past reshuffle
    entries (which are not plies) and its announcement of a last card (which does not end the turn)."""
    drawn = 0
    for entry in reversed(history):
        if entry.get("type") in ("reshuffle", "announce"):
            continue
        if entry.get("seat") == seat and entry.get("type") == "draw" and not entry.get("penalty"):
            drawn += 1
            continue
        break
    return drawn


def _twos_run(history: list[dict]) -> int:
    """The unbroken run of twos (``twos="winding"``, effects.twos_winding): a two adds one (at most four); any other
    play, a pass or a draw that is not a penalty ends it."""
    run = 0
    for entry in history:
        kind = entry.get("type")
        if kind == "play":
            run = min(run + 1, 4) if rank_of(parse_card(entry["card"])) == 1 else 0
        elif kind == "pass" or (kind == "draw" and not entry.get("penalty")):
            run = 0
    return run


def _passes_in_row(history: list[dict]) -> int:
    """Passes in a row without a draw (effects.pass_turn): a play or a draw resets it; a pass counts unless its
    seat drew earlier in the same turn (a turn ends with a play, a pass, a penalty draw, or a new seat acting)."""
    passes, turn_seat, drew = 0, None, False
    for entry in history:
        kind = entry.get("type")
        if kind not in ("play", "draw", "pass"):
            continue
        if entry.get("seat") != turn_seat:
            turn_seat, drew = entry.get("seat"), False
        if kind == "pass":
            passes += not drew
            drew = False
        else:
            passes = 0
            drew = kind == "draw" and not entry.get("penalty")
    return passes
