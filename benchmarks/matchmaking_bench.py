"""Ladder matchmaking (``tournaments.matchmaking.choose_matches``): what one scheduling tick costs, and how fair the
choice stays over many rounds.

For each ladder size and seat count: ``--rounds`` rounds in which every entry is free, the chooser fills the ladder
(``room`` = entries // seats matches, cap 1) and every chosen match "finishes" at once with a random result rated
by openskill Plackett-Luce (so ratings spread as on a real ladder); the recent window is the last 50 matches, as in
``tournaments.services``. Prints the median time of one tick (the chooser alone, no database), the worst seat
imbalance of any entry (``max |times in a seat - matches / seats|``), the spread of matches played (fewest and most),
and the share of all possible opponent pairs that met.

Usage: ``python benchmarks/matchmaking_bench.py [--sizes 8,32,128] [--seats 2,4,8] [--rounds 60] [--seed 1]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from itertools import combinations

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from openskill.models import PlackettLuce  # noqa: E402

from tournaments.matchmaking import Candidate, choose_matches  # noqa: E402


def run(size: int, seats: int, rounds: int, seed: int) -> dict:
    rng = random.Random(seed)
    model = PlackettLuce()
    ratings = {i: model.rating() for i in range(1, size + 1)}
    strength = {i: rng.gauss(0, 1) for i in ratings}
    seat_counts = {i: Counter() for i in ratings}
    history: list[list[int]] = []
    times = []
    for _ in range(rounds):
        window = history[-50:]
        recent = Counter(i for m in window for i in m)
        met = Counter(pair for m in window for pair in combinations(sorted(m), 2))
        pool = [Candidate(id=i, name=f"e{i:04d}", mu=r.mu, sigma=r.sigma, recent=recent[i],
                          seat_counts=tuple(seat_counts[i][k] for k in range(seats))) for i, r in ratings.items()]
        began = time.perf_counter()
        chosen = choose_matches(pool, seats=seats, room=size // seats, cap=1, met=met)
        times.append(time.perf_counter() - began)
        for match in chosen:
            history.append(match)
            for k, i in enumerate(match):
                seat_counts[i][k] += 1
            perf = {i: strength[i] + rng.gauss(0, 1) for i in match}
            order = sorted(match, key=lambda i: -perf[i])
            new = model.rate([[ratings[i]] for i in match], ranks=[order.index(i) + 1 for i in match])
            for i, (r,) in zip(match, new):
                ratings[i] = r
    played = {i: sum(c.values()) for i, c in seat_counts.items()}
    imbalance = max(abs(seat_counts[i][k] - played[i] / seats) for i in ratings for k in range(seats))
    pairs = {pair for m in history for pair in combinations(sorted(m), 2)}
    return {"tick_ms": statistics.median(times) * 1000, "imbalance": imbalance, "fewest": min(played.values()),
            "most": max(played.values()), "pairs": len(pairs) / (size * (size - 1) / 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,32,128")
    parser.add_argument("--seats", default="2,4,8")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"matchmaking: {args.rounds} rounds per row, every entry free each round, cap 1, seed {args.seed}")
    print(f"{'entries':>7} {'seats':>5} {'tick ms (median)':>16} {'worst seat imbalance':>20} "
          f"{'matches fewest-most':>19} {'pairs met':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        for seats in (int(s) for s in args.seats.split(",")):
            if seats > size:
                continue
            r = run(size, seats, args.rounds, args.seed)
            print(f"{size:>7} {seats:>5} {r['tick_ms']:>16.2f} {r['imbalance']:>20.2f} "
                  f"{r['fewest']:>9}-{r['most']:<9} {r['pairs']:>9.0%}")


if __name__ == "__main__":
    main()
