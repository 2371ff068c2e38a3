"""House strategies against each other: one strategy against each of the others over many seeded matches.

For every table (a preset and a seat count) and every opponent, plays ``--matches`` complete matches with match seeds
``--seed``, ``--seed + 1``, ...: the strategy under test takes one seat and the opponent strategy all the others, and
the seat it takes turns round match by match (seat ``i % seats`` in match ``i``), so the first-seat advantage (seat 0
leads the first deal) is spread evenly. The same seeds are used for every opponent, so the rows deal the same cards.

Prints per row: the strategy's share of first places (a shared first place counts as 1/k of a win for each of the
k tied seats) with its 95 % Wilson score interval, the fair share (1/seats), and the mean points per deal of the
strategy's seat and of an opponent seat (under the penalty scoring of ``pagat`` and ``web-table``: penalty points,
lower is better). A progress line goes to stderr.

Usage: ``python benchmarks/strategies_bench.py [--strategy tactician] [--against heuristic,greedy,eager,random]
[--tables pagat:2,web-table:2,web-table:3] [--matches 400] [--seed 1]`` (an opponent ``a+b`` seats a and b in turn
at the other seats). With ``--strategy eager`` (a stand-in for a
beginner, who plays the first card that fits) it shows which house strategies a beginner's guest table may seat
(``eights_engine.tactics.GUEST_OPPONENTS``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from eights_engine import HOUSE_STRATEGIES, MatchState, Ruleset, choose  # noqa: E402


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95 % by default) of a proportion ``successes / n``; ``successes`` may be
    fractional (shared first places). Returns (low, high) as fractions; ``ValueError`` when ``n`` is not positive."""
    if n <= 0:
        raise ValueError(f"n must be at least 1, not {n}")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_tables(parser: argparse.ArgumentParser, text: str) -> list[tuple[str, int]]:
    """``--tables``' value, comma-separated ``preset:seats`` (seats default 2), as (preset, seats) pairs; a bad
    preset or a seat count the preset does not allow ends the program with ``parser.error`` saying which."""
    tables = []
    for item in text.split(","):
        preset, _, seats = item.strip().partition(":")
        try:
            rules = Ruleset.preset(preset)
            seats = int(seats or 2)
        except ValueError as exc:
            parser.error(f"--tables {item!r}: {exc}")
        if not rules.seats_min <= seats <= rules.seats_max:
            parser.error(f"--tables {item!r}: {preset} seats {rules.seats_min} to {rules.seats_max} players")
        tables.append((preset, seats))
    return tables


def play_table(strategy: str, opponent: str, preset: str, seats: int, matches: int, seed: int,
               tick=lambda: None) -> dict:
    """Play ``matches`` matches of ``preset`` with ``seats`` seats: ``strategy`` at seat ``i % seats`` of match i,
    ``opponent`` elsewhere (``"a+b"``: strategies a and b take the other seats in turn, starting left of the
    strategy). Returns wins (fractional), deals, and the points summed over deals of the strategy's seat and of all
    opponent seats."""
    rules = Ruleset.preset(preset)
    others = opponent.split("+")
    wins = 0.0
    deals = 0
    mine = theirs = 0
    for i in range(matches):
        me = i % seats
        names = [others[(s - me - 1) % seats % len(others)] for s in range(seats)]
        names[me] = strategy
        match = MatchState.start(rules, seats, seed + i)
        while not match.is_over:
            seat = match.to_play
            match.apply(choose(names[seat], match.view(seat), match.legal_actions(), match.deal.seed, rules))
        won, points, their_points, played = tally(match, me)
        wins, mine, theirs, deals = wins + won, mine + points, theirs + their_points, deals + played
        tick()
    return {"wins": wins, "deals": deals, "mine": mine, "theirs": theirs}


def tally(match: MatchState, me: int) -> tuple[float, int, int, int]:
    """What a finished match counts for seat ``me``: its win (a share of a first place tied with others), its points
    over the deals, the other seats' points, and the deals played."""
    firsts = [s for s, place in enumerate(match.standings) if place == 1]
    won = 1 / len(firsts) if me in firsts else 0.0
    mine = sum(result.points[me] for result in match.results)
    theirs = sum(p for result in match.results for s, p in enumerate(result.points) if s != me)
    return won, mine, theirs, len(match.results)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", default="tactician", help="the strategy under test (default tactician)")
    parser.add_argument("--against", default="", help="comma-separated opponents (default: every other strategy); "
                        "a+b seats strategies a and b in turn at the other seats")
    parser.add_argument("--tables", default="pagat:2,web-table:2,web-table:3",
                        help="comma-separated preset:seats (default pagat:2,web-table:2,web-table:3)")
    parser.add_argument("--matches", type=int, default=400, help="matches per table and opponent (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="first match seed (default 1)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.strategy not in HOUSE_STRATEGIES:
        parser.error(f"unknown strategy {args.strategy!r}: choose one of {', '.join(HOUSE_STRATEGIES)}")
    against = [n.strip() for n in args.against.split(",") if n.strip()] or [
        n for n in HOUSE_STRATEGIES if n != args.strategy]
    for name in (n for spec in against for n in spec.split("+")):
        if name not in HOUSE_STRATEGIES:
            parser.error(f"unknown strategy {name!r} in --against: choose from {', '.join(HOUSE_STRATEGIES)}")
    tables = parse_tables(parser, args.tables)
    if args.matches < 1:
        parser.error(f"--matches must be at least 1, not {args.matches}")

    total = len(tables) * len(against) * args.matches
    done = 0
    started = time.perf_counter()

    def tick() -> None:
        nonlocal done
        done += 1
        if done % 20 == 0 or done == total:
            rate = done / max(time.perf_counter() - started, 1e-9)
            sys.stderr.write(f"\r{done}/{total} matches  {rate:,.1f}/s  ")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    print(f"{args.strategy} against house strategies: {args.matches} matches per row, seeds {args.seed}.."
          f"{args.seed + args.matches - 1}, its seat rotated match by match; wins: share of first places, 95 % "
          f"Wilson interval; points: mean per deal (penalty scoring: lower is better)")
    print(f"{'table':<18} {'opponent':<16} {'wins':>7}  {'95 % interval':<15} {'fair':>5}  "
          f"{'points/deal: ' + args.strategy:>24} {'opponent':>9}  deals/match")
    for preset, seats in tables:
        for opponent in against:
            row = play_table(args.strategy, opponent, preset, seats, args.matches, args.seed, tick)
            low, high = wilson(row["wins"], args.matches)
            deals = max(row["deals"], 1)
            sys.stderr.write("\r" + " " * 40 + "\r")
            print(f"{preset + ' ' + str(seats) + ' seats':<18} {opponent:<16} {row['wins'] / args.matches:7.1%}  "
                  f"{low:6.1%} - {high:6.1%}  {1 / seats:5.0%}  {row['mine'] / deals:24.1f} "
                  f"{row['theirs'] / deals / (seats - 1):9.1f}  {row['deals'] / args.matches:11.1f}", flush=True)
    print(f"{total} matches in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
