"""Whom a ladder seats together, and in which seats: a pure function (no Django, no database, no clock), so the
choice is tested on its own (``tests/tournaments/test_matchmaking_choice.py``, with hypothesis) and the
scheduler (``tournaments.services.ladder_schedule_matches``) only gathers its inputs and writes its answer.

The choice, one match at a time until ``room`` matches are chosen or nobody more can play:

* **No entry starves, fewer recent matches first.** The match is built around the free entry with the fewest
  recent matches (running ones included), then the fewest matches ever; an entry that cannot be seated (too few
  free entries of other owners) is passed over for the next, never blocking the others.
* **Close ratings, spread opponents.** The other seats go, one by one, to the free entry of another owner whose
  cost ``sum(z) + REPEAT_PENALTY * (recent meetings)`` against the entries already chosen is lowest, where
  ``z = |mu_a - mu_b| / sqrt(sigma_a**2 + sigma_b**2)`` is the gap in units of the two ratings' uncertainty:
  near ratings, but a pair that met lately gives way to a slightly wider gap, and while ratings are uncertain
  (a young ladder, a newcomer) gaps weigh little and opponents are spread widely.
* **Cap per entry.** An entry is in at most ``cap`` running matches (``Ladder.max_concurrent_per_player``).
* **Seats and dealers rotate.** Seat 0 leads the first deal and the last seat deals it (``eights_engine.match``:
  the first dealer is the last seat), so who sits where matters. The chosen entries are arranged so that each
  stays nearest its fair share of every seat (``times in the seat - matches / seats``; ``_seat_order``), so every
  entry's count in each seat, seat 0 and the dealing seat included, stays within 1.5 of ``matches / seats`` (the
  property test checks this over random ladders of 2 to 8 seats; ``benchmarks/matchmaking_bench.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations, permutations
from math import sqrt

#: What one recent meeting of a pair weighs against a rating gap ``z`` (the mu gap over the combined sigma) when
#: the other seats are filled: a pair that met once lately gives way to an opponent one combined sigma further off.
REPEAT_PENALTY = 1.0
#: Seats up to which the seat order is the best of all arrangements (6! = 720 tried per match); above, a greedy
#: order improved by swaps (the last seats of a greedy order alone go to whoever is left, and drift).
EXACT_SEATING_UP_TO = 6


@dataclass(frozen=True)
class Candidate:
    """An entry the scheduler may seat: ``id`` (the player's id), ``name`` (deterministic tie-break), ``mu`` and
    ``sigma`` (its openskill rating), ``owner`` (the owner's user id; None for a house bot: never kept apart), ``recent`` (its
    matches among the ladder's recent ones, running included), ``running`` (its running matches now),
    ``seat_counts`` (times it sat in each seat index on this ladder; missing indexes count 0)."""

    id: int
    name: str
    mu: float = 25.0
    sigma: float = 25.0 / 3
    owner: int | None = None
    recent: int = 0
    running: int = 0
    seat_counts: tuple[int, ...] = field(default=())

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def choose_matches(candidates: list[Candidate], *, seats: int, room: int, cap: int,
                   met: Counter | None = None) -> list[list[int]]:
    """Up to ``room`` new matches of ``seats`` seats from ``candidates``: a list of player-id lists, each in seat
    order (index 0 = seat 0). ``cap``: running matches an entry may be in (>= 1). ``met``: recent meetings per
    pair, keyed by the sorted pair of ids ``(a, b)`` with ``a < b`` (not changed; the function counts the matches
    it chooses itself). No match seats two candidates with the same non-None ``owner``. ``ValueError`` for
    ``seats`` < 2 or ``cap`` < 1."""
    if seats < 2:
        raise ValueError(f"a match has at least 2 seats, not {seats}")
    if cap < 1:
        raise ValueError(f"the cap of running matches per entry is at least 1, not {cap}")
    met = Counter(met or {})
    busy = {c.id: c.running for c in candidates}
    recent = {c.id: c.recent for c in candidates}
    seat_counts = {c.id: Counter(dict(enumerate(c.seat_counts))) for c in candidates}
    chosen_matches: list[list[int]] = []
    while len(chosen_matches) < room:
        free = [c for c in candidates if busy[c.id] < cap]
        group: list[Candidate] | None = None
        for first in sorted(free, key=lambda c: (recent[c.id], sum(seat_counts[c.id].values()), -c.ordinal, c.name)):
            group = _fill(first, free, seats, met)
            if group is not None:
                break
        if group is None:
            break
        order = _seat_order(group, seat_counts)
        for a, b in _pairs([c.id for c in group]):
            met[(a, b)] += 1
        for index, c in enumerate(order):
            busy[c.id] += 1
            recent[c.id] += 1
            seat_counts[c.id][index] += 1
        chosen_matches.append([c.id for c in order])
    return chosen_matches


def _fill(first: Candidate, free: list[Candidate], seats: int, met: Counter) -> list[Candidate] | None:
    """``first`` and the nearest-rated, least-met free entries of other owners; None when too few."""
    group = [first]
    while len(group) < seats:
        owners = {c.owner for c in group if c.owner is not None}
        rest = [c for c in free if c not in group and (c.owner is None or c.owner not in owners)]
        if not rest:
            return None

        def cost(c: Candidate) -> tuple:
            gap = sum(abs(c.mu - g.mu) / max(sqrt(c.sigma ** 2 + g.sigma ** 2), 1e-9) for g in group)
            meetings = sum(met[_pair(c.id, g.id)] for g in group)
            return (round(gap + REPEAT_PENALTY * meetings, 6), c.name)

        group.append(min(rest, key=cost))
    return group


def _seat_order(group: list[Candidate], seat_counts: dict[int, Counter]) -> list[Candidate]:
    """``group`` in seat order, keeping every entry near its fair share of every seat.

    The imbalance of a ladder is the sum over entries and seats of ``(times in the seat - matches / seats)**2``;
    seating entry c in seat k changes it by ``2 * (times c sat in k) + a constant``, so the arrangement that grows
    it least has the least sum of the chosen entries' counts in their seats. Up to ``EXACT_SEATING_UP_TO`` seats it
    is found among all arrangements (ties: the first found, which gives seat 0 to the entry furthest below its
    share of it); beyond, from that greedy order (seat 0, 1, ... in turn to the entry furthest below its share of
    that seat), two seats are swapped while that lowers the sum."""
    n = len(group)

    def deficit(c: Candidate, index: int) -> tuple:
        played = sum(seat_counts[c.id].values())
        return (seat_counts[c.id][index] - played / n, c.name)

    greedy: list[Candidate] = []
    left = list(group)
    for index in range(n):
        pick = min(left, key=lambda c: deficit(c, index))
        left.remove(pick)
        greedy.append(pick)

    def cost(order) -> int:
        return sum(seat_counts[c.id][k] for k, c in enumerate(order))

    best, best_cost = greedy, cost(greedy)
    if n > EXACT_SEATING_UP_TO:  # improve the greedy order by swapping two seats while that helps
        improved = True
        while improved:
            improved = False
            for i, j in combinations(range(n), 2):
                swapped = list(best)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                if (c := cost(swapped)) < best_cost:
                    best, best_cost, improved = swapped, c, True
        return best
    for order in permutations(group):
        if (c := cost(order)) < best_cost:
            best, best_cost = list(order), c
    return best


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _pairs(ids: list[int]):
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            yield _pair(a, b)
