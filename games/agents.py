"""Where a seat's decisions come from: an *agent* per player kind, in a registry other apps fill.

``games`` never imports ``bots_api`` or ``tournaments``; they register their agents in ``AppConfig.ready()``.
An agent is ``fn(*, player, match_id, seat, view, legal_actions, state, seat_row, match) -> Decision | None``
(``state`` the engine's MatchState, ``seat_row`` and ``match`` the stored rows, read-only); ``None`` means "not
now" (a human who has not moved yet), and the match task stops until it is woken again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from django.utils import timezone

from games.engine import choose
from games.engine.strategies import fallback_action


@dataclass(frozen=True)
class Decision:
    """An agent's answer: the action, where it came from (``agent`` or ``fallback``), the fault (kind and words)
    if any, the time taken (ms), and for timed seats what is left of the seat's time bank (ms)."""

    action: dict
    source: str = "agent"
    fault: str = ""
    fault_kind: str = ""
    think_ms: int = 0
    time_bank_ms: int | None = None


Agent = Callable[..., Optional[Decision]]
_AGENTS: dict[str, Agent] = {}


def register(kind: str, agent: Agent) -> None:
    """Make ``agent`` decide for every player of ``kind`` (``house``, ``bot``, ``human``)."""
    _AGENTS[kind] = agent


def agent_for(kind: str) -> Agent:
    """The registered agent for a player kind; ``LookupError`` when no app registered one."""
    try:
        return _AGENTS[kind]
    except KeyError:
        raise LookupError(f"no agent is registered for players of kind {kind!r}") from None


def house_agent(*, player, match_id, seat, view, legal_actions, state, **context) -> Decision:
    """House bots: the engine strategy named by ``player.strategy``, keyed by deal seed and ply (deterministic)."""
    action = choose(player.strategy, view, legal_actions, state.deal.seed)
    return Decision(action=action)


def human_agent(*, player, match_id, seat, view, legal_actions, state, match, **context) -> Decision | None:
    """People move through ``games.services.match_submit_action``; the worker acts for them only when their move
    clock (``Match.move_clock_seconds`` since the last stored ply) has run out: the fallback action, as a ``clock``
    fault (three in a row forfeit the match, as for bots). Never for a guest (``games.guests``): a guest's match
    that waits past the clock is abandoned and ended unrated by guest housekeeping."""
    waited = (timezone.now() - match.last_progress_at).total_seconds()
    clock = match.move_clock_seconds
    if waited < clock or player.is_guest:  # a guest who left gets no fallbacks: housekeeping ends the match
        return None
    return Decision(action=fallback_action(legal_actions), source="fallback", fault_kind="clock",
                    fault=f"clock: no move within {clock} s", think_ms=int(waited * 1000))
