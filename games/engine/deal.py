"""One deal of Crazy Eights: from dealing until a seat goes out or the deal is blocked.

Invariants (checked by the property tests in ``tests/engine``):

* cards are never created or lost: hands + stock + discard pile always hold the whole deck;
* while the deal runs, ``legal_actions()`` is never empty, lists each action once in a canonical order
  (declarations C D H S; plays by card code order, an eight once per declared suit; then draw; then pass),
  and every listed action applies cleanly while every other one raises ``IllegalAction``;
* ``apply`` either changes the deal by exactly one ply or raises and leaves the deal untouched;
* randomness comes only from the deal seed (``rng``): the deal shuffle and each reshuffle of the discard pile;
* ``view(seat)`` shows that seat's hand and public facts only: never another hand or the stock order.

The rule steps are small methods chosen by the ruleset's options (see ``rules.Ruleset``): the starter
policy (``_turn_starter``), what may be played (``_fits``, ``_plays``), whether a seat may draw
(``_can_draw``) or pass (``_can_pass``), the reshuffle (``_refill_stock``) and the scoring (``scoring``).
Action vocabulary: ``{"type": "play", "card": "8H", "suit": "S"}`` (``suit`` only with an eight that
declares), ``{"type": "draw"}`` (one card), ``{"type": "pass"}``, ``{"type": "declare", "suit": "S"}``
(the dealer under a starter eight, system D).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import (
    EIGHT, HOLLYWOOD_VALUES, RANK_NAMES, STANDARD_VALUES, SUIT_NAMES, SUITS, card_code, deck_cards,
    describe_card, parse_card, parse_suit, rank_of, suit_of,
)
from .errors import IllegalAction
from .rng import SplitMix64, deal_code, seed_from_code
from .rules import Ruleset
from .scoring import deal_points

ENGINE_VERSION = "1"

_ACTION_KEYS = {
    "play": ({"type", "card"}, {"suit"}),
    "draw": ({"type"}, set()),
    "pass": ({"type"}, set()),
    "declare": ({"type", "suit"}, set()),
    "announce": ({"type"}, set()),
}


@dataclass(frozen=True)
class DealResult:
    """How a deal ended.

    ``outcome`` is ``"out"`` (``winner`` emptied the hand) or ``"blocked"`` (nobody could play or draw, or the
    ruleset's ``ply_limit`` was reached; ``winner`` is None). ``hand_values`` lists each seat's remaining
    cards in the ruleset's card values (points); ``points`` what the deal adds to each seat's match total.
    """

    outcome: str
    winner: int | None
    hand_values: list[int]
    points: list[int]
    plies: int

    def to_dict(self) -> dict:
        return {"outcome": self.outcome, "winner": self.winner, "hand_values": list(self.hand_values),
                "points": list(self.points), "plies": self.plies}


@dataclass
class Deal:
    """The state of one deal. Build with ``Deal.start`` or ``Deal.from_position``; change only with ``apply``."""

    ruleset: Ruleset
    seats: int
    dealer: int
    hands: list[list[int]]
    stock: list[int]  # top card last
    discard: list[int]  # top card last
    to_play: int
    seed: int | None = None
    leader: int = 0
    declared_suit: int | None = None
    drawn_this_turn: int = 0
    last_drawn: int | None = None
    pending_draw: int = 0
    direction: int = 1
    awaiting_declaration: bool = False
    passes_in_row: int = 0
    reshuffles: int = 0
    ply: int = 0
    history: list[dict] = field(default_factory=list)
    result: DealResult | None = None

    # ---- construction -------------------------------------------------------------------------------
    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: int | str, dealer: int = 0, leader: int | None = None) -> "Deal":
        """Shuffle by ``seed`` (an int, or its ``deal_code``) and deal.

        Cards go one at a time from the top of the shuffled deck, starting left of ``dealer``; then the starter
        is turned, handled by ``ruleset.starter_eight``. ``leader`` overrides who plays first (system B: the
        previous deal's winner); by default the seat left of the dealer. Raises ``ValueError`` for a seat count
        outside the ruleset's range, a bad seed or code, or an option this engine version does not play.
        """
        _check_playable_ruleset(ruleset, seats)
        if isinstance(seed, str):
            seed = seed_from_code(seed)
        deal_code(seed)  # validates the seed
        if not (isinstance(dealer, int) and 0 <= dealer < seats):
            raise ValueError(f"dealer must be a seat from 0 to {seats - 1}, not {dealer!r}")
        rng = SplitMix64(seed, 0)
        deck = deck_cards(ruleset.ranks, ruleset.deck_count(seats))
        rng.shuffle(deck)
        per_hand = ruleset.cards_per_hand(seats)
        hands: list[list[int]] = [[] for _ in range(seats)]
        if per_hand is None:
            seat = (dealer + 1) % seats
            while deck:
                hands[seat].append(deck.pop())
                seat = (seat + 1) % seats
        else:
            if per_hand * seats + 1 > len(deck):
                raise ValueError(f"hand_size {per_hand} for {seats} seats needs {per_hand * seats + 1} cards; "
                                 f"the deck has {len(deck)}")
            for _ in range(per_hand):
                for i in range(1, seats + 1):
                    hands[(dealer + i) % seats].append(deck.pop())
        first = (dealer + 1) % seats if leader is None else leader
        deal = cls(ruleset=ruleset, seats=seats, dealer=dealer, hands=hands, stock=deck, discard=[],
                   to_play=first, seed=seed, leader=first)
        if per_hand is not None:
            deal._turn_starter(rng)
        return deal

    @classmethod
    def from_position(cls, ruleset: Ruleset, hands: list[list[str]], stock: list[str], discard: list[str],
                      to_play: int, declared_suit: str | None = None, drawn_this_turn: int = 0,
                      pending_draw: int = 0, direction: int = 1, dealer: int | None = None) -> "Deal":
        """Any position, for tests and puzzles: card-code lists, ``stock`` top first, ``discard`` bottom first.

        Reshuffles in such a deal use seed 0. Raises ``ValueError`` (``IllegalAction`` for a bad card code).
        """
        seats = len(hands)
        _check_playable_ruleset(ruleset, seats)
        if not (0 <= to_play < seats):
            raise ValueError(f"to_play must be a seat from 0 to {seats - 1}")
        deal = cls(
            ruleset=ruleset, seats=seats, dealer=(to_play - direction) % seats if dealer is None else dealer,
            hands=[[parse_card(c) for c in h] for h in hands], stock=[parse_card(c) for c in reversed(stock)],
            discard=[parse_card(c) for c in discard], to_play=to_play, seed=0, leader=to_play,
            declared_suit=None if declared_suit is None else parse_suit(declared_suit),
            drawn_this_turn=drawn_this_turn, pending_draw=pending_draw, direction=direction,
        )
        return deal

    def _turn_starter(self, rng: SplitMix64) -> None:
        """Turn the starter; an eight is handled by ``starter_eight`` (D: dealer declares, A: reshuffle and
        turn again, C: bury in the middle of the stock, B: it stands for its own suit)."""
        policy = self.ruleset.starter_eight
        while True:
            card = self.stock.pop()
            if rank_of(card) != EIGHT or policy == "own_suit":
                self.discard.append(card)
                return
            if policy == "dealer_declares":
                self.discard.append(card)
                self.awaiting_declaration = True
                self.to_play = self.dealer
                return
            if policy == "reshuffle":
                self.stock.append(card)
                rng.shuffle(self.stock)
            else:  # bury
                self.stock.insert(len(self.stock) // 2, card)

    # ---- public reads ------------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def top_card(self) -> str | None:
        """Code of the discard pile's top card (None before the first card when the whole deck is dealt)."""
        return card_code(self.discard[-1]) if self.discard else None

    @property
    def active_suit(self) -> str | None:
        """The suit to follow: the declared suit, else the top card's suit (None on an empty discard pile)."""
        suit = self._active_suit()
        return None if suit is None else SUITS[suit]

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def code(self) -> str | None:
        """The deal code (None for a position built by hand)."""
        return None if self.seed is None else deal_code(self.seed)

    def hand(self, seat: int) -> list[str]:
        """The seat's cards as codes, in code order."""
        return [card_code(c) for c in sorted(self.hands[seat])]

    def hand_value(self, seat: int) -> int:
        """Points of the seat's hand in the ruleset's card values."""
        values = HOLLYWOOD_VALUES if self.ruleset.card_values == "hollywood" else STANDARD_VALUES
        return sum(values[c] for c in self.hands[seat])

    def draws_left(self) -> int | None:
        """How many more cards the seat to play may draw this turn under the draw rule (None: no fixed limit)."""
        rules = self.ruleset
        if rules.draw == "one":
            return max(0, 1 - self.drawn_this_turn)
        if rules.draw == "up_to":
            return max(0, rules.draw_limit - self.drawn_this_turn)
        return None

    def view(self, seat: int) -> dict:
        """What ``seat`` may see, JSON-ready: the same dict a bot receives (DESIGN.md, hidden information)."""
        if not (isinstance(seat, int) and 0 <= seat < self.seats):
            raise ValueError(f"seat must be from 0 to {self.seats - 1}")
        return {
            "seat": seat,
            "to_play": None if self.is_over else self.to_play,
            "dealer": self.dealer,
            "hand": self.hand(seat),
            "hand_counts": [len(h) for h in self.hands],
            "top_card": self.top_card,
            "active_suit": self.active_suit,
            "declared": self.declared_suit is not None,
            "stock_count": len(self.stock),
            "discard_count": len(self.discard),
            "draws_left": self.draws_left() if seat == self.to_play and not self.is_over else None,
            "drawn_card": card_code(self.last_drawn) if seat == self.to_play and self.last_drawn is not None else None,
            "awaiting_declaration": self.awaiting_declaration,
            "pending_draw": self.pending_draw,
            "direction": self.direction,
            "ply": self.ply,
            "history": [dict(h) for h in self.history],
            "result": self.result.to_dict() if self.result else None,
        }

    def legal_actions(self) -> list[dict]:
        """Every action the seat to play may take now, in canonical order; empty once the deal is over."""
        if self.result is not None:
            return []
        if self.awaiting_declaration:
            return [{"type": "declare", "suit": s} for s in SUITS]
        actions: list[dict] = []
        declares = self.ruleset.eights != "no_declare"
        for card in self._plays():
            code = card_code(card)
            if rank_of(card) == EIGHT and declares:
                actions.extend({"type": "play", "card": code, "suit": s} for s in SUITS)
            else:
                actions.append({"type": "play", "card": code})
        if self._can_draw():
            actions.append({"type": "draw"})
        if self._can_pass():
            actions.append({"type": "pass"})
        return actions

    def clone(self) -> "Deal":
        """An independent copy (hands, piles and history copied)."""
        twin = Deal(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        twin.hands = [list(h) for h in self.hands]
        twin.stock = list(self.stock)
        twin.discard = list(self.discard)
        twin.history = [dict(h) for h in self.history]
        return twin

    # ---- rule steps --------------------------------------------------------------------------------
    def _active_suit(self) -> int | None:
        if self.declared_suit is not None:
            return self.declared_suit
        return suit_of(self.discard[-1]) if self.discard else None

    def _fits(self, card: int) -> bool:
        """Whether ``card`` may go on the discard pile now (common core; ``eights`` option of system C)."""
        if not self.discard:
            return True  # whole deck dealt: the first player leads any card (our reading, A4)
        top = self.discard[-1]
        if rank_of(card) == EIGHT:
            if self.ruleset.eights == "match_suit":
                return rank_of(top) == EIGHT or suit_of(card) == self._active_suit()
            return True
        return suit_of(card) == self._active_suit() or rank_of(card) == rank_of(top)

    def _may_go_out_with(self, card: int, hand: list[int]) -> bool:
        return self.ruleset.go_out_on_eight or len(hand) > 1 or rank_of(card) != EIGHT

    def _plays(self) -> list[int]:
        """Distinct playable cards of the seat to play, in code order (``play_after_draw`` after a draw)."""
        hand = self.hands[self.to_play]
        if self.drawn_this_turn:
            mode = self.ruleset.play_after_draw
            if mode == "none":
                return []
            if mode == "drawn_only":
                c = self.last_drawn
                return [c] if c is not None and self._fits(c) and self._may_go_out_with(c, hand) else []
        return sorted({c for c in hand if self._fits(c) and self._may_go_out_with(c, hand)})

    def _stock_available(self) -> bool:
        if self.stock:
            return True
        return self.ruleset.empty_stock == "reshuffle" and len(self.discard) > 1

    def _can_draw(self) -> bool:
        """Draw rule: D one card; A/C until a playable card comes; B up to ``draw_limit``. Forced play when
        ``voluntary_draw`` is false (C): a seat holding a playable card may not draw."""
        if self.result is not None or self.awaiting_declaration or not self._stock_available():
            return False
        rules = self.ruleset
        if self.drawn_this_turn:
            if rules.draw == "one":
                return False
            if rules.draw == "up_to" and self.drawn_this_turn >= rules.draw_limit:
                return False
            if rules.draw == "until_playable" or not rules.voluntary_draw:
                return not self._plays()
            return True
        return rules.voluntary_draw or not self._plays()

    def _can_pass(self) -> bool:
        """Pass: when nothing can be played or drawn; and under D (draw one) to keep a playable drawn card."""
        if self.drawn_this_turn and self.ruleset.draw == "one":
            return True
        return not self._plays() and not self._can_draw()

    def _refill_stock(self) -> None:
        """Empty stock: the top card stays, every card under it is shuffled into a new stock (B C D); the
        declared suit does not change. The k-th reshuffle of a deal is keyed by (seed, k)."""
        self.reshuffles += 1
        top = self.discard.pop()
        self.stock = self.discard
        self.discard = [top]
        SplitMix64(self.seed or 0, self.reshuffles).shuffle(self.stock)

    # ---- apply --------------------------------------------------------------------------------------
    def apply(self, action: dict) -> None:
        """Apply one ply for the seat to play.

        Raises ``IllegalAction`` (leaving the deal untouched) for a malformed action or one the rules do
        not allow now; its message says what would be legal.
        """
        if self.result is not None:
            raise IllegalAction("the deal is over: no more actions")
        kind = _check_shape(action)
        seat = self.to_play
        if self.awaiting_declaration:
            if kind != "declare":
                raise IllegalAction(f"seat {seat} (the dealer) must first declare a suit for the starter eight: "
                                    '{"type": "declare", "suit": "C|D|H|S"}')
            suit = parse_suit(action["suit"])
            self.awaiting_declaration = False
            self.declared_suit = suit
            self.to_play = self.leader
            self._record({"seat": seat, "type": "declare", "suit": SUITS[suit]})
            return
        if kind == "play":
            self._apply_play(seat, action)
        elif kind == "draw":
            self._apply_draw(seat)
        elif kind == "pass":
            self._apply_pass(seat)
        elif kind == "declare":
            raise IllegalAction("a suit is declared with the eight that is played: "
                                '{"type": "play", "card": "8H", "suit": "S"}')
        else:
            raise IllegalAction("this ruleset has no last-card announcement (last_card_penalty is 0)")
        if self.result is None and self.ply >= self.ruleset.ply_limit:
            self._finish("blocked", None)  # service safeguard against endless draw-and-play loops

    def _apply_play(self, seat: int, action: dict) -> None:
        card = parse_card(action["card"])
        hand = self.hands[seat]
        code = card_code(card)
        if card not in hand:
            raise IllegalAction(f"seat {seat} does not hold the {code}")
        declares = rank_of(card) == EIGHT and self.ruleset.eights != "no_declare"
        if declares and "suit" not in action:
            raise IllegalAction(f'playing the {code} needs a declared suit: add "suit": one of C, D, H, S')
        if not declares and "suit" in action:
            why = "eights declare no suit under this ruleset" if rank_of(card) == EIGHT else "only an eight declares a suit"
            raise IllegalAction(f'remove "suit": {why}')
        suit = parse_suit(action["suit"]) if declares else None
        if self.drawn_this_turn:
            mode = self.ruleset.play_after_draw
            if mode == "none":
                raise IllegalAction("after drawing the turn ends without a play under this ruleset")
            if mode == "drawn_only" and card != self.last_drawn:
                raise IllegalAction(f"after drawing only the drawn card ({card_code(self.last_drawn)}) may be played")
        if not self._fits(card):
            raise IllegalAction(f"the {code} does not fit: {self._needs()}")
        if not self._may_go_out_with(card, hand):
            raise IllegalAction("going out on an eight is not allowed under this ruleset")
        hand.remove(card)
        self.discard.append(card)
        self.declared_suit = suit
        self.passes_in_row = 0
        entry = {"seat": seat, "type": "play", "card": code}
        if suit is not None:
            entry["suit"] = SUITS[suit]
        self._record(entry)
        if not hand:
            self._finish("out", seat)
        else:
            self._next_turn()

    def _apply_draw(self, seat: int) -> None:
        if not self._can_draw():
            raise IllegalAction(self._why_no_draw())
        if not self.stock:
            self._refill_stock()
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.drawn_this_turn += 1
        self.last_drawn = card
        self.passes_in_row = 0
        self._record({"seat": seat, "type": "draw"})
        if self.result is None and not self._plays() and not self._can_draw():
            self._next_turn()  # nothing to do with the drawn card: the turn ends (D: "otherwise the turn ends")

    def _apply_pass(self, seat: int) -> None:
        if not self._can_pass():
            plays = self._plays()
            if plays:
                raise IllegalAction(f"you cannot pass while you can play (e.g. the {card_code(plays[0])})")
            raise IllegalAction("you cannot pass while you can still draw")
        if not self.drawn_this_turn:
            self.passes_in_row += 1
        self._record({"seat": seat, "type": "pass"})
        if self.result is not None:
            return
        if self.passes_in_row >= self.seats:
            self._finish("blocked", None)  # every seat passed in turn (D)
        else:
            self._next_turn()

    def _why_no_draw(self) -> str:
        if not self._stock_available():
            return "there is nothing to draw: the stock is empty and there is no card under the top card"
        if self.drawn_this_turn and self.ruleset.draw == "one":
            return "you have already drawn your card this turn: play the drawn card or pass"
        if self.ruleset.draw == "up_to" and self.drawn_this_turn >= self.ruleset.draw_limit:
            return f"you have drawn the limit of {self.ruleset.draw_limit} cards this turn: play or pass"
        return "you must play: you hold a playable card and drawing is only allowed without one"

    def _needs(self) -> str:
        """Words for what may be played now, e.g. 'needs a heart, a 6 or an eight; hearts were declared'."""
        top = self.discard[-1]
        suit = self._active_suit()
        wants = [f"a {SUIT_NAMES[suit][:-1]}"]
        if rank_of(top) != EIGHT:
            wants.append(f"a {RANK_NAMES[rank_of(top)]}")
        if self.ruleset.eights != "match_suit" or rank_of(top) == EIGHT:
            wants.append("an eight")
        text = "needs " + (", ".join(wants[:-1]) + " or " + wants[-1] if len(wants) > 1 else wants[0])
        if self.declared_suit is not None:
            text += f"; {SUIT_NAMES[suit]} were declared"
        return text + f" (top card {describe_card(top)})"

    def _record(self, entry: dict) -> None:
        self.history.append(entry)
        self.ply += 1

    def _next_turn(self) -> None:
        self.to_play = (self.to_play + self.direction) % self.seats
        self.drawn_this_turn = 0
        self.last_drawn = None

    def _finish(self, outcome: str, winner: int | None) -> None:
        values = [self.hand_value(s) for s in range(self.seats)]
        points = deal_points(self.ruleset, outcome, winner, values)
        self.result = DealResult(outcome=outcome, winner=winner, hand_values=values, points=points, plies=self.ply)
        self.drawn_this_turn = 0
        self.last_drawn = None


def _check_shape(action: object) -> str:
    """The action's type, after checking it is a dict with exactly the keys its type takes."""
    if not isinstance(action, dict):
        raise IllegalAction('an action is a JSON object such as {"type": "draw"}')
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _ACTION_KEYS:  # an unhashable type must not raise TypeError
        raise IllegalAction(f"unknown action type {kind!r}: use play, draw, pass, declare or announce")
    required, optional = _ACTION_KEYS[kind]
    missing = sorted(required - set(action), key=repr)
    if missing:
        raise IllegalAction(f"a {kind} action needs {missing[0]!r}")
    extra = sorted(set(action) - required - optional, key=repr)  # keys of mixed types must not raise TypeError
    if extra:
        raise IllegalAction(f"a {kind} action takes no {extra[0]!r}")
    return kind


def _check_playable_ruleset(ruleset: Ruleset, seats: int) -> None:
    if not isinstance(ruleset, Ruleset):
        raise ValueError("ruleset must be a Ruleset (use Ruleset.preset or Ruleset.from_dict)")
    ruleset.validate()
    if not (isinstance(seats, int) and ruleset.seats_min <= seats <= ruleset.seats_max):
        raise ValueError(f"this ruleset seats {ruleset.seats_min} to {ruleset.seats_max} players, not {seats!r}")
    missing = ruleset.unsupported()
    if missing:
        name = missing[0]
        raise ValueError(f"ruleset field {name!r}={getattr(ruleset, name)!r} is not played by engine version "
                         f"{ENGINE_VERSION} yet")
