"""Search from a seat's information against the house strategies: ``eights_engine.search.pimc_action`` (flat Monte
Carlo over determinized deals, playouts in the compiled fast path) at one seat, a house strategy at the others.

For each table (``--tables preset:seats``) it plays ``--matches`` seeded matches (seed ``--seed`` + i; the search
sits at seat i % seats) and prints its win share with a 95 % Wilson interval, the points per deal of its seat and
of the others, and the time per decision it searched (median and 95th percentile, ms; a single legal action is
played at once and not counted). Every decision sees only the seat's view and the ruleset.

Usage: ``python benchmarks/search_bench.py [--tables pagat:2,web-table:2] [--against tactician] [--matches 100]
[--samples 512] [--policy heuristic] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.strategies_bench import parse_tables, tally, wilson  # noqa: E402
from eights_engine import STRATEGIES, MatchState, Ruleset, choose, fast  # noqa: E402
from eights_engine.search import pimc_action  # noqa: E402

POLICIES = {"uniform": fast.UNIFORM, "eager": fast.EAGER, "heuristic": fast.HEURISTIC, "tactical": fast.TACTICAL}


def play_table(preset: str, seats: int, opponent: str, matches: int, seed: int, samples: int, policy: int,
               tick=lambda: None, others_weight: float = 1.0) -> dict:
    """``matches`` matches with the search at seat ``i % seats`` of match i and ``opponent`` elsewhere: wins
    (fractional for shared firsts), deals, the points of the search's seat and of the others, and the ms of each
    searched decision."""
    rules = Ruleset.preset(preset)
    wins = 0.0
    deals = mine = theirs = 0
    times: list[float] = []
    for i in range(matches):
        me = i % seats
        match = MatchState.start(rules, seats, seed + i)
        while not match.is_over:
            seat = match.to_play
            if seat == me:
                legal = list(match.deal.legal_ids())
                start = time.perf_counter()
                action = pimc_action(match.view(seat), rules, legal, samples=samples, seed=match.deal.ply + 7919 * i,
                                     policy=policy, others_weight=others_weight)
                if len(legal) > 1:
                    times.append((time.perf_counter() - start) * 1000)
                match.apply_id(action)
            else:
                match.apply(choose(opponent, match.view(seat), match.legal_actions(), match.deal.seed))
        won, points, their_points, played = tally(match, me)
        wins, mine, theirs, deals = wins + won, mine + points, theirs + their_points, deals + played
        tick()
    return {"wins": wins, "deals": deals, "mine": mine, "theirs": theirs, "times": times}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="pagat:2,web-table:2", help="comma-separated preset:seats")
    parser.add_argument("--against", default="tactician", help=f"the house strategy at the other seats (one of: "
                        f"{', '.join(STRATEGIES)})")
    parser.add_argument("--matches", type=int, default=100, help="matches per table (default 100)")
    parser.add_argument("--samples", type=int, default=512, help="determinized deals per decision (default 512)")
    parser.add_argument("--policy", default="heuristic", choices=sorted(POLICIES), help="the playout policy")
    parser.add_argument("--seed", type=int, default=1, help="first match seed (default 1)")
    parser.add_argument("--others-weight", type=float, default=1.0, help="weight of the others' average points")
    args = parser.parse_args(argv)
    if args.against not in STRATEGIES:
        parser.error(f"--against {args.against!r}: choose one of {', '.join(STRATEGIES)}")
    if args.matches < 1 or args.samples < 1:
        parser.error("--matches and --samples must be at least 1")
    tables = parse_tables(parser, args.tables)
    print(f"search (pimc, {args.samples} samples, {args.policy} playouts; compiled fast path "
          f"{'built' if fast.COMPILED else 'NOT built'}) against {args.against}, {args.matches} matches a table")
    for preset, seats in tables:
        done = [0]

        def tick() -> None:
            done[0] += 1
            print(f"  {preset}:{seats} {done[0]}/{args.matches}", end="\r", file=sys.stderr)

        row = play_table(preset, seats, args.against, args.matches, args.seed, args.samples, POLICIES[args.policy],
                         tick, args.others_weight)
        low, high = wilson(row["wins"], args.matches)
        times = sorted(row["times"])
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0
        print(f"{preset}:{seats:<2} wins {row['wins']:>6.1f}/{args.matches} = {row['wins'] / args.matches:.3f} "
              f"(95% {low:.3f}-{high:.3f}); points a deal: search {row['mine'] / row['deals']:.1f}, others "
              f"{row['theirs'] / row['deals'] / (seats - 1):.1f} each; ms a decision: median "
              f"{statistics.median(times) if times else 0:.1f}, p95 {p95:.1f} ({len(times)} decisions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
