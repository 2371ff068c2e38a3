"""The check matches of the conformance check (``eights_engine.bots.check``), planned before anything is sent: the
rules a bot
meets (``MatchRules``), the tricky situations a check match is chosen for (``SITUATIONS``), and the matches that
reach them, found by trying random seeds (``plan_matches``). Pure: the engine only, no HTTP, no database."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from typing import Callable

from eights_engine import MatchState, Ruleset
from eights_engine.fairness import SALT_BYTES, deal_commitment
from eights_engine.keys import deal_key_commitment
from eights_engine.strategies import STRATEGIES, choose

DEALT_MATCHES = 2  # matches dealt from random seeds, played from their first turn, besides the situations
DEALT_TURNS = 3  # the bot's turns asked in each
MAX_SITUATION_TURNS = 4  # a situation arises by the bot's 4th turn (web-table's pass after its 3 draws) or not at all
SEARCH_TRIES = 10_000  # random matches tried per situation before it is left out (about 0.1 ms each)


@dataclass(frozen=True)
class MatchRules:
    """Rules a bot meets in real matches: a ruleset (``name`` for the report: a preset or a ladder), its seat
    count, and the turn deadline in ms."""

    name: str
    ruleset: Ruleset
    seats: int
    deadline_ms: int


def default_match_rules(deadline_ms: int) -> list[MatchRules]:
    """The standalone checker's rules (the service passes its ladders'): every situation arises under one of them."""
    presets = [MatchRules(name, Ruleset.preset(name), 2, deadline_ms) for name in ("pagat", "web-table", "eights-classic")]
    return presets + [MatchRules("pagat (twos: stack)", Ruleset.preset("pagat", twos="stack"), 2, deadline_ms)]


@dataclass(frozen=True)
class Situation:
    """A tricky situation a check match is chosen for: its check's ``name``, what it tests (``about``), whether a
    ruleset allows it (``allowed``), and whether it has arisen for the seat to play (``arises(view, legal)``)."""

    name: str
    about: str
    allowed: Callable[[Ruleset], bool]
    arises: Callable[[dict, list[dict]], bool]


SITUATIONS = [
    Situation("turn: opening", "an ordinary first turn of a match", lambda rules: True,
              lambda view, legal: any(a["type"] != "declare" for a in legal)),  # a starter eight is its own check
    Situation("turn: declared suit", "a suit was declared on an eight: follow the declared suit (not the eight's "
              "own suit) or play an eight",
              lambda rules: rules.eights != "no_declare", lambda view, legal: view["declared"]),
    Situation("turn: starter eight", "the starter is an eight and this seat is the dealer: it must declare a suit "
              '({"type": "declare", "suit": ...})', lambda rules: rules.starter_eight == "dealer_declares",
              lambda view, legal: all(a["type"] == "declare" for a in legal)),
    Situation("turn: nothing to play or draw", "nothing playable and nothing more to draw this turn: pass is the "
              "only legal action", lambda rules: rules.explicit_pass,  # an empty stock never comes so early
              lambda view, legal: legal == [{"type": "pass"}]),
    Situation("turn: draw limit reached", "this seat has drawn all it may this turn: it may not draw again",
              lambda rules: rules.draw != "until_playable",
              lambda view, legal: view["draws_left"] == 0 and view["drawn_card"] is not None
              and any(a["type"] == "play" for a in legal)),
    Situation("turn: only an eight", "eights are the only legal plays and drawing is not allowed: the reply must "
              'name the suit: {"type": "play", "card": "8?", "suit": ...}',
              lambda rules: not rules.voluntary_draw or rules.draw != "one",
              lambda view, legal: all(a["type"] == "play" and a["card"][0] == "8" for a in legal)),
    Situation("turn: pending two", "a two is on top with cards pending: answer with a two or draw the penalty "
              "(another card of the suit is no answer)", lambda rules: rules.twos != "off",
              lambda view, legal: view["pending_draw"] > 0),
]
#: Turn checks of one check under ``default_match_rules`` (a match is one check, of one or more turns); under
#: rules that allow fewer situations a check has fewer.
TURN_CHECKS = len(SITUATIONS) + DEALT_MATCHES


@dataclass
class CheckMatch:
    """One match of a check, planned before anything is sent: its rules and seed, the bot's seat, the house strategy
    of every other seat, how many of the bot's turns to ask, and the situation its last asked turn is (None: an
    ordinary dealt match). ``name`` is its check's name in the report."""

    name: str
    rules: MatchRules
    seed: int
    seat: int
    strategies: dict[int, str]
    turns: int
    situation: Situation | None = None
    state: MatchState | None = field(default=None, repr=False)  # as the check left it

    def start(self) -> MatchState:
        self.state = MatchState.start(self.rules.ruleset, self.rules.seats, self.seed)
        return self.state

    def others_play(self) -> None:
        """The other seats play (their house strategies, keyed by deal seed and ply as on a ladder) until the bot's
        seat is to play or the match is over."""
        state = self.state
        while not state.is_over and state.to_play != self.seat:
            seat = state.to_play
            state.apply(choose(self.strategies[seat], state.view(seat), state.legal_actions(), state.deal.seed))

    @property
    def where(self) -> str:
        return f"{self.rules.name}, {self.rules.seats} seats, seat {self.seat}, seed {self.seed}"


def _random_match(name: str, rules: MatchRules, rng: random.Random, turns: int) -> CheckMatch:
    seat = rng.randrange(rules.seats)
    strategies = {s: rng.choice(sorted(STRATEGIES)) for s in range(rules.seats) if s != seat}
    return CheckMatch(name, rules, rng.randrange(1, 2**31), seat, strategies, turns)


def _turn_it_arises(match: CheckMatch, situation: Situation) -> int | None:
    """The bot's turn (1-based) at which ``situation`` arises in ``match`` when every earlier turn of the bot has a
    single legal action (so it arises whatever the bot is), or None within ``MAX_SITUATION_TURNS``."""
    state = match.start()
    for turn in range(1, MAX_SITUATION_TURNS + 1):
        match.others_play()
        if state.is_over:
            return None
        legal = state.legal_actions()
        if situation.arises(state.view(match.seat), legal):
            return turn
        if len(legal) != 1:
            return None
        state.apply(legal[0])
    return None


def plan_situation(situation: Situation, match_rules: list[MatchRules], rng: random.Random,
                   tries: int = SEARCH_TRIES) -> CheckMatch | None:
    """A check match whose opening reaches ``situation`` for the bot, found by trying random matches under the
    rules that allow it; None when no rules allow it or none of ``tries`` matches reaches it."""
    allowed = [rules for rules in match_rules if situation.allowed(rules.ruleset)]
    for _ in range(tries if allowed else 0):
        match = _random_match(situation.name, rng.choice(allowed), rng, 0)
        turns = _turn_it_arises(match, situation)
        if turns:
            match.turns, match.situation, match.state = turns, situation, None
            return match
    return None


def plan_matches(match_rules: list[MatchRules], rng: random.Random) -> list[CheckMatch]:
    """Every check match, in the random order they are sent: one per situation the rules allow, and
    ``DEALT_MATCHES`` ordinary ones."""
    matches = [m for m in (plan_situation(s, match_rules, rng) for s in SITUATIONS) if m is not None]
    for _ in range(DEALT_MATCHES):
        match = _random_match("", rng.choice(match_rules), rng, DEALT_TURNS)
        match.name = f"turn: dealt match (seed {match.seed})"
        matches.append(match)
    rng.shuffle(matches)
    return matches


def fresh_commitment(source: int | bytes) -> str:
    """The commitment to a deal as the service makes one (docs/FAIRNESS.md): to a version 2 deal's key, or to a
    version 1 seed with a fresh secret salt. A check's turns carry one like real turns do."""
    if isinstance(source, bytes):
        return deal_key_commitment(source)
    return deal_commitment(source, secrets.token_hex(SALT_BYTES))
