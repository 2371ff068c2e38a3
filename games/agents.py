"""Where a seat's decisions come from: an *agent* per player kind, in a registry other apps fill.

``games`` never imports ``bots_api`` or ``tournaments``; they register their agents in ``AppConfig.ready()``
(``games.hooks.register_agent``).
An agent is ``fn(*, player, turn, rng, seat_row, match, contribution_open) -> Answer | None``: ``turn`` is the
referee's ``Turn`` (``eights_engine.referee``: the seat's view, its legal actions, the ply, the deadline; never the
match state with every hand), ``rng`` the seat's own random source for this ply (``strategy_rng``, keyed by the deal
seed: house strategies draw from it; it is never shown to a bot or a person), ``seat_row`` and ``match`` the stored
rows, read-only, ``contribution_open`` whether the match would take the seat's contribution now (True), has taken its
one for this deal (False), or takes none (None; docs/FAIRNESS.md). ``None`` means "not now" (a person who has not
moved yet), and the match task stops until it is woken again. The answer is judged by the referee
(``eights_engine.referee.judge``), which plays the fallback on a fault.
"""

from __future__ import annotations

from typing import Callable, Optional

from django.utils import timezone

from eights_engine.referee import Answer, Fault, Turn
from eights_engine.strategies import choose_turn

Agent = Callable[..., Optional[Answer]]  # registered in games.hooks (register_agent, agent_for)


def house_agent(*, player, turn: Turn, rng, **context) -> Answer:
    """House bots: the engine strategy named by ``player.strategy``, drawing from ``rng`` (deterministic). A house
    seat contributes nothing to the next deal's key: its randomness would be the service's own, chosen after the
    other seats' contributions were seen, which would let the service steer the next deal (docs/FAIRNESS.md); the
    service's part is its secret, committed to when the match was created."""
    return Answer(action=choose_turn(player.strategy, turn, rng))


def human_agent(*, player, turn: Turn, match, seat_row, rng, **context) -> Answer | None:
    """People move through ``games.services.match_submit_action``; the worker answers for them only when their move
    clock (``Match.move_clock_seconds`` since the last stored ply) has run out: a ``clock`` fault, on which the
    referee plays the fallback (three in a row forfeit the match, as for bots). Never for a guest (``games.people.guests``):
    a guest's match that waits past the clock is abandoned and ended unrated by guest housekeeping.

    A person who left (``Seat.left_at``: the others at the table ended the wait, ``games.matches.leavers``) is
    played by their house stand-in (``Seat.stand_in``, a casual match), or forfeits at once (an ``abandoned``
    fault: a rated match)."""
    if seat_row.left_at is not None:
        if seat_row.stand_in:
            return Answer(action=choose_turn(seat_row.stand_in, turn, rng))
        return Answer(fault=Fault("abandoned", "away from the table; the others ended the wait"))
    waited = (timezone.now() - match.last_progress_at).total_seconds()
    clock = match.move_clock_seconds
    if waited < clock or player.is_guest:  # a guest who left gets no fallbacks: housekeeping ends the match
        return None
    return Answer(fault=Fault("clock", f"no move within {clock} s"), think_ms=int(waited * 1000))
