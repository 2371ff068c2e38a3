"""The fast path for simulations: one deal's state and random playouts, compiled when it can be.

``fast_deal(deal)`` copies a ``Deal`` into a ``FastDeal``; ``start(ruleset, seats, seed)`` deals one as
``Deal.start`` does (``Dealer`` for many deals of one ruleset). Both give the same object with the same answers
whichever implementation is behind it:

* the compiled one, ``eights_engine._fastplay`` (C, ``_fastplay.c``), built by ``pip install`` where a C compiler
  is found (Debian's gcc); the rules of ``legality.py`` and ``effects.py`` written again over a C struct, and a
  whole playout run without coming back to Python;
* the pure one (``PureFastDeal``), a ``Deal`` underneath, where the extension is not built (``COMPILED`` is
  False) or when asked for (``pure=True``).

The pure Python engine is the reference: ``engine/tests/test_fast.py`` plays every golden playthrough and random
matches of every preset through the compiled path and the engine side by side and compares the whole state
(``FastState``) after every ply; a playout or a determinization from the same seed is the same in both.

API of a ``FastDeal`` (RULES.md, as the engine plays it; action ids as ``actions.py``): ``legal_ids()`` (list,
canonical order), ``apply_id(id)`` (``ValueError`` when not legal now), ``is_over``, ``to_play``, ``ply``,
``seats``, ``result()`` (``None`` while the deal runs, then ``(outcome, winner, hand_values, points)``: points as
``scoring.deal_points`` gives them), ``playout(seed, policy=UNIFORM)`` (legal actions until the deal ends, each
chosen by ``SplitMix64(seed).below(n)`` among all of them, or under ``EAGER`` among the plays when there are any,
an announcement first, or under ``HEURISTIC`` as the house heuristic would (``heuristic_id``), or under
``TACTICAL`` as the tactician would with the whole deal in view (``tactical_id``); returns the plies played), ``determinize(seat, seed)`` (a new deal in which
the cards ``seat`` cannot see, the other hands and the stock, are dealt again at random, each hand keeping its
size: the start of a determinized rollout, as information-set Monte Carlo searches use), ``clone()`` and
``state()`` (a ``FastState``).

A reshuffle of the discard pile is the engine's own (``rng.shuffler(seed, k)``), so play through either path is
the engine's; a determinized deal reshuffles from a fresh int seed drawn from its seed's stream.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from .actions import ANNOUNCE, DRAW
from .cards import deck_cards
from .deal import Deal, check_ruleset_seats
from .hands import hand_cards, hand_masks
from .options import options_for
from .policies import heuristic_id, tactical_id  # noqa: F401 (fast.heuristic_id: callers import it from here)
from .rng import SplitMix64, shuffler
from .rules import Ruleset
from .scoring import deal_points

try:  # built by pip where a C compiler is found (engine/setup.py); the pure path stands in otherwise
    from . import _fastplay
except ImportError:  # pragma: no cover - only where no compiler was found
    _fastplay = None

#: whether the compiled fast path is built here
COMPILED = _fastplay is not None

#: playout policies: every legal action alike; eager (announce a last card, else any play, else any action); heuristic
#: (the house heuristic's choices at the ruleset's card values: ``heuristic_id``)
UNIFORM, EAGER, HEURISTIC, TACTICAL = 0, 1, 2, 3

_AFTER_DRAW = {"any": 0, "drawn_only": 1, "none": 2}
_EFFECTS = {"twos_stack": 1, "twos_winding": 2, "queen_of_spades_draw": 3, "skip_next_seat": 4,
            "reverse_direction": 5}
_STARTERS = {"dealer_declares": 0, "reshuffle": 1, "bury": 2, "own_suit": 3}


class FastState(NamedTuple):
    """A deal's whole state as both paths keep it, for comparisons: hands (``masks``, ``dups``: hands.py), ``sizes``,
    ``out``, ``stock`` and ``discard`` (card ints, top last), the turn's counters, and once over the ``outcome``
    (0 out, 1 blocked), ``winner`` (-1: none) and ``hand_values`` (-1 and None while the deal runs)."""

    masks: list
    dups: list
    sizes: list
    out: list
    stock: list
    discard: list
    to_play: int
    declared: int
    drawn: int
    last_drawn: int
    pending: int
    pending_from_twos: int
    twos_run: int
    direction: int
    awaiting: int
    announced: int
    passes: int
    reshuffles: int
    ply: int
    over: int
    outcome: int
    winner: int
    hand_values: list | None


def state_of(deal: Deal) -> FastState:
    """The ``FastState`` of a pure ``Deal``."""
    r = deal.result
    return FastState(
        list(deal.masks), list(deal.dups), list(deal.sizes), [bool(x) for x in deal.out], list(deal.stock),
        list(deal.discard), deal.to_play, -1 if deal.declared_suit is None else deal.declared_suit,
        deal.drawn_this_turn, -1 if deal.last_drawn is None else deal.last_drawn, deal.pending_draw,
        int(bool(deal.pending_from_twos)), deal.twos_run, deal.direction, int(bool(deal.awaiting_declaration)),
        int(bool(deal.announced)), deal.passes_in_row, deal.reshuffles, deal.ply, int(r is not None),
        -1 if r is None else (0 if r.outcome == "out" else 1), -1 if r is None or r.winner is None else r.winner,
        None if r is None else list(r.hand_values))


@lru_cache(maxsize=64)
def _options(ruleset: Ruleset) -> tuple[tuple, tuple, tuple]:
    """The compiled path's options of ``ruleset`` (cached: a ruleset is frozen): 20 flags and numbers, 52 effect
    codes, 52 card values."""
    o = options_for(ruleset)
    flags = (
        int(o.declares), int(o.eights_match_suit), int(o.go_out_on_eight), _AFTER_DRAW[ruleset.play_after_draw],
        o.cards_a_turn, int(o.holding_a_play_first is not None), int(o.holding_a_play_later is not None),
        int(o.stock_out_ends_turn), int(o.may_keep_drawn_card), int(o.reshuffle), int(o.turn_ends_when_stuck),
        int(o.twos_stack), o.queen_draw, int(o.effects_on_going_out), int(o.reverse_skips), o.last_card,
        int(o.partnership), int(o.simple_turns), o.ply_limit, _STARTERS[ruleset.starter_eight])
    effects = tuple(_EFFECTS[o.card_effects[c].__name__] if c in o.card_effects else 0 for c in range(52))
    return flags, effects, tuple(o.values)


@lru_cache(maxsize=64)
def _dealer_of(ruleset: Ruleset, seats: int):
    """A compiled deal of ``ruleset`` at ``seats`` (its options and fresh deck, code order, parsed once): ``redeal``
    deals every other one from it. ``ValueError`` when the hands and a starter do not fit the deck."""
    flags, effects, values = _options(ruleset)
    per_hand = ruleset.cards_per_hand(seats)
    return _fastplay.FastDeal.start(flags, effects, values, deck_cards(ruleset.ranks, ruleset.deck_count(seats)),
                                    seats, -1 if per_hand is None else per_hand, 0, 0, -1)


def _reshuffler(seed):
    """The engine's reshuffle k of a deal dealt from ``seed`` (a key: the compiled path calls this for it)."""
    def reshuffle(k: int, cards: list) -> list:
        shuffler(seed, k).shuffle(cards)
        return cards
    return reshuffle


class CompiledFastDeal:
    """A ``FastDeal`` on the compiled path (module docstring)."""

    __slots__ = ("_c", "ruleset")

    def __init__(self, c, ruleset: Ruleset) -> None:
        self._c, self.ruleset = c, ruleset

    def legal_ids(self) -> list[int]:
        return self._c.legal_ids()

    def apply_id(self, action_id: int) -> None:
        self._c.apply_id(action_id)

    @property
    def is_over(self) -> bool:
        return self._c.is_over

    @property
    def to_play(self) -> int:
        return self._c.to_play

    @property
    def ply(self) -> int:
        return self._c.ply

    @property
    def seats(self) -> int:
        return self._c.seats

    def state(self) -> FastState:
        return FastState(*self._c.state())

    def result(self) -> tuple | None:
        return _result(self.ruleset, self.state())

    def playout(self, seed: int, policy: int = UNIFORM) -> int:
        return self._c.playout(seed, policy)

    def determinize(self, seat: int, seed: int) -> "CompiledFastDeal":
        return CompiledFastDeal(self._c.determinize(seat, seed), self.ruleset)

    def clone(self) -> "CompiledFastDeal":
        return CompiledFastDeal(self._c.clone(), self.ruleset)


class PureFastDeal:
    """A ``FastDeal`` on the pure path: a ``Deal`` underneath (module docstring)."""

    __slots__ = ("deal", "ruleset")

    def __init__(self, deal: Deal) -> None:
        self.deal, self.ruleset = deal, deal.ruleset

    def legal_ids(self) -> list[int]:
        return list(self.deal.legal_ids())

    def apply_id(self, action_id: int) -> None:
        if action_id not in self.deal.legal_ids():
            raise ValueError(f"action id {action_id} is not legal now")
        self.deal.apply_id(action_id)

    @property
    def is_over(self) -> bool:
        return self.deal.is_over

    @property
    def to_play(self) -> int:
        return self.deal.to_play

    @property
    def ply(self) -> int:
        return self.deal.ply

    @property
    def seats(self) -> int:
        return self.deal.seats

    def state(self) -> FastState:
        return state_of(self.deal)

    def result(self) -> tuple | None:
        return _result(self.ruleset, self.state())

    def playout(self, seed: int, policy: int = UNIFORM) -> int:
        if policy not in (UNIFORM, EAGER, HEURISTIC, TACTICAL):
            raise ValueError("policy is 0 (uniform), 1 (eager), 2 (heuristic) or 3 (tactical)")
        rng, deal, plies = SplitMix64(seed), self.deal, 0
        while deal.result is None:
            legal = deal.legal_ids()
            if policy != UNIFORM and legal[-1] == ANNOUNCE:
                action = ANNOUNCE
            elif policy == HEURISTIC:
                action = heuristic_id(deal, legal)
            elif policy == TACTICAL:
                action = tactical_id(deal, legal)
            else:
                plays = sum(1 for a in legal if a < DRAW) if policy == EAGER else 0
                action = legal[rng.below(plays)] if plays else legal[rng.below(len(legal))]
            deal.apply_id(action)
            plies += 1
        return plies

    def determinize(self, seat: int, seed: int) -> "PureFastDeal":
        deal = self.deal
        if not 0 <= seat < deal.seats:
            raise ValueError(f"seat must be from 0 to {deal.seats - 1}")
        if seat != deal.to_play and deal.drawn_this_turn:
            raise ValueError("another seat has drawn this turn: determinize for the seat to play")
        rng = SplitMix64(seed)
        hidden = [c for s in range(deal.seats) if s != seat
                  for c in hand_cards(deal.masks[s], deal.dups[s])] + list(deal.stock)
        rng.shuffle(hidden)
        twin = deal.clone()
        k = 0
        for s in range(deal.seats):
            if s != seat:
                twin.masks[s], twin.dups[s] = hand_masks(hidden[k:k + deal.sizes[s]])
                k += deal.sizes[s]
        twin.stock = hidden[k:]
        twin.seed = rng.next()
        twin._legal = None
        return PureFastDeal(twin)

    def clone(self) -> "PureFastDeal":
        return PureFastDeal(self.deal.clone())


FastDeal = CompiledFastDeal | PureFastDeal


def _result(ruleset: Ruleset, s: FastState) -> tuple | None:
    if not s.over:
        return None
    outcome, winner = ("out", "blocked")[s.outcome], None if s.winner < 0 else s.winner
    return outcome, winner, s.hand_values, deal_points(ruleset, outcome, winner, s.hand_values)


def fast_deal(deal: Deal, *, pure: bool = False) -> FastDeal:
    """A ``FastDeal`` holding a copy of ``deal``'s state (the deal itself is not changed); ``pure`` or no compiled
    path: ``PureFastDeal``."""
    if pure or _fastplay is None or deal.result is not None:  # a finished deal has nothing left to play
        return PureFastDeal(deal.clone())
    flags, effects, values = _options(deal.ruleset)
    seed = deal.seed if deal.seed is not None else 0
    c = _fastplay.FastDeal.from_state(
        flags, effects, values, seed, _reshuffler(seed), deal.seats, deal.masks, deal.dups, deal.sizes,
        [int(x) for x in deal.out], deal.stock, deal.discard,
        (deal.to_play, -1 if deal.declared_suit is None else deal.declared_suit, deal.drawn_this_turn,
         -1 if deal.last_drawn is None else deal.last_drawn, deal.pending_draw, int(bool(deal.pending_from_twos)),
         deal.twos_run, deal.direction, int(bool(deal.awaiting_declaration)), int(bool(deal.announced)),
         deal.passes_in_row, deal.reshuffles, deal.ply, deal.leader, deal.dealer))
    return CompiledFastDeal(c, deal.ruleset)


class Dealer:
    """Deals ``FastDeal``s of one ruleset at one seat count, as ``Deal.start`` does, the options parsed once: the
    loop of a simulation (``Dealer(rules, 2).deal(seed).playout(seed)``). ``ValueError`` as ``Deal.start`` when the
    ruleset does not seat ``seats`` or its hands and starter do not fit the deck."""

    __slots__ = ("ruleset", "seats", "pure", "_proto")

    def __init__(self, ruleset: Ruleset, seats: int, *, pure: bool = False) -> None:
        check_ruleset_seats(ruleset, seats)
        self.ruleset, self.seats, self.pure = ruleset, seats, pure or _fastplay is None
        self._proto = None if self.pure else _dealer_of(ruleset, seats)

    def deal(self, seed: int | str | bytes, dealer: int = 0) -> FastDeal:
        """The deal of ``seed`` (an int, a deal code or a 32-byte key) with ``dealer`` dealing."""
        if self._proto is None or not isinstance(seed, int) or isinstance(seed, bool):
            return fast_deal(Deal.start(self.ruleset, self.seats, seed, dealer), pure=self.pure)
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"a deal seed is an integer from 0 to 2**64-1, not {seed!r}")
        if not (isinstance(dealer, int) and not isinstance(dealer, bool) and 0 <= dealer < self.seats):
            raise ValueError(f"dealer must be a seat from 0 to {self.seats - 1}, not {dealer!r}")
        return CompiledFastDeal(self._proto.redeal(seed, dealer, -1), self.ruleset)


def start(ruleset: Ruleset, seats: int, seed: int | str | bytes, dealer: int = 0, *, pure: bool = False) -> FastDeal:
    """Deal as ``Deal.start(ruleset, seats, seed, dealer)`` does, into a ``FastDeal`` (``Dealer`` for many deals):
    the compiled path deals an int seed itself; a key or a deal code is dealt by the engine and copied.
    ``ValueError`` as ``Deal.start``."""
    return Dealer(ruleset, seats, pure=pure).deal(seed, dealer)
