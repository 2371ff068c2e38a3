"""A/B of two copies of the engine's fast path: this checkout's against another's, in CPU time, interleaved.

For an engine change that must not cost speed (issue 9: "no slower"). Each round plays random legal deals for
``--seconds`` of CPU time (``time.process_time``, so other processes on a shared machine count less than in wall
time) with engine A, then with engine B (the order alternates by round), on five configurations: the OpenSpiel
comparison's ruleset (2 seats), pagat (4), crazy-eights (3), web-table (4) and points-game with every action card (4).
Prints per configuration the median plies/s of each and the median of the per-round ratios B/A.
Usage: ``python benchmarks/engine_ab.py BASELINE_DIR [--rounds 8] [--seconds 1]`` (A = BASELINE_DIR's engine, e.g.
``git worktree add /tmp/base main``; B = this checkout's).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import eights_engine as ours  # noqa: E402
from benchmarks.openspiel_bench import OUR_RULES, load_baseline  # noqa: E402

CONFIGS = [
    ("OpenSpiel comparison, 2 seats", "pagat", OUR_RULES, 2),
    ("pagat, 4 seats", "pagat", {}, 4),
    ("crazy-eights, 3 seats", "crazy-eights", {}, 3),
    ("web-table, 4 seats", "web-table", {}, 4),
    ("points-game + action cards, 4", "points-game",
     {"twos": "stack", "skip_rank": "J", "reverse_rank": "A", "queen_of_spades_draw": 5}, 4),
]


def plies_per_cpu_second(engine, preset: str, overrides: dict, seats: int, seconds: float, seed: int) -> float:
    rules = engine.Ruleset.preset(preset, **overrides)
    choice = random.Random(seed).choice
    deals = plies = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        deal = engine.Deal.start(rules, seats, seed + deals)
        while deal.result is None:
            deal.apply_id(choice(deal.legal_ids()))
            plies += 1
        deals += 1
    return plies / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("baseline", metavar="BASELINE_DIR", help="the checkout whose engine is A")
    parser.add_argument("--rounds", type=int, default=8, help="interleaved rounds per configuration (default 8)")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per engine per round (default 1)")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be at least 1 and --seconds positive")
    base = load_baseline(args.baseline)
    print(f"A = {args.baseline}, B = this checkout; fast path, random legal play, {args.rounds} rounds x "
          f"{args.seconds:g} CPU s each")
    for label, preset, overrides, seats in CONFIGS:
        a, b, ratios = [], [], []
        for i in range(args.rounds):
            order = [(base, a), (ours, b)] if i % 2 == 0 else [(ours, b), (base, a)]
            for engine, out in order:
                out.append(plies_per_cpu_second(engine, preset, overrides, seats, args.seconds, 1 + 1000 * i))
            ratios.append(b[-1] / a[-1])
        print(f"{label:<31} A {statistics.median(a):>9,.0f}  B {statistics.median(b):>9,.0f} plies/s   "
              f"B/A {statistics.median(ratios):.3f} (rounds {min(ratios):.3f} to {max(ratios):.3f})", flush=True)


if __name__ == "__main__":
    main()
