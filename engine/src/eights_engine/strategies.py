"""House strategies: the built-in bots. Each sees only a seat's view (the same dict a bot receives).

A strategy is ``fn(view, legal_actions, rng) -> action`` where ``rng`` is a ``SplitMix64`` keyed by the
deal seed and ply, so a house seat makes the same choice when a match is replayed or resumed. Strengths,
weakest first (measured by ``python -m eights_engine simulate``): ``random``, ``eager``, ``greedy``, ``heuristic``,
``tactician``, then ``expert``, which searches and so also reads the match's ruleset (``SEARCH_STRATEGIES``).
In a match a house seat is asked like any other seat, with the referee's ``Turn`` (``choose_turn``); its
randomness (``strategy_rng``) is its own, given by whoever seats it, and is never part of the turn.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Callable

from .cards import EIGHT, STANDARD_VALUES, parse_card, rank_of, suit_of
from .keys import strategy_seed
from .rng import SplitMix64
from .search import expert_strategy
from .tactics import tactician_strategy

if TYPE_CHECKING:
    from .referee import Turn
    from .rules import Ruleset

Strategy = Callable[[dict, list, SplitMix64], dict]


def random_strategy(view: dict, legal: list[dict], rng: SplitMix64) -> dict:
    """Uniformly random legal action."""
    return legal[rng.below(len(legal))]


def eager_strategy(view: dict, legal: list[dict], rng: SplitMix64) -> dict:
    """Plays the first legal card (eights declare their own suit), draws only when it cannot play."""
    for action in legal:
        if action["type"] == "play":
            card = action["card"]
            if "suit" not in action or action["suit"] == card[1]:
                return action
    for kind in ("declare", "draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


def _suit_counts(hand: list[str]) -> Counter:
    return Counter(c[1] for c in hand if c[0] != "8")


def _best_suit(hand: list[str], exclude: str | None = None) -> str:
    counts = _suit_counts(hand)
    if exclude is not None and exclude in counts and len(counts) > 1:
        del counts[exclude]
    if not counts:
        return "S"
    return max("CDHS", key=lambda s: (counts[s], s))


def greedy_strategy(view: dict, legal: list[dict], rng: SplitMix64) -> dict:
    """Dumps the highest-value playable card; an eight names its longest suit. Draws only when stuck."""
    hand = view["hand"]
    plays = [a for a in legal if a["type"] == "play"]
    if plays:
        best = max(plays, key=lambda a: STANDARD_VALUES[parse_card(a["card"])])
        if "suit" in best:
            suit = _best_suit([c for c in hand if c != best["card"]])
            return {"type": "play", "card": best["card"], "suit": suit}
        return best
    return _fallback(legal, hand)


def heuristic_strategy(view: dict, legal: list[dict], rng: SplitMix64) -> dict:
    """A solid player: sheds high cards while keeping suits it can follow, prefers a rank switch into a suit it
    holds, keeps an eight while it has other plays unless an opponent is nearly out (an eight left in hand costs
    50 points), never draws while it can play, and declares its longest suit."""
    hand = view["hand"]
    plays = [a for a in legal if a["type"] == "play"]
    if not plays:
        return _fallback(legal, hand)
    counts = _suit_counts(hand)
    opponents_low = min((n for s, n in enumerate(view["hand_counts"]) if s != view["seat"]), default=99) <= 2
    plain = [a for a in plays if rank_of(parse_card(a["card"])) != EIGHT]
    eights = [a for a in plays if rank_of(parse_card(a["card"])) == EIGHT]
    if plain and not (opponents_low and eights):
        def score(a: dict) -> tuple:
            card = parse_card(a["card"])
            suit = "CDHS"[suit_of(card)]
            # value sheds points; the suit's remaining length keeps the next turn playable
            return (STANDARD_VALUES[card] + 3 * (counts[suit] - 1), a["card"])
        return max(plain, key=score)
    if "suit" not in eights[0]:
        return eights[0]  # eights="no_declare": the eight is played without a declaration
    eight = eights[0]["card"]
    rest = list(hand)
    rest.remove(eight)
    return {"type": "play", "card": eight, "suit": _best_suit(rest)}


def _fallback(legal: list[dict], hand: list[str]) -> dict:
    """No play wanted: declare the longest suit, else draw, else pass."""
    for action in legal:
        if action["type"] == "declare":
            return {"type": "declare", "suit": _best_suit(hand)}
    for kind in ("draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


def _announcing(strategy: Strategy) -> Strategy:
    """Wrap a strategy so it announces its last card whenever that is legal (C D's last-card rule)."""
    def wrapped(view: dict, legal: list[dict], rng: SplitMix64) -> dict:
        for action in legal:
            if action["type"] == "announce":
                return action
        return strategy(view, legal, rng)
    wrapped.__doc__ = strategy.__doc__
    wrapped.__name__ = strategy.__name__
    return wrapped


STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "eager": _announcing(eager_strategy),
    "greedy": _announcing(greedy_strategy),
    "heuristic": _announcing(heuristic_strategy),
    "tactician": _announcing(tactician_strategy),  # seed 001's "Tactics": eights_engine/tactics.py
}

#: House strategies that search (``fn(view, legal, rng, ruleset)``): they read the match's ruleset and take
#: milliseconds a decision, so they stand apart from ``STRATEGIES`` (which loops over every strategy leave out).
#: ``expert``: search over deals the seat cannot tell from the real one (``search.expert_strategy``).
SEARCH_STRATEGIES: dict[str, Callable[[dict, list, SplitMix64, "Ruleset"], dict]] = {"expert": expert_strategy}

#: Every house strategy's name, weakest first: a seat may be given any of them (``choose``, ``choose_turn``).
HOUSE_STRATEGIES: tuple[str, ...] = (*STRATEGIES, *SEARCH_STRATEGIES)


def strategy_rng(deal_seed: int | bytes | None, ply: int, seat: int) -> SplitMix64:
    """The generator a house strategy uses at ``ply`` of a deal: keyed by the deal's seed (version 1) or a hash of
    its key (version 2: ``keys.strategy_seed``, so a house seat's choices tell nothing of the key), so replays make
    the same choices."""
    if isinstance(deal_seed, bytes):
        deal_seed = strategy_seed(deal_seed)
    return SplitMix64(((deal_seed or 0) << 16) ^ (seat << 12) ^ 0xB07, 1000 + ply)


def _pick(name: str, view: dict, legal: list[dict], rng: SplitMix64, ruleset: "Ruleset | None") -> dict:
    if name in STRATEGIES:
        return STRATEGIES[name](view, legal, rng)
    if name not in SEARCH_STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}: choose one of {', '.join(HOUSE_STRATEGIES)}")
    if ruleset is None:
        raise ValueError(f"house strategy {name!r} searches under the match's rules: pass its ruleset")
    for action in legal:
        if action["type"] == "announce":
            return action
    return SEARCH_STRATEGIES[name](view, legal, rng, ruleset)


def choose(name: str, view: dict, legal: list[dict], deal_seed: int | None = None,
           ruleset: "Ruleset | None" = None) -> dict:
    """The action house strategy ``name`` (one of ``HOUSE_STRATEGIES``) takes; a searching strategy
    (``SEARCH_STRATEGIES``) needs the match's ``ruleset``. ``ValueError`` for an unknown strategy name or a missing
    ruleset."""
    return _pick(name, view, legal, strategy_rng(deal_seed, view["ply"], view["seat"]), ruleset)


def choose_turn(name: str, turn: "Turn", rng: SplitMix64) -> dict:
    """The action house strategy ``name`` takes for a referee ``Turn`` (it reads only the turn's view, legal
    actions and ruleset), drawing from ``rng``: ``strategy_rng(deal seed, turn.ply, turn.seat)`` makes the same
    choice as ``choose``. ``ValueError`` for an unknown strategy name."""
    return _pick(name, turn.view, list(turn.legal_actions), rng, turn.ruleset)


def fallback_action(legal: list[dict]) -> dict:
    """The action played for a seat whose agent failed (fault policy): draw if allowed, else pass, else the first
    legal action in canonical order (for an eight: its first declaration)."""
    for kind in ("draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]
