"""The cost of analysing a finished match (``eights_engine.analysis.analyse``, what the ``analyse_match`` task runs).

Plays ``--matches`` seeded matches of house strategies (``--players``, one per seat) under ``--table``, then analyses
each one's record with ``--samples`` deals a decision and prints, per match and as medians: the CPU time of the
analysis (s, this process's), the decisions weighed (those with two or more legal actions), the deals, and the ms of
CPU per decision (par included). A progress line goes to stderr.

Usage: ``python benchmarks/analysis_bench.py [--table pagat:2] [--players tactician,heuristic] [--matches 10]
[--samples 512] [--seed 1]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.strategies_bench import parse_tables  # noqa: E402
from eights_engine import HOUSE_STRATEGIES, MatchState, Ruleset, choose, fast  # noqa: E402
from eights_engine.analysis import ANALYSIS_SAMPLES, analyse  # noqa: E402


def played(rules: Ruleset, seats: int, players: list[str], seed: int) -> MatchState:
    """A finished match of ``players`` (cycled over the seats) from match seed ``seed``."""
    match = MatchState.start(rules, seats, seed)
    while not match.is_over:
        seat = match.to_play
        match.apply(choose(players[seat % len(players)], match.view(seat), match.legal_actions(), match.deal.seed,
                           rules))
    return match


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", default="pagat:2", help="preset:seats (default pagat:2)")
    parser.add_argument("--players", default="tactician,heuristic", help="house strategies, one per seat, cycled")
    parser.add_argument("--matches", type=int, default=10, help="matches to analyse (default 10)")
    parser.add_argument("--samples", type=int, default=ANALYSIS_SAMPLES, help="deals a decision (default: the "
                        f"expert's, {ANALYSIS_SAMPLES})")
    parser.add_argument("--seed", type=int, default=1, help="first match seed (default 1)")
    args = parser.parse_args(argv)
    (preset, seats), = parse_tables(parser, args.table)
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if not players or any(p not in HOUSE_STRATEGIES for p in players):
        parser.error(f"--players: house strategies from {', '.join(HOUSE_STRATEGIES)}")
    if args.matches < 1 or args.samples < 1:
        parser.error("--matches and --samples must be at least 1")
    rules = Ruleset.preset(preset)
    print(f"analysis of {args.matches} matches of {preset}:{seats} ({', '.join(players)}), {args.samples} samples a "
          f"decision; compiled fast path {'built' if fast.COMPILED else 'NOT built'}")
    costs, per_decision, decisions, deals = [], [], [], []
    for i in range(args.matches):
        match = played(rules, seats, players, args.seed + i)
        started = time.process_time()
        result = analyse(match.record(), samples=args.samples)
        cost = time.process_time() - started
        weighed = sum(result["totals"]["decisions"])
        costs.append(cost)
        decisions.append(weighed)
        deals.append(len(result["deals"]))
        per_decision.append(1000 * cost / max(1, weighed))
        print(f"  match {i + 1}: {cost:6.2f} s CPU, {weighed} decisions, {len(result['deals'])} deals, "
              f"{per_decision[-1]:.1f} ms a decision")
        print(f"{i + 1}/{args.matches}", end="\r", file=sys.stderr)
    print(f"median: {statistics.median(costs):.2f} s CPU a match (max {max(costs):.2f}), "
          f"{statistics.median(decisions):.0f} decisions, {statistics.median(deals):.0f} deals, "
          f"{statistics.median(per_decision):.1f} ms a decision (par included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
