"""One deal of Crazy Eights: from dealing until a seat (or a partnership) goes out or the deal is blocked.

Invariants (checked by the property tests in ``engine/tests``):

* cards are never created or lost: hands + stock + discard pile always hold the whole deck;
* while the deal runs, ``legal_actions()`` is never empty, lists each action once in a canonical order
  (declarations C D H S; plays by card code order, an eight once per declared suit; then draw, pass, announce),
  and every listed action applies cleanly while every other one raises ``IllegalAction``;
* ``apply`` either changes the deal by exactly one ply or raises and leaves the deal untouched;
* randomness comes only from the deal seed: the deal shuffle and each reshuffle of the discard pile (``rng``);
* ``view(seat)`` shows that seat's hand and public facts only: never another hand or the stock order.

Action vocabulary (dicts, DESIGN.md): ``{"type": "play", "card": "8H", "suit": "S"}`` (``suit`` only with an
eight that declares; it may be left out when the eight is the seat's last card and its going out ends the deal,
since nobody follows that suit: the play is then taken as declaring the eight's own suit), ``{"type": "draw"}``
(one card; or, for a seat facing a draw penalty, the whole penalty, which ends its turn), ``{"type": "pass"}``,
``{"type": "declare", "suit": "S"}`` (the dealer under a starter eight, system D), ``{"type": "announce"}`` (last
card, with ``last_card_penalty``).

Beneath the dict API is an integer fast path for simulations (``legal_ids``, ``apply_id``, ``ACTIONS``):
an action id is the card (0..51, ``suit * 13 + rank``) for a play without declaration, ``52 + 4 * suit + declared``
for an eight with a declaration, then ``DRAW`` (68), ``PASS`` (69), ``DECLARE + suit`` (70..73), ``ANNOUNCE`` (74).

This module holds the state and its public API; the rules live in rooms named for what they do:

* ``actions.py``: the action ids, their dict forms, parsing a dict action, the history entries;
* ``hands.py``: hands as bitmasks (bit = card; a second mask holds second copies under a double deck);
* ``options.py``: the ruleset's options resolved once into named booleans and the rule steps chosen for it;
* ``legality.py``: what may be played, the draw rule, ``legal_ids`` by phase;
* ``effects.py``: play, draw, pass, the action cards, turn order, the reshuffle, the starter, the end of a deal;
* ``explain.py``: why an action is illegal, from legality's own steps;
* ``scoring.py``: ``DealResult`` and what a finished deal scores.
"""

from __future__ import annotations

from . import effects, explain, legality
from .actions import ACTIONS, ANNOUNCE, DECLARE, DRAW, PASS, entry_dict, parse_action
from .cards import SUITS, TWO, card_code, deck_cards, parse_card, parse_suit, rank_of
from .errors import IllegalAction
from .hands import bits, hand_cards, hand_masks
from .options import options_for
from .keys import key_code
from .rng import deal_code, seed_from_code, shuffler
from .rules import Ruleset
from .scoring import DealResult

__all__ = ["ACTIONS", "ANNOUNCE", "DECLARE", "DRAW", "ENGINE_VERSION", "PASS", "Deal", "DealResult",
           "check_ruleset_seats"]

ENGINE_VERSION = "2"  # of matches created now: deals keyed by 256-bit keys (keys.py); "1": 40-bit seeds (rng.py)
ENGINE_VERSIONS = ("1", "2")  # every version this engine replays


class Deal:
    """The state of one deal. Build with ``Deal.start`` or ``Deal.from_position``; change only with ``apply``
    (or ``apply_id``). Public attributes: ``ruleset``, ``seats``, ``dealer``, ``seed``, ``to_play``, ``stock``
    (card ints, top last), ``discard`` (top last), ``declared_suit`` (suit int or None), ``drawn_this_turn``,
    ``last_drawn``, ``pending_draw``, ``direction``, ``awaiting_declaration``, ``passes_in_row``, ``ply``,
    ``history``, ``result``; ``hands`` gives every hand as a sorted list of card ints."""

    __slots__ = (
        "ruleset", "seats", "dealer", "seed", "leader", "masks", "dups", "sizes", "stock", "discard", "to_play",
        "declared_suit", "drawn_this_turn", "last_drawn", "pending_draw", "pending_from_twos", "twos_run",
        "direction", "awaiting_declaration", "announced", "passes_in_row", "reshuffles", "ply", "_log",
        "result", "out", "_legal", "_why_no_draw", "_o", "_step",
    )

    # the rule steps, bound as methods (no extra call on the hot path): see legality.py, effects.py, explain.py
    legal_ids = legality.legal_ids
    _playable_mask = legality.playable_mask
    _play = effects.play
    _draw = effects.draw
    _pass = effects.pass_turn
    _explain = explain.explain

    def __init__(self, ruleset: Ruleset, seats: int, dealer: int, hands: list[list[int]], stock: list[int],
                 discard: list[int], to_play: int, seed: int | None = None, leader: int | None = None) -> None:
        self.ruleset = ruleset
        self.seats = seats
        self.dealer = dealer
        self.seed = seed
        self.leader = to_play if leader is None else leader
        self.masks = masks = [0] * seats
        self.dups = dups = [0] * seats
        self.sizes = [len(cards) for cards in hands]
        for seat, cards in enumerate(hands):
            masks[seat], dups[seat] = hand_masks(cards)
        self.stock = stock
        self.discard = discard
        self.to_play = to_play
        self.declared_suit: int | None = None
        self.drawn_this_turn = 0
        self.last_drawn: int | None = None
        self.pending_draw = 0
        self.pending_from_twos = False
        self.twos_run = 0
        self.direction = 1
        self.awaiting_declaration = False
        self.announced = False
        self.passes_in_row = 0
        self.reshuffles = 0
        self.ply = 0
        self._log: list[tuple] = []  # compact public history; ``history`` gives it as dicts
        self.result: DealResult | None = None
        self.out = [False] * seats
        self._legal: list[int] | None = None
        self._why_no_draw: str | None = None  # why DRAW is not legal now (legality.legal_ids), for explain.py
        self._o = options_for(ruleset)
        self._step = 1  # seats the turn moves on after an action card (effects.py)

    # ---- construction -------------------------------------------------------------------------------
    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: int | str | bytes, dealer: int = 0,
              leader: int | None = None) -> "Deal":
        """Shuffle by ``seed`` and deal: a 32-byte deal key (engine version 2: ``rng.KeyStream``, the key from
        ``keys.deal_key``), or an int seed or its ``deal_code`` (version 1: ``rng.SplitMix64``).

        Cards go one at a time from the top of the shuffled deck (the end of the shuffled list), starting left of
        ``dealer``; then the starter is turned and handled by ``ruleset.starter_eight`` (``effects.starter_*``).
        ``leader`` overrides who plays first (system B: the previous deal's winner); by default the seat left of the
        dealer. Raises
        ``ValueError`` for a seat count outside the ruleset's range, a bad seed or code, or a bad dealer.
        """
        check_ruleset_seats(ruleset, seats)
        if isinstance(seed, str):
            seed = seed_from_code(seed)
        if not isinstance(seed, bytes):  # a key is checked by its stream (rng.KeyStream)
            deal_code(seed)  # validates the seed
        if not (isinstance(dealer, int) and not isinstance(dealer, bool) and 0 <= dealer < seats):
            raise ValueError(f"dealer must be a seat from 0 to {seats - 1}, not {dealer!r}")
        if leader is not None and not (isinstance(leader, int) and not isinstance(leader, bool) and 0 <= leader < seats):
            raise ValueError(f"leader must be a seat from 0 to {seats - 1}, not {leader!r}")
        rng = shuffler(seed, 0)
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
        deal = cls(ruleset, seats, dealer, hands, deck, [], first, seed=seed, leader=first)
        if per_hand is not None:
            deal._o.starter(deal, rng)  # starter_eight: effects.starter_*
        return deal

    @classmethod
    def from_position(cls, ruleset: Ruleset, hands: list[list[str]], stock: list[str], discard: list[str],
                      to_play: int, declared_suit: str | None = None, drawn_this_turn: int = 0,
                      pending_draw: int = 0, direction: int = 1, dealer: int | None = None,
                      drawn_card: str | None = None, twos_run: int = 0, out: list[bool] | None = None) -> "Deal":
        """Any position, for tests and puzzles: card-code lists, ``stock`` top first, ``discard`` bottom first.

        ``pending_draw`` counts as stacked twos when ``twos`` is on and the top card is a two, else as a queen of
        spades penalty. Reshuffles in such a deal use seed 0. Raises ``ValueError`` (``IllegalAction`` for a bad
        card code).
        """
        seats = len(hands)
        check_ruleset_seats(ruleset, seats)
        if not (isinstance(to_play, int) and 0 <= to_play < seats):
            raise ValueError(f"to_play must be a seat from 0 to {seats - 1}")
        if direction not in (1, -1):
            raise ValueError("direction must be 1 (clockwise) or -1")
        deal = cls(ruleset, seats, (to_play - direction) % seats if dealer is None else dealer,
                   [[parse_card(c) for c in h] for h in hands], [parse_card(c) for c in reversed(stock)],
                   [parse_card(c) for c in discard], to_play, seed=0)
        deal.declared_suit = None if declared_suit is None else parse_suit(declared_suit)
        deal.drawn_this_turn = drawn_this_turn
        deal.last_drawn = None if drawn_card is None else parse_card(drawn_card)
        deal.pending_draw = pending_draw
        deal.pending_from_twos = bool(pending_draw and ruleset.twos != "off" and deal.discard
                                      and rank_of(deal.discard[-1]) == TWO)
        deal.twos_run = twos_run
        deal.direction = direction
        if out is not None:
            deal.out = list(out)
        return deal

    # ---- public reads -------------------------------------------------------------------------------
    @property
    def history(self) -> list[dict]:
        """The public plies of this deal, oldest first: ``{"seat", "type"}`` plus ``card`` and ``suit`` for a play,
        ``suit`` for a declaration, ``count`` and ``penalty`` for a penalty draw, and ``{"type": "penalty",
        "count"}`` entries (not plies) for cards taken for a forgotten last-card announcement or on going out, and
        ``{"seat", "type": "reshuffle", "count"}`` entries (not plies) when the stock ran out and ``count`` cards
        from under the discard pile's top card were shuffled into a new stock (``seat``: whose draw needed it),
        recorded before the draw that needed them."""
        return [entry_dict(e) for e in self._log]

    @property
    def history_length(self) -> int:
        """How many entries ``history`` holds now: read it before a ply, and ``history_since`` gives what it added."""
        return len(self._log)

    def history_since(self, start: int) -> list[dict]:
        """The public history entries after the first ``start`` (``history_length`` read before a ply): what that ply
        put on record, with the penalties and reshuffles that came with it."""
        return [entry_dict(e) for e in self._log[start:]]

    def public_view(self, *, history: bool = True) -> dict:
        """What every seat and a spectator may see, JSON-ready (DESIGN.md, hidden information): ``view(seat)`` without
        the seat's own facts (``seat``, ``hand``, ``draws_left``, ``drawn_card``, ``announced``); ``history=False``
        leaves the history out. Written out, not cut from ``view``, whose key order the bot protocol documents."""
        view = {
            "to_play": None if self.result else self.to_play,
            "dealer": self.dealer,
            "hand_counts": list(self.sizes),
            "top_card": self.top_card,
            "active_suit": self.active_suit,
            "declared": self.declared_suit is not None,
            "stock_count": len(self.stock),
            "discard_count": len(self.discard),
            "awaiting_declaration": self.awaiting_declaration,
            "pending_draw": self.pending_draw,
            "direction": self.direction,
            "out": list(self.out),
            "ply": self.ply,
            "result": self.result.to_dict() if self.result else None,
        }
        if history:
            view["history"] = self.history
        return view

    @property
    def hands(self) -> list[list[int]]:
        """Every hand as a sorted list of card ints (second copies of a double deck listed twice)."""
        return [hand_cards(m, d) for m, d in zip(self.masks, self.dups)]

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
        suit = legality.active_suit(self)
        return None if suit is None else SUITS[suit]

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def code(self) -> str | None:
        """The deal code (None for a position built by hand): a version 1 seed's ``deal_code`` (it deals the cards
        again), a version 2 key's ``keys.key_code`` (it names the deal; only the key deals it)."""
        if self.seed is None:
            return None
        return key_code(self.seed) if isinstance(self.seed, bytes) else deal_code(self.seed)

    def hand(self, seat: int) -> list[str]:
        """The seat's cards as codes, in code order. ``ValueError`` for a seat that is not 0..seats-1 (as
        ``view``)."""
        self._check_seat(seat)
        return [card_code(c) for c in hand_cards(self.masks[seat], self.dups[seat])]

    def _check_seat(self, seat: object) -> None:
        """``ValueError`` unless ``seat`` is a seat of this deal (an int from 0 to seats-1)."""
        if not (isinstance(seat, int) and 0 <= seat < self.seats):
            raise ValueError(f"seat must be from 0 to {self.seats - 1}")

    def hand_value(self, seat: int) -> int:
        """Points of the seat's hand in the ruleset's card values."""
        values = self._o.values
        return sum(values[c] for c in bits(self.masks[seat])) + sum(values[c] for c in bits(self.dups[seat]))

    def draws_left(self) -> int | None:
        """How many more cards the seat to play may draw this turn under the draw rule (None: no fixed limit)."""
        rules = self.ruleset
        if rules.draw == "one":
            return max(0, 1 - self.drawn_this_turn)
        if rules.draw == "up_to":
            return max(0, rules.draw_limit - self.drawn_this_turn)
        return None

    def view(self, seat: int) -> dict:
        """What ``seat`` may see, JSON-ready: the same dict a bot receives (DESIGN.md, hidden information).
        ``ValueError`` for a seat that is not 0..seats-1."""
        self._check_seat(seat)
        mine = seat == self.to_play and self.result is None
        return {
            "seat": seat,
            "to_play": None if self.result else self.to_play,
            "dealer": self.dealer,
            "hand": self.hand(seat),
            "hand_counts": list(self.sizes),
            "top_card": self.top_card,
            "active_suit": self.active_suit,
            "declared": self.declared_suit is not None,
            "stock_count": len(self.stock),
            "discard_count": len(self.discard),
            "draws_left": self.draws_left() if mine else None,
            "drawn_card": card_code(self.last_drawn) if mine and self.last_drawn is not None else None,
            "awaiting_declaration": self.awaiting_declaration,
            "pending_draw": self.pending_draw,
            "direction": self.direction,
            "announced": self.announced if mine else False,
            "out": list(self.out),
            "ply": self.ply,
            "history": self.history,
            "result": self.result.to_dict() if self.result else None,
        }

    def legal_actions(self) -> list[dict]:
        """Every action the seat to play may take now, in canonical order; empty once the deal is over."""
        return [dict(ACTIONS[i]) for i in self.legal_ids()]

    def clone(self) -> "Deal":
        """An independent copy."""
        twin = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.masks, twin.dups, twin.sizes = list(self.masks), list(self.dups), list(self.sizes)
        twin.stock, twin.discard, twin.out = list(self.stock), list(self.discard), list(self.out)
        twin._log = list(self._log)
        twin._legal = None
        return twin


    # ---- apply --------------------------------------------------------------------------------------
    def apply(self, action: dict) -> None:
        """Apply one ply for the seat to play.

        Raises ``IllegalAction`` (leaving the deal untouched) for a malformed action or one the rules do
        not allow now; its message says what would be legal.
        """
        self.apply_id(self.action_id(action))

    def action_id(self, action: dict) -> int:
        """The fast path's id of a dict action that is legal now; ``IllegalAction`` (saying why) otherwise."""
        if self.result is not None:
            raise IllegalAction("the deal is over: no more actions")
        action_id = None
        if type(action) is dict:  # canonical actions (as legal_actions gives them) skip the parser
            try:
                action_id = self._o.fast_ids.get((action.get("type"), action.get("card"), action.get("suit"), len(action)))
            except TypeError:  # an unhashable value: let the parser say what is wrong
                pass
        if action_id is None:
            seat = self.to_play
            action_id = parse_action(action, self._o.declares,
                                     self.sizes[seat] == 1 and effects.deal_ends_with(self, seat))
        if action_id not in self.legal_ids():
            raise IllegalAction(self._explain(action_id))
        return action_id

    def apply_id(self, action_id: int) -> None:
        """The fast path's ``apply``: ``action_id`` must be in ``legal_ids()``, else ``IllegalAction``."""
        legal = self._legal
        if legal is None:
            legal = self.legal_ids()
        if action_id not in legal:
            if self.result is not None:
                raise IllegalAction("the deal is over: no more actions")
            raise IllegalAction(self._explain(action_id) if isinstance(action_id, int) and 0 <= action_id < len(ACTIONS)
                                else f"{action_id!r} is not an action id")
        seat = self.to_play
        self._legal = None
        if action_id < DRAW:
            self._play(seat, action_id)
        elif action_id == DRAW:
            self._draw(seat)
        elif action_id == PASS:
            self._pass(seat)
        elif action_id < ANNOUNCE:
            effects.declare(self, seat, action_id - DECLARE)
        else:
            effects.announce(self, seat)
        if self.ply >= self._o.ply_limit and self.result is None:
            effects.finish(self, "blocked", None)  # service safeguard against endless draw-and-play loops


def check_ruleset_seats(ruleset: Ruleset, seats: int) -> None:
    """``ValueError`` unless ``ruleset`` is a valid ``Ruleset`` that seats ``seats`` players."""
    if not isinstance(ruleset, Ruleset):
        raise ValueError("ruleset must be a Ruleset (use Ruleset.preset or Ruleset.from_dict)")
    if not (isinstance(seats, int) and not isinstance(seats, bool) and ruleset.seats_min <= seats <= ruleset.seats_max):
        raise ValueError(f"this ruleset seats {ruleset.seats_min} to {ruleset.seats_max} players, not {seats!r}")
    if ruleset.partnership and seats != 4:
        raise ValueError("ruleset field 'partnership' needs exactly 4 seats (seats 0+2 against 1+3)")
    if ruleset.scoring == "hollywood" and seats != 2:
        raise ValueError("ruleset field 'scoring'='hollywood' is for 2 seats")

