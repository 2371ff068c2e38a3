"""Knockout tournaments as pure functions: the bracket, its rounds, who goes on, and the standings. Shapes and points
as ``tournaments.formats`` (an ``Entrant``, a ``Result``).

Knockout: 2 seats; seeds placed in the standard bracket order (1 v 16, 8 v 9, ...) of the next power of two, the
missing seeds being byes (so the top seeds get them); a tied match goes to the higher seed.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from tournaments.formats import Entrant, Result


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) by bracket position for a bracket of ``size`` (a power of two): 1 and 2 meet only in
    the final. ``bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]``."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket has a power-of-two size, not {size}")
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def knockout_first_round(seeded: Sequence[int]) -> list[int | None]:
    """Bracket slots of round 1 for entrant ids in seed order (best first): pairs are slots (0, 1), (2, 3), ...;
    None is a bye. ``ValueError`` for fewer than 2 entrants."""
    if len(seeded) < 2:
        raise ValueError(f"a knockout needs at least 2 entrants, not {len(seeded)}")
    size = 1
    while size < len(seeded):
        size *= 2
    return [seeded[s - 1] if s <= len(seeded) else None for s in bracket_order(size)]


def knockout_winner(a: int | None, b: int | None, result: Result | None, seed: Mapping[int, int],
                    withdrawn: frozenset[int] | set[int] = frozenset()) -> int | None:
    """Who of slot pair (``a``, ``b``) goes on: the other one when one is a bye or withdrawn, else the match's
    first place; a tie goes to the higher seed (lower seed number). None when neither can."""
    alive = [p for p in (a, b) if p is not None and p not in withdrawn]
    if len(alive) < 2:
        return alive[0] if alive else None
    if result is None:
        raise ValueError("a pair of two entrants needs its result")
    by = dict(zip(result.players, result.places))
    best = min(by[a], by[b])
    tied = [p for p in (a, b) if by[p] == best]
    return min(tied, key=lambda p: seed[p])


def knockout_next_round(slots: Sequence[int | None], results: Mapping[tuple[int, int], Result],
                        seed: Mapping[int, int], withdrawn: frozenset[int] | set[int] = frozenset()) -> list[int | None]:
    """The next round's slots: the winner of each pair (``results`` keyed by the pair as seated)."""
    out = []
    for i in range(0, len(slots), 2):
        a, b = slots[i], slots[i + 1]
        alive = [p for p in (a, b) if p is not None and p not in withdrawn]
        out.append(knockout_winner(a, b, results.get((a, b)) if len(alive) == 2 else None, seed, withdrawn))
    return out


def knockout_pods(slots: Sequence[int | None], withdrawn: frozenset[int] | set[int] = frozenset()
                  ) -> tuple[list[tuple[int, int]], list[int]]:
    """The matches (pairs of live entrants) and byes (entrants whose pair has no live opponent) of a round."""
    pods, byes = [], []
    for i in range(0, len(slots), 2):
        alive = [p for p in (slots[i], slots[i + 1]) if p is not None and p not in withdrawn]
        if len(alive) == 2:
            pods.append((alive[0], alive[1]))
        elif alive:
            byes.append(alive[0])
    return pods, byes


def knockout_rounds_needed(entrants: int) -> int:
    """Rounds of a knockout of ``entrants`` (the bracket's depth)."""
    rounds, size = 0, 1
    while size < entrants:
        size *= 2
        rounds += 1
    return rounds


def knockout_standings(entrants: Sequence[Entrant], rounds: Sequence[Sequence[int | None]],
                       champion: int | None) -> list[tuple[int, int]]:
    """``[(entrant id, rank)]`` best first for a knockout: the champion first, then by the round each was knocked
    out in (later is better; those out in the same round share a rank), seed within a rank. ``rounds`` are the
    slot lists of the rounds played so far."""
    reached: dict[int, int] = {}
    for number, slots in enumerate(rounds, start=1):
        for p in slots:
            if p is not None:
                reached[p] = number
    seed = {e.id: e.seed for e in entrants}
    key = {e.id: (0 if e.id == champion else 1, -reached.get(e.id, 0)) for e in entrants}
    ordered = sorted(entrants, key=lambda e: (key[e.id], seed[e.id]))
    out, rank, previous = [], 0, None
    for i, e in enumerate(ordered, start=1):
        if key[e.id] != previous:
            rank, previous = i, key[e.id]
        out.append((e.id, rank))
    return out
