"""The referee: one turn of a match, from the question put to the seat to the ply applied, the same for every seat.

Whoever plays a seat (a house strategy, a bot over HTTP, a person at the table, a bot in the authors' local runner),
its turn goes through these steps, and only ``judge`` decides:

1. **Ask.** ``turn_for(state, ...)`` builds the seat's ``Turn``: its view (``MatchState.view``: own hand and public
   facts), its legal actions, the ply, the match facts, the ruleset and the deadline. A ``Turn`` is all an agent is
   ever given: no other seat's hand, no stock, no seed (``engine/tests/test_referee.py`` walks every field), so a
   bot and a person at the same seat see the same thing by construction. The seat's agent answers with an
   ``Answer``: an action (not yet checked), or the ``Fault`` that kept it from answering (``timeout``,
   ``connection``, ``schema``, ... for a bot; ``clock`` for a person whose move clock ran out: ``FAULT_KINDS``, the one
   list of kinds, with what the public may read of each). How an agent is asked (HTTP, a clock) is the caller's: the engine does no I/O and reads no clock.
2. **Judge.** ``judge(state, answer, faults_before=..., policy=...)`` checks the answer against the rules: an action
   that is not legal now is an ``illegal`` fault (the engine's reason in the cause), except under
   ``FaultPolicy.refuse_illegal`` (a person's move through the API) where it raises ``IllegalAction`` and nothing
   happens (the person is told why and tries again). On any fault the fallback is played (``fallback_action``:
   draw if legal, else pass, else the first legal action) and the seat's consecutive faults go up by one; an
   answer that stands sets them to 0. Reaching ``policy.max_faults`` consecutive faults forfeits the match (house
   strategies: never), and so does one fault of a kind in ``FORFEIT_AT_ONCE`` (``abandoned``: a person who left). ``judge`` changes nothing and returns a ``Ruling``.
3. **Apply.** The caller applies ``ruling.action_id`` (``MatchState.apply_id``) and keeps its books: the worker
   stores the move, the fault count and the forfeit (``games.services``), the local runner prints them
   (``eights_engine.bots.localrun``). ``play_turn`` does 1 to 3 for a caller that holds the agent as a callable.

Faults and the fallback are the bot protocol's (docs/BOT_PROTOCOL.md, "Faults and the fault policy"); the fault
counts a seat forfeits at are the caller's policy (``BOT_MAX_CONSECUTIVE_FAULTS`` on the ladder, ``--max-faults`` in
the local runner).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Callable, Optional, Union

from .errors import IllegalAction
from .fairness import COMMITMENT_RE
from .match import MatchState
from .rules import Ruleset
from .strategies import fallback_action

#: ``Ruling.source``: the agent's own action stood, or the fallback was played after a fault (``Move.source``).
AGENT, FALLBACK = "agent", "fallback"
#: The fault kind the referee itself finds: an answer the rules do not allow here.
ILLEGAL = "illegal"


@dataclass(frozen=True)
class Turn:
    """What the seat to play is given, and all it is given: the question an agent answers.

    ``seat`` (0-based) is the seat to play; ``view`` is its view (``MatchState.view(seat)``: the dict a bot receives
    and a person's table shows; treat it as read-only); ``legal_actions`` its legal actions in canonical order
    (never empty); ``ply`` the ply within the deal (0-based), ``deal_number`` the deal (1-based), ``totals`` the
    match totals by seat, ``ruleset`` the match's rules. The seat's clock and context, as its caller keeps them:
    ``deadline_ms`` (the time for this ply, ms; None: no limit), ``time_bank_ms`` (what is left of the seat's time
    bank, ms), ``last_latency_ms`` (the round trip of its previous turn, ms) and ``match_id``; None where unknown.
    ``commitment``: the deal's commitment (``eights_engine.fairness``: SHA-256 of its seed and a secret salt, 64 hex
    digits), shown before and throughout the deal and opened once the match is finished; None where the caller has
    none (a deal stored before commitments). It reveals nothing of the seed.
    """

    seat: int
    view: dict
    legal_actions: tuple[dict, ...]
    ply: int
    deal_number: int
    totals: tuple[int, ...]
    ruleset: Ruleset
    deadline_ms: Optional[int] = None
    time_bank_ms: Optional[int] = None
    last_latency_ms: Optional[int] = None
    match_id: Optional[int] = None
    commitment: Optional[str] = None


def turn_for(state: MatchState, *, match_id: int | None = None, deadline_ms: int | None = None,
             time_bank_ms: int | None = None, last_latency_ms: int | None = None,
             commitment: str | None = None) -> Turn:
    """The ``Turn`` of the seat to play in ``state``, with the seat's clock and context as given (ms; None where
    there is none) and the current deal's ``commitment`` (None: none). ``ValueError`` when the match is over (no
    seat is to play), a time is negative or the commitment is not 64 lowercase hex digits."""
    if state.is_over:
        raise ValueError("the match is over: no seat is to play")
    for name, value in (("deadline_ms", deadline_ms), ("time_bank_ms", time_bank_ms),
                        ("last_latency_ms", last_latency_ms)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} is a whole number of milliseconds, 0 or more, or None; not {value!r:.40}")
    if commitment is not None and not (isinstance(commitment, str) and COMMITMENT_RE.fullmatch(commitment)):
        raise ValueError(f"a commitment is 64 lowercase hex digits (SHA-256), or None; not {commitment!r:.80}")
    seat = state.to_play
    return Turn(seat=seat, view=state.view(seat), legal_actions=tuple(state.legal_actions()), ply=state.deal.ply,
                deal_number=state.deal_number, totals=tuple(state.totals), ruleset=state.ruleset,
                deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, last_latency_ms=last_latency_ms,
                match_id=match_id, commitment=commitment)


#: Every way a seat's answer can fail to stand, and what the public (the replay) may read of it. ``None``: the
#: stored cause is public as it is (the service writes it from the game and its own numbers alone: a deadline in ms,
#: an HTTP status, the illegal action and the rule it breaks, a person's move clock). A sentence: what the public
#: reads instead, because the stored cause may quote the bot's endpoint (a redirect's Location, a host name that did
#: not resolve) or its reply's bytes; the full cause stays with the owner (the turn log, the bot page's health).
FAULT_KINDS: dict[str, str | None] = {
    "timeout": None,  # a bot: no reply within its deadline
    "connection": "connection: the bot's server could not be reached (details in its owner's turn log)",
    "address": "address: the bot's endpoint resolves only to addresses the service does not call",
    "http_status": None,  # a bot: answered with an HTTP error
    "redirect": "redirect: the bot's server answered with a redirect, which is not followed",
    "oversize": None,  # a bot: reply body over the protocol's limit
    "bad_json": "bad_json: the bot's reply is not usable JSON",
    "schema": "schema: the bot's reply does not match the turn reply schema",
    "illegal": None,  # any seat: an action the rules do not allow now
    "disabled": None,  # a bot switched off or suspended by its owner or the service
    "clock": None,  # a person: no move within the move clock
    "abandoned": None,  # a person away from the table past the wait, which the others at the table ended
}
#: The kinds a bot call can fail with (bots_api's client raises them); ``clock`` and ``abandoned`` are a person's.
BOT_FAULT_KINDS = tuple(kind for kind in FAULT_KINDS if kind not in ("clock", "abandoned"))
#: Fault kinds that forfeit at once, whatever the seat's count (under a policy with a ``max_faults``): the others at
#: a rated table ended the wait for a person who left (``games.matches.leavers``; docs/MATCH_RECORD.md).
FORFEIT_AT_ONCE = frozenset({"abandoned"})


def public_fault_text(kind: str, text: str) -> str:
    """The words anyone may read for a stored fault (``kind``; ``text``: the stored ``"kind: cause"``): the stored
    text where ``FAULT_KINDS`` says it is public, else the kind's fixed sentence; an unknown kind: "<kind>: the
    answer did not stand". Never the bot's endpoint. "" when there was no fault."""
    if not kind and not text:
        return ""
    if kind in FAULT_KINDS:
        return text if FAULT_KINDS[kind] is None else FAULT_KINDS[kind]
    return f"{kind or 'fault'}: the answer did not stand"


@dataclass(frozen=True)
class Fault:
    """Why a seat's answer does not stand: ``kind`` (one of ``FAULT_KINDS``; stored as ``Move.fault_kind``) and
    ``cause`` (words for the seat's owner)."""

    kind: str
    cause: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.cause}"


@dataclass(frozen=True)
class Answer:
    """A seat's answer to a ``Turn``: the ``action`` it chose (unchecked: the referee checks it), or the ``fault``
    that kept it from answering (then ``action`` is ignored). ``think_ms``: how long it took (0: not measured, the
    caller measures); ``time_bank_ms``: the seat's time bank after this turn (None: unchanged, or no bank);
    ``contribution``: randomness the seat sent for the key of the match's next deal (1-32 bytes; None: none;
    docs/FAIRNESS.md), which the referee does not judge."""

    action: object = None
    fault: Optional[Fault] = None
    think_ms: int = 0
    time_bank_ms: Optional[int] = None
    contribution: Optional[bytes] = None


@dataclass(frozen=True)
class FaultPolicy:
    """How the referee treats a seat's faults. ``max_faults``: consecutive faults that forfeit the match (None:
    never, as for house strategies). ``refuse_illegal``: an illegal action raises ``IllegalAction`` instead of
    being a fault (a person's move: answered 400, the person tries again)."""

    max_faults: Optional[int] = None
    refuse_illegal: bool = False

    def __post_init__(self) -> None:
        if self.max_faults is not None and (not isinstance(self.max_faults, int) or self.max_faults < 1):
            raise ValueError(f"max_faults is 1 or more, or None (never forfeit); not {self.max_faults!r:.40}")


@dataclass(frozen=True)
class Ruling:
    """The referee's decision on one answer. ``seat``, ``deal_number`` and ``ply`` say where; ``action`` is the
    action to apply and store (the agent's own, as it gave it, or the fallback) and ``action_id`` its id
    (``MatchState.apply_id``); ``source`` is ``AGENT`` or ``FALLBACK``; ``fault`` why the fallback was played
    (None when the answer stood); ``faults`` the seat's consecutive faults after this ply; ``forfeit`` whether
    they forfeit the match now; ``answer`` the answer judged (its think time and time bank)."""

    seat: int
    deal_number: int
    ply: int
    action: dict
    action_id: int
    source: str
    fault: Optional[Fault]
    faults: int
    forfeit: bool
    answer: Answer
    contribution: Optional[bytes] = None  # the answer's contribution when the match took it (play_turn, offers)

    @property
    def fault_kind(self) -> str:
        """The fault's kind, or "" when the answer stood."""
        return self.fault.kind if self.fault else ""

    @property
    def fault_text(self) -> str:
        """``"kind: cause"``, or "" when the answer stood."""
        return str(self.fault) if self.fault else ""


def _shown(action: object) -> str:
    try:
        return json.dumps(action)
    except (TypeError, ValueError):
        return repr(action)[:200]


def judge(state: MatchState, answer: Answer, *, faults_before: int = 0,
          policy: FaultPolicy = FaultPolicy()) -> Ruling:
    """Rule on the seat to play's ``answer`` in ``state``: the one place that checks an answer, plays the
    fallback on a fault, counts consecutive faults and declares a forfeit (module docstring). ``faults_before``:
    the seat's consecutive faults before this ply. Changes nothing; apply ``ruling.action_id`` to go on.

    Raises ``IllegalAction`` when the match is over, and for an illegal action under ``policy.refuse_illegal``
    (the engine's reason: which suit or rank is needed, ...).
    """
    if state.is_over:
        raise IllegalAction("the match is over: no more actions")
    deal = state.deal
    fault = answer.fault
    if fault is None:
        try:
            action_id = deal.action_id(answer.action)
        except IllegalAction as exc:
            if policy.refuse_illegal:
                raise
            fault = Fault(ILLEGAL, f"illegal action {_shown(answer.action)}: {exc}")
        else:
            return Ruling(seat=deal.to_play, deal_number=state.deal_number, ply=deal.ply, action=answer.action,
                          action_id=action_id, source=AGENT, fault=None, faults=0, forfeit=False, answer=answer)
    action = fallback_action(deal.legal_actions())
    faults = faults_before + 1
    forfeit = policy.max_faults is not None and (faults >= policy.max_faults or fault.kind in FORFEIT_AT_ONCE)
    return Ruling(seat=deal.to_play, deal_number=state.deal_number, ply=deal.ply, action=action,
                  action_id=deal.action_id(action), source=FALLBACK, fault=fault, faults=faults,
                  forfeit=forfeit, answer=answer)


#: A seat's agent: given the ``Turn``, an ``Answer`` (a bare action stands for ``Answer(action=...)``), or None
#: for "not now" (a person who has not moved yet).
Agent = Callable[[Turn], Union[Answer, dict, None]]


def play_turn(state: MatchState, agent: Agent, *, faults_before: int = 0, policy: FaultPolicy = FaultPolicy(),
              match_id: int | None = None, deadline_ms: int | None = None, time_bank_ms: int | None = None,
              last_latency_ms: int | None = None, commitment: str | None = None,
              offers: bool = False) -> Ruling | None:
    """One turn of the seat to play: build its ``Turn`` (``turn_for``, with the clock, context and commitment given), ask
    ``agent``, ``judge`` the answer and apply the ruling to ``state``. Returns the ruling, or None (``state``
    unchanged) when the agent answers None. ``ValueError`` when the match is over. With ``offers`` the answer's
    ``contribution`` is offered to the match (``MatchState.offer``) before the ply is applied, so a deal-ending ply's
    contribution counts for the next deal; the ruling's ``contribution`` says whether it was taken."""
    turn = turn_for(state, match_id=match_id, deadline_ms=deadline_ms, time_bank_ms=time_bank_ms,
                    last_latency_ms=last_latency_ms, commitment=commitment)
    answer = agent(turn)
    if answer is None:
        return None
    if not isinstance(answer, Answer):
        answer = Answer(action=answer)
    ruling = judge(state, answer, faults_before=faults_before, policy=policy)
    if offers:
        ruling = offer_contribution(state, ruling, answer.contribution)
    state.apply_id(ruling.action_id)
    return ruling


def offer_contribution(state: MatchState, ruling: Ruling, contribution: bytes | None) -> Ruling:
    """Offer the seat's ``contribution`` (None: none) to ``state`` (``MatchState.offer``) before ``ruling``'s ply is
    applied, so a deal-ending ply's contribution counts for the next deal; returns the ruling with its
    ``contribution`` when the match took it (the seat's first in this deal), else the ruling as it was."""
    if contribution is not None and state.offer(ruling.seat, contribution):
        return replace(ruling, contribution=contribution)
    return ruling
