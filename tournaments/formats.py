"""Tournament formats as pure functions: pairings (round robin, Swiss, knockout) and standings with tie-breaks
(duplicate play's seatings and combined result are ``tournaments.duplicate``'s: one rule for ladders, trials and
tournaments). No Django, no I/O, no randomness: the same inputs give the same pairings, so a round rebuilt after a
worker died is the round that was lost.

Shapes. An entrant is an ``Entrant`` (``id``: the player id, ``seed``: 1 = first seed (by rating at the start),
``owner``: the owning user's id or None (house bots), ``withdrawn``). A pod is a tuple of entrant ids in seat order
(2 seats: a pairing). A ``Result`` is one finished pod: its players in seat order, their places (1 = first, tied
seats share a place) and their match totals in card points.

Points. A pod of ``n`` seats gives place ``p`` the points ``(n - p) / (n - 1)``: 2 seats give 1 for a win, 0 for
a loss; tied seats share the points of the places they cover (a 2-seat tie gives 0.5 each); a 4-seat pod gives
1, 2/3, 1/3, 0. A bye scores ``BYE_POINTS`` (a win, as in chess).

Swiss pairing (our reading: a greedy score-group pairing with an exhaustive search, not FIDE's Dutch system).
Entrants are ranked by points, then seed. Byes (``len(active) % seats`` each round) go to the entrants with the
fewest byes so far, lowest ranked first. Pods are then filled from the top of the ranking, each pod taking the
first unpaired entrant and the nearest-ranked others, with a depth-first search that backtracks so that no pod
repeats a pairing already played while any rematch-free pairing exists (exhaustive for small fields; past
``SEARCH_BUDGET`` candidate pods an attempt gives up), else with as few rematches as the bounded search finds, and
never seats two entrants of one owner together (a hard rule: ``PairingError`` when impossible).
Knockouts (the bracket, its rounds and standings) are ``tournaments.knockout``'s.
"""

from __future__ import annotations

import functools
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Mapping, Sequence

#: Points for a bye (Swiss, round robin with an odd count): a win.
BYE_POINTS = 1.0
#: Candidate pods the search may try per attempt before giving up on that bound of rematches.
SEARCH_BUDGET = 20000
#: Most bye choices tried before the pod search relaxes the rematch rule.
BYE_CHOICES = 64


class PairingError(ValueError):
    """No pairing satisfies the hard rules (e.g. too few entrants of different owners for a pod)."""


@dataclass(frozen=True)
class Entrant:
    id: int
    seed: int
    owner: int | None = None
    withdrawn: bool = False


@dataclass(frozen=True)
class Result:
    """One finished pod (or, in duplicate play, the combined result of its rotations)."""

    players: tuple[int, ...]
    places: tuple[int, ...]
    totals: tuple[int, ...] = ()
    round: int = 0

    def points(self) -> dict[int, float]:
        return dict(zip(self.players, place_points(self.places)))


@dataclass
class Pairing:
    """One round: ``pods`` (tuples of entrant ids in seat order) and ``byes`` (entrant ids sitting out)."""

    pods: list[tuple[int, ...]]
    byes: list[int] = field(default_factory=list)
    rematches: int = 0


@dataclass
class Standing:
    id: int
    rank: int
    points: float
    buchholz: float
    head_to_head: float
    card_points: int
    played: int
    byes: int
    withdrawn: bool
    seed: int


def place_points(places: Sequence[int]) -> list[float]:
    """Points by seat for ``places`` (1 = first; tied seats share): ``(n - p) / (n - 1)`` averaged over the places a
    tie covers. ``[1, 2] -> [1.0, 0.0]``, ``[1, 1] -> [0.5, 0.5]``, ``[1, 2, 2] -> [1.0, 0.25, 0.25]``."""
    n = len(places)
    if n < 2:
        raise ValueError("a pod has at least 2 seats")
    count = Counter(places)
    out = []
    for p in places:
        covered = range(p, p + count[p])  # tied seats at place p cover places p .. p + t - 1
        out.append(sum((n - q) / (n - 1) for q in covered) / len(covered))
    return out


def places_from_scores(scores: Sequence[tuple]) -> list[int]:
    """Places (1 = first, ties share) for sort keys where a smaller key is better."""
    return [1 + sum(1 for other in scores if other < mine) for mine in scores]


# ---- round robin ----------------------------------------------------------------------------------------------

def round_robin_rounds(ids: Sequence[int], seats: int = 2, k: int = 1) -> list[list[tuple[int, ...]]]:
    """Rounds of pods where every ``seats``-sized group of ``ids`` meets ``k`` times.

    2 seats: the circle method (``len(ids) - 1`` rounds per cycle, ``len(ids)`` when odd: one entrant sits out
    each round), the seats swapped on every other cycle and alternated within a cycle so nobody always leads.
    More seats: every combination of ``seats`` entrants, packed greedily into rounds of disjoint pods, seat order
    rotated per cycle. ``ValueError`` for fewer entrants than seats or ``k`` < 1. The pods number
    ``round_robin_match_count`` (``C(len(ids), seats) * k``, which grows fast): bound it before calling.
    """
    ids = list(ids)
    if seats < 2 or len(ids) < seats:
        raise ValueError(f"a round robin of {seats} seats per match needs at least {seats} entrants, not {len(ids)}")
    if k < 1:
        raise ValueError(f"k (matches per pairing) is at least 1, not {k}")
    if seats == 2:
        one = _circle_rounds(ids)
    else:
        one = _packed_schedule(tuple(ids), seats)
    rounds = []
    for cycle in range(k):
        for rnd in one:
            rounds.append([_rotate(pod, cycle) for pod in rnd])
    return rounds


def round_robin_match_count(entrants: int, seats: int = 2, k: int = 1) -> int:
    """Pods ``round_robin_rounds`` schedules for ``entrants`` entrants, without building them: every ``seats``-sized
    group ``k`` times, ``C(entrants, seats) * k`` (0 when fewer entrants than seats)."""
    return math.comb(entrants, seats) * k if 2 <= seats <= entrants else 0


def round_robin_entrants_within(limit: int, seats: int = 2, k: int = 1) -> int:
    """The most entrants whose round robin (``seats``, ``k``) has at most ``limit`` pods (0 when not even
    ``seats`` entrants fit)."""
    n = seats - 1
    while round_robin_match_count(n + 1, seats, k) <= limit:
        n += 1
    return n if n >= seats else 0


def _circle_rounds(ids: list[int]) -> list[list[tuple[int, int]]]:
    players: list[int | None] = list(ids) + ([None] if len(ids) % 2 else [])
    n = len(players)
    rounds = []
    for r in range(n - 1):
        pods = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is None or b is None:
                continue
            pods.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pods)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


@functools.lru_cache(maxsize=16)
def _packed_schedule(ids: tuple[int, ...], seats: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every ``seats``-combination of ``ids`` packed into rounds, kept for the next call: a running tournament
    rebuilds its schedule at every round."""
    return tuple(tuple(rnd) for rnd in _packed_rounds([tuple(c) for c in combinations(ids, seats)]))


def _packed_rounds(pods: list[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
    """Greedy first-fit packing of ``pods`` (in order) into rounds of disjoint pods: each pod goes to the first
    round none of its entrants plays in yet. One pass over the pods, each checking the rounds' busy sets: the same
    rounds as sweeping the remaining pods once per round, in time pods x rounds at worst but without rebuilding
    the remaining list each round."""
    rounds: list[list[tuple[int, ...]]] = []
    busy: list[set[int]] = []
    for pod in pods:
        for rnd, used in zip(rounds, busy):
            if used.isdisjoint(pod):
                rnd.append(pod)
                used.update(pod)
                break
        else:
            rounds.append([pod])
            busy.append(set(pod))
    return rounds


def _rotate(pod: tuple[int, ...], by: int) -> tuple[int, ...]:
    by %= len(pod)
    return pod[by:] + pod[:by]


# ---- Swiss ----------------------------------------------------------------------------------------------------

def swiss_pairing(entrants: Sequence[Entrant], results: Iterable[Result], byes: Mapping[int, int] | None = None,
                  seats: int = 2) -> Pairing:
    """The next Swiss round for the entrants not withdrawn, from the ``results`` so far and the ``byes`` each
    entrant had (entrant id -> count). See the module docstring for the rules. ``PairingError`` when fewer than
    ``seats`` entrants are left or the owners cannot be kept apart."""
    byes = dict(byes or {})
    results = list(results)
    active = [e for e in entrants if not e.withdrawn]
    if len(active) < seats:
        raise PairingError(f"{len(active)} entrants are left; a pod needs {seats}")
    points = _points(results, byes)
    ranked = sorted(active, key=lambda e: (-points.get(e.id, 0.0), e.seed, e.id))
    met = _met(results)
    owner = {e.id: e.owner for e in active}
    bye_count = len(ranked) % seats
    choices = _bye_choices(ranked, byes, bye_count)
    order = [e.id for e in ranked]

    def pairing(chosen, pods) -> Pairing:
        rematches = sum(met[frozenset(p)] > 0 for pod in pods for p in combinations(pod, 2))
        return Pairing(pods=pods, byes=sorted(chosen, key=order.index), rematches=rematches)

    for i, chosen in enumerate(choices):  # no rematch, with any fair choice of byes (the preferred one searched most)
        pods = _search_pods([p for p in order if p not in chosen], seats, met, owner, 0,
                            budget=SEARCH_BUDGET if i == 0 else SEARCH_BUDGET // 10)
        if pods is not None:
            return pairing(chosen, pods)
    # rematches cannot be avoided (or not found within the budget): the fewest the search finds, bounded by
    # doubling and then halving the number allowed, with the preferred byes
    chosen = choices[0]
    players = [p for p in order if p not in chosen]
    most = len(players) * (seats - 1)
    low, high, found = 0, 1, None
    while high <= most:
        found = _search_pods(players, seats, met, owner, high)
        if found is not None:
            break
        low, high = high, high * 2
    if found is None:
        found = _search_pods(players, seats, met, owner, most, budget=SEARCH_BUDGET * 10)
        if found is None:
            raise PairingError("no pairing keeps every pod free of two entrants of one owner")
        return pairing(chosen, found)
    while high - low > 1:
        middle = (low + high) // 2
        better = _search_pods(players, seats, met, owner, middle)
        if better is None:
            low = middle
        else:
            high, found = middle, better
    return pairing(chosen, found)


def _points(results: list[Result], byes: Mapping[int, int]) -> dict[int, float]:
    points: dict[int, float] = defaultdict(float)
    for result in results:
        for player, p in result.points().items():
            points[player] += p
    for player, n in byes.items():
        points[player] += n * BYE_POINTS
    return points


def _met(results: list[Result]) -> Counter:
    met: Counter = Counter()
    for result in results:
        for a, b in combinations(result.players, 2):
            met[frozenset((a, b))] += 1
    return met


def _bye_choices(ranked: list[Entrant], byes: Mapping[int, int], count: int) -> list[frozenset[int]]:
    """Sets of ``count`` entrants who may sit out: fewest byes so far first (a second bye only when everyone had
    one), lowest ranked first; at most ``BYE_CHOICES`` sets, the preferred one first."""
    if count == 0:
        return [frozenset()]
    bottom_up = list(reversed(ranked))
    levels = sorted({byes.get(e.id, 0) for e in ranked})
    forced: list[int] = []
    for level in levels:
        at = [e.id for e in bottom_up if byes.get(e.id, 0) == level]
        if len(forced) + len(at) <= count:
            forced += at
            if len(forced) == count:
                return [frozenset(forced)]
            continue
        out = []
        for combo in combinations(at, count - len(forced)):
            out.append(frozenset(forced + list(combo)))
            if len(out) >= BYE_CHOICES:
                break
        return out
    return [frozenset(forced)]


def _search_pods(players: list[int], seats: int, met: Counter, owner: Mapping[int, int | None],
                 allowed: int, budget: int | None = SEARCH_BUDGET) -> list[tuple[int, ...]] | None:
    """Split ``players`` (ranked) into pods of ``seats`` with at most ``allowed`` repeated pairs and no two of one
    owner in a pod: depth-first, the top unpaired entrant with the nearest-ranked others first. None if none is
    found within ``budget`` candidate pods (None: no limit)."""
    left_budget = [budget if budget is not None else float("inf")]

    def search(left: list[int], used: int) -> list[tuple[int, ...]] | None:
        if not left:
            return []
        first, rest = left[0], left[1:]
        for others in combinations(rest, seats - 1):
            left_budget[0] -= 1
            if left_budget[0] < 0:
                return None
            pod = (first, *others)
            owners = [owner.get(p) for p in pod if owner.get(p) is not None]
            if len(owners) != len(set(owners)):
                continue
            repeats = sum(met[frozenset(pair)] > 0 for pair in combinations(pod, 2))
            if used + repeats > allowed:
                continue
            tail = search([p for p in rest if p not in others], used + repeats)
            if tail is not None:
                return [pod, *tail]
            if left_budget[0] < 0:
                return None
        return None

    return search(players, 0)


# ---- standings ------------------------------------------------------------------------------------------------

def standings(entrants: Sequence[Entrant], results: Iterable[Result], byes: Mapping[int, int] | None = None, *,
              lower_totals_better: bool, buchholz: bool = True) -> list[Standing]:
    """Standings, best first: points, then (``buchholz``: Swiss) the Buchholz score (the sum of the points of every
    opponent met, once per meeting; a bye adds nothing), then head-to-head among the entrants still level (places
    against each other: +1 for each one finished ahead of, -1 behind), then card points (lower better under
    penalty scoring). Entrants equal on every key share a rank; withdrawn entrants are listed with their points."""
    byes = dict(byes or {})
    results = list(results)
    points = _points(results, byes)
    opponents: dict[int, list[int]] = defaultdict(list)
    cards: dict[int, int] = defaultdict(int)
    played: Counter = Counter()
    for result in results:
        for i, player in enumerate(result.players):
            played[player] += 1
            opponents[player] += [p for p in result.players if p != player]
            if result.totals:
                cards[player] += result.totals[i]
    buch = {e.id: (sum(points.get(o, 0.0) for o in opponents[e.id]) if buchholz else 0.0) for e in entrants}
    groups: dict[tuple, list[int]] = defaultdict(list)
    for e in entrants:
        groups[(round(points.get(e.id, 0.0), 9), round(buch[e.id], 9))].append(e.id)
    h2h: dict[int, float] = {}
    for members in groups.values():
        group = set(members)
        for m in members:
            h2h[m] = 0.0
        if len(group) < 2:
            continue
        for result in results:
            seated = [(p, pl) for p, pl in zip(result.players, result.places) if p in group]
            for (a, pa), (b, pb) in combinations(seated, 2):
                if pa != pb:
                    h2h[a] += 1 if pa < pb else -1
                    h2h[b] += 1 if pb < pa else -1
    sign = 1 if lower_totals_better else -1

    def key(e: Entrant) -> tuple:
        return (-round(points.get(e.id, 0.0), 9), -round(buch[e.id], 9), -h2h[e.id], sign * cards[e.id])

    ordered = sorted(entrants, key=lambda e: (key(e), e.seed, e.id))
    out, rank, previous = [], 0, None
    for i, e in enumerate(ordered, start=1):
        if key(e) != previous:
            rank, previous = i, key(e)
        out.append(Standing(id=e.id, rank=rank, points=points.get(e.id, 0.0), buchholz=buch[e.id],
                            head_to_head=h2h[e.id], card_points=cards[e.id], played=played[e.id],
                            byes=byes.get(e.id, 0), withdrawn=e.withdrawn, seed=e.seed))
    return out
