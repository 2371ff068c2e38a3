"""Engine benchmark: random legal play (one core), and OpenSpiel's ``crazy_eights`` in the same run.

Prints, as medians of ``--repeats`` runs: deals/s and plies/s for complete pagat deals (2 and 4 seats) and complete
matches to 100 (2 seats, ms per match), through the integer fast path (``legal_ids``/``apply_id``) and the dict API
(``legal_actions``/``apply``), and random playouts and determinized rollouts through the compiled fast path
(``eights_engine.fast``: each move chosen inside its loop by SplitMix64); peak memory; and, when ``pyspiel`` is
installed (``pip install open_spiel``), the comparison of ``benchmarks/openspiel_bench.py`` on the configuration
both engines play, with the ratio. Moves are chosen with ``random.Random(seed).choice`` in every loop but the
compiled ones. ``--baseline DIR`` adds another checkout's engine (e.g. ``git worktree add /tmp/base main``) to the
OpenSpiel comparison's interleaved runs (see ``openspiel_bench.load_baseline``), so a change to the engine is
compared with the code before it in one run.
Usage: ``python benchmarks/engine_bench.py [--seconds 2] [--repeats 3] [--baseline DIR]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from eights_engine import Deal, MatchState, Ruleset, fast  # noqa: E402


def play_random(start_state, seconds: float, seed: int, fast: bool) -> tuple[int, int, float]:
    """Play ``start_state(i)`` (a Deal or MatchState for the i-th run) to its end with random legal moves, again
    and again for ``seconds``; returns (games finished, plies, seconds). ``fast``: the integer path."""
    choice = random.Random(seed).choice
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = start_state(seed + games)
        if fast:
            while not state.is_over:
                state.apply_id(choice(state.legal_ids()))
                plies += 1
        else:
            while not state.is_over:
                state.apply(choice(state.legal_actions()))
                plies += 1
        games += 1
    return games, plies, time.perf_counter() - start


def _deals(fast: bool):
    return lambda rules, seats, seconds, seed: play_random(
        lambda s: Deal.start(rules, seats, s), seconds, seed, fast)


def compiled_playouts(start_state, seconds: float, seed: int, pure: bool = False) -> tuple[int, int, float]:
    """Random playouts through ``eights_engine.fast``: ``start_state(i)`` (a FastDeal) played to its end by
    ``playout`` (each move ``SplitMix64(seed).below(n)``, chosen inside the compiled loop), again and again for
    ``seconds``; returns (playouts, plies, seconds)."""
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += start_state(seed + games).playout(seed + games)
        games += 1
    return games, plies, time.perf_counter() - start


def _compiled_deals(rules, seats, seconds, seed):
    dealer = fast.Dealer(rules, seats)
    return compiled_playouts(dealer.deal, seconds, seed)


def rollout_position(rules, seats: int, seed: int = 12345):
    """A position a few plies into a deal (the seat to play searching its move): where determinized rollouts start."""
    deal = fast.Dealer(rules, seats).deal(seed)
    for _ in range(2 * seats):
        deal.apply_id(deal.legal_ids()[0])
    return deal


def _rollouts(rules, seats, seconds, seed):
    """Determinized rollouts: the hidden cards dealt again (``determinize``), then a random playout, each time."""
    position = rollout_position(rules, seats)
    return compiled_playouts(lambda s: position.determinize(position.to_play, s), seconds, seed)


def _matches(fast: bool):
    return lambda rules, seats, seconds, seed: play_random(
        lambda s: MatchState.start(rules, seats, s), seconds, seed, fast)


CASES = [
    ("deals, 2 seats", "fast path", _deals(True), 2),
    ("deals, 2 seats", "dict API", _deals(False), 2),
    ("deals, 4 seats", "fast path", _deals(True), 4),
    ("deals, 4 seats", "dict API", _deals(False), 4),
    ("deals, 2 seats", "compiled", _compiled_deals, 2),
    ("deals, 4 seats", "compiled", _compiled_deals, 4),
    ("rollouts, 2 seats", "compiled", _rollouts, 2),
    ("matches to 100, 2 seats", "fast path", _matches(True), 2),
    ("matches to 100, 2 seats", "dict API", _matches(False), 2),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is printed (default 3)")
    parser.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel comparison")
    parser.add_argument("--baseline", metavar="DIR",
                        help="a checkout whose engine's fast path joins the OpenSpiel comparison's runs")
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    ruleset = Ruleset.preset("pagat")
    print(f"engine benchmark: pagat, random legal play, median of {args.repeats} x {args.seconds:g} s, one core"
          f" (compiled fast path {'built' if fast.COMPILED else 'NOT built: its rows run the pure fallback'})")
    for label, api, fn, seats in CASES:
        units, plies = [], []
        for i in range(args.repeats):
            n, p, t = fn(ruleset, seats, args.seconds, 1 + 1000 * i)
            units.append(n / t)
            plies.append(p / t)
            print(f"  {label} ({api}): run {i + 1}/{args.repeats}", end="\r", file=sys.stderr)
        per = statistics.median(units)
        print(f"{label:<24} {api:<9} {per:>9,.0f} /s {statistics.median(plies):>10,.0f} plies/s "
              f"{1000 / per:>8.3f} ms each")
    tracemalloc.start()  # a separate short pass: tracing slows the engine several times over
    _matches(False)(ruleset, 2, min(args.seconds, 1.0), 7)
    print(f"peak traced memory while playing matches: {tracemalloc.get_traced_memory()[1] / 1e6:.2f} MB")
    tracemalloc.stop()
    if args.no_openspiel:
        return
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel comparison skipped: pyspiel is not installed (pip install open_spiel)")
        return
    from benchmarks.openspiel_bench import run

    result = run(args.seconds, args.repeats, progress=True, baseline=args.baseline)
    print(f"\nvs OpenSpiel crazy_eights {result['openspiel_params']} (ours: {result['our_ruleset']}), "
          f"{result['seats']} seats, median of {args.repeats} interleaved runs"
          + (f" (baseline: the engine of {args.baseline}):" if args.baseline else ":"))
    names = {"openspiel": "OpenSpiel (pyspiel Python loop)", "ours_dict": "ours, dict API", "ours_fast": "ours, fast path",
             "ours_fast_v2": "ours, fast path, v2 dealing", "base_fast": "baseline, fast path",
             "ours_compiled": "ours, compiled playouts", "ours_rollouts": "ours, compiled rollouts"}
    for key, fig in result["figures"].items():
        print(f"  {names[key]:<32} {fig['plies_per_s']:>10,.0f} plies/s {fig['deals_per_s']:>8,.0f} deals/s")
    for key in ("ours_compiled", "ours_rollouts", "ours_fast", "ours_fast_v2", "base_fast", "ours_dict"):
        ratio = result["ratios_vs_openspiel"].get(key)
        if ratio is None:
            continue
        print(f"  ratio {names[key]} / OpenSpiel: {ratio['plies']:.2f}x plies/s, {ratio['deals']:.2f}x deals/s")


if __name__ == "__main__":
    main()
