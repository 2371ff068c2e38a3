"""How often a deal reaches the site's ply limit (``Ruleset.ply_limit``, 1,000 plies) under each house strategy.

The limit is a safeguard of this site, not a rule of any source (docs/RULES.md, "The ply limit"): a deal still going
after ``ply_limit`` plies is stopped and scored as blocked. Some rule sets allow deals that never end (drawing and
passing while cards circulate through reshuffles), and random play finds them; this measures how often.

For every table (a preset and a seat count) and every strategy, plays ``--deals`` seeded deals with that strategy
at every seat (seeds ``--seed``, ``--seed + 1``, ...; the first deal of a match seeded so) and prints how many were
cut off, with the 95 % Wilson interval, and the median and longest deal in plies. A progress line goes to stderr.

Usage: ``python benchmarks/ply_limit_bench.py [--tables crazy-eights:2,pagat:2,web-table:2,web-table:3]
[--strategies random,eager,greedy,heuristic,tactician] [--deals 200] [--seed 1]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.strategies_bench import parse_tables, wilson  # noqa: E402
from eights_engine import HOUSE_STRATEGIES, STRATEGIES, MatchState, Ruleset, choose  # noqa: E402


def deal_lengths(strategy: str, preset: str, seats: int, deals: int, seed: int, tick=lambda: None) -> list[int]:
    """The plies of ``deals`` first deals of ``preset`` matches with ``seats`` seats, ``strategy`` at every seat,
    match seeds ``seed``, ``seed + 1``, ...; a deal cut off by the limit counts ``ply_limit`` plies."""
    rules = Ruleset.preset(preset)
    lengths = []
    for i in range(deals):
        match = MatchState.start(rules, seats, seed + i)
        while not match.results:
            seat = match.to_play
            match.apply(choose(strategy, match.view(seat), match.legal_actions(), match.deal.seed, rules))
        lengths.append(match.results[0].plies)
        tick()
    return lengths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="crazy-eights:2,pagat:2,web-table:2,web-table:3",
                        help="comma-separated preset:seats (default crazy-eights:2,pagat:2,web-table:2,web-table:3)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help=f"comma-separated house strategies (default {','.join(STRATEGIES)}; also: "
                        f"{', '.join(s for s in HOUSE_STRATEGIES if s not in STRATEGIES)})")
    parser.add_argument("--deals", type=int, default=200, help="deals per table and strategy (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="first match seed (default 1)")
    args = parser.parse_args(argv)
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    for name in strategies:
        if name not in HOUSE_STRATEGIES:
            parser.error(f"unknown strategy {name!r}: choose from {', '.join(HOUSE_STRATEGIES)}")
    tables = [(preset, seats, Ruleset.preset(preset).ply_limit) for preset, seats in parse_tables(parser, args.tables)]
    if args.deals < 1:
        parser.error(f"--deals must be at least 1, not {args.deals}")

    total, done, started = len(tables) * len(strategies) * args.deals, 0, time.perf_counter()

    def tick() -> None:
        nonlocal done
        done += 1
        if done % 50 == 0 or done == total:
            sys.stderr.write(f"\r{done}/{total} deals  {done / max(time.perf_counter() - started, 1e-9):,.0f}/s  ")
            sys.stderr.write("\n" if done == total else "")
            sys.stderr.flush()

    print(f"deals cut off at the ply limit: {args.deals} first deals per row, match seeds {args.seed}.."
          f"{args.seed + args.deals - 1}, the same strategy at every seat")
    print(f"{'table':<16} {'strategy':<10} {'cut off':>8}  {'share':>6}  {'95 % interval':<15} {'median plies':>12} "
          f"{'longest':>8}")
    for preset, seats, limit in tables:
        for strategy in strategies:
            lengths = deal_lengths(strategy, preset, seats, args.deals, args.seed, tick)
            cut = sum(n >= limit for n in lengths)
            low, high = wilson(cut, len(lengths))
            print(f"{preset + ':' + str(seats):<16} {strategy:<10} {cut:>8}  {cut / len(lengths):>6.1%}  "
                  f"{low:>5.1%}-{high:<8.1%} {statistics.median(lengths):>12.0f} {max(lengths):>8}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
