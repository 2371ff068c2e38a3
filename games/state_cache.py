"""A per-process cache of engine states, one per match, each with the ply count it stands at.

Reading a long match from its whole log costs a replay of every ply (milliseconds per thousand plies) on every seat
view, move and worker slice. ``games.matches.snapshots.match_state_snapshot`` takes the match's cached state out of this
cache, brings it up to date with only the plies stored after it (read in the same single SELECT as the match's
progress: one consistent snapshot) and hands it to its caller, who owns it until they put it back with the ply
count it stands at. A state is never shared while in use (``take`` removes it), so it needs no lock and no copy;
a second reader of the same match meanwhile finds none and replays from the log. The stored log is append-only (a
ply once stored never changes: unique (deal, ply) behind a compare-and-set on the ply count), so a state at ply n
plus the plies after n is the state a replay of the whole log gives; the selector checks the counts agree and
falls back to a whole replay when they do not.

Keys are (match id, match seed, created at), so a match id that a test database or a restored backup hands out
again never meets another match's state. Size: ``MATCH_STATE_CACHE_SIZE`` states (least recently used go first);
0 turns the cache off.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.conf import settings

from eights_engine import MatchState

_lock = threading.Lock()
_states: OrderedDict[tuple, tuple[int, MatchState]] = OrderedDict()


def key_of(match) -> tuple:
    """The cache key of a match row: its id with facts that never change (its commitment, seed, creation time)."""
    return (match.pk, match.commitment, match.seed, match.created_at)


def plies_of(state: MatchState) -> int:
    """How many plies ``state`` has applied (over all deals): the ply count it stands at."""
    return sum(len(ids) for ids in state.deal_ids)


def take(key: tuple) -> MatchState | None:
    """Remove and return the state cached for ``key``, or None. The caller owns the state now."""
    with _lock:
        held = _states.pop(key, None)
    return None if held is None else held[1]


def put(key: tuple, state: MatchState) -> None:
    """Cache ``state`` of the match ``key``; the caller must be sure every ply it applied is stored (a reader checks
    the state's own ply count against the log's, ``plies_of``, but cannot tell a ply that was stored from a
    different one played in its place). The caller must not touch the state afterwards. An entry further on
    (another reader put back a later state meanwhile) is kept instead."""
    ply_count = plies_of(state)
    size = settings.MATCH_STATE_CACHE_SIZE
    if size <= 0:
        return
    with _lock:
        held = _states.get(key)
        if held is not None and held[0] > ply_count:
            return
        _states[key] = (ply_count, state)
        _states.move_to_end(key)
        while len(_states) > size:
            _states.popitem(last=False)


def clear() -> None:
    """Forget every cached state (tests)."""
    with _lock:
        _states.clear()
