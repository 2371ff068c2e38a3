"""Engine benchmark: random legal play through the public API (one core).

Prints deals/s and plies/s for complete deals (2 and 4 seats) and complete matches to 100 (2 seats), as medians
of ``--repeats`` runs, plus peak memory. Usage: ``python benchmarks/engine_bench.py [--seconds 2] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine import Deal, MatchState, Ruleset  # noqa: E402
from games.engine.rng import SplitMix64  # noqa: E402


def _random_deals(ruleset: Ruleset, seats: int, seconds: float) -> tuple[int, int, float]:
    rng = SplitMix64(7)
    deals = plies = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        deal = Deal.start(ruleset, seats, seed)
        seed += 1
        while not deal.is_over:
            legal = deal.legal_actions()
            deal.apply(legal[rng.below(len(legal))])
            plies += 1
        deals += 1
    return deals, plies, time.perf_counter() - start


def _random_matches(ruleset: Ruleset, seats: int, seconds: float) -> tuple[int, int, float]:
    rng = SplitMix64(11)
    matches = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = MatchState.start(ruleset, seats, matches)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
            plies += 1
        matches += 1
    return matches, plies, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is printed (default 3)")
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    ruleset = Ruleset.preset("pagat")
    print(f"engine benchmark: pagat, random legal play, median of {args.repeats} x {args.seconds:g} s")
    for label, fn, seats in (("deals, 2 seats", _random_deals, 2), ("deals, 4 seats", _random_deals, 4),
                             ("matches to 100, 2 seats", _random_matches, 2)):
        units, plies = [], []
        for i in range(args.repeats):
            n, p, t = fn(ruleset, seats, args.seconds)
            units.append(n / t)
            plies.append(p / t)
            print(f"  {label}: run {i + 1}/{args.repeats} ...", end="\r", file=sys.stderr)
        per = statistics.median(units)
        print(f"{label:<26} {per:>10,.0f} /s  {statistics.median(plies):>10,.0f} plies/s  "
              f"{1000 / per:>8.3f} ms each")
    tracemalloc.start()  # a separate short pass: tracing slows the engine several times over
    _random_matches(ruleset, 2, min(args.seconds, 1.0))
    print(f"peak traced memory while playing matches: {tracemalloc.get_traced_memory()[1] / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
