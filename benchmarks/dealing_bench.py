"""Dealing under engine version 2 against version 1, in one run (issue 20; docs/FAIRNESS.md).

Prints medians of ``--repeats`` interleaved runs (one core, CPU time): deals dealt per second (``Deal.start``, no
play) under version 1 (an int seed: SplitMix64) and version 2 (a 32-byte key: SHA-256 in counter mode), with the
version 2 key derived per deal as a match does (``keys.deal_key``) or given; whole random deals played on the fast
path under both; and the cost of each version 2 derivation alone (us per call): the deal key with and without
contributions, the two commitments and the deal code.
Usage: ``python benchmarks/dealing_bench.py [--seconds 1] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from eights_engine import Deal, Ruleset  # noqa: E402
from eights_engine.keys import deal_key, deal_key_commitment, key_code, secret_commitment  # noqa: E402

SECRET = bytes(range(32))
KEYS = [deal_key(SECRET, n) for n in range(1, 4097)]
CONTRIBUTIONS = [os.urandom(32), os.urandom(32)]


def _per_second(fn, seconds: float) -> float:
    """Calls of ``fn(i)`` per CPU second over about ``seconds``."""
    n, start = 0, time.process_time()
    while True:
        for _ in range(64):
            fn(n)
            n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def _played(deal_of):
    """Play one deal from ``deal_of(i)`` to its end with random legal moves (fast path)."""
    choice = random.Random(7).choice

    def play(i: int) -> None:
        deal = deal_of(i)
        while not deal.is_over:
            deal.apply_id(choice(deal.legal_ids()))
    return play


def cases(rules: Ruleset, seats: int) -> list[tuple[str, object]]:
    return [
        (f"deal, {seats} seats, v1 (int seed)", lambda i: Deal.start(rules, seats, i)),
        (f"deal, {seats} seats, v2 (key given)", lambda i: Deal.start(rules, seats, KEYS[i % len(KEYS)])),
        (f"deal, {seats} seats, v2 (key derived)", lambda i: Deal.start(rules, seats, deal_key(SECRET, 1 + i % 4000))),
        (f"deal played out, {seats} seats, v1", _played(lambda i: Deal.start(rules, seats, i))),
        (f"deal played out, {seats} seats, v2", _played(lambda i: Deal.start(rules, seats, deal_key(SECRET, 1 + i % 4000)))),
    ]


DERIVATIONS = [
    ("keys.deal_key (no contributions)", lambda i: deal_key(SECRET, 1 + i % 4000)),
    ("keys.deal_key (2 contributions)", lambda i: deal_key(SECRET, 1 + i % 4000, CONTRIBUTIONS)),
    ("keys.secret_commitment (2 seats)", lambda i: secret_commitment(SECRET, [i, i + 1])),
    ("keys.deal_key_commitment", lambda i: deal_key_commitment(KEYS[i % len(KEYS)])),
    ("keys.key_code", lambda i: key_code(KEYS[i % len(KEYS)])),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a run (default 1)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs; medians printed (default 5)")
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    rules = Ruleset.preset("pagat")
    rows = cases(rules, 2) + cases(rules, 4)
    samples: dict[str, list[float]] = {label: [] for label, _ in rows + DERIVATIONS}
    for r in range(args.repeats):
        for label, fn in rows + DERIVATIONS:
            samples[label].append(_per_second(fn, args.seconds))
            print(f"  run {r + 1}/{args.repeats}: {label}", end="\033[K\r", file=sys.stderr)
    print(f"dealing, engine version 2 against 1: pagat, median of {args.repeats} interleaved runs x "
          f"{args.seconds:g} CPU s, one core", file=sys.stderr)
    median = {label: statistics.median(v) for label, v in samples.items()}
    for label, _ in rows:
        print(f"{label:<40} {median[label]:>10,.0f} /s {1e6 / median[label]:>9.1f} us each")
    for seats in (2, 4):
        for what in ("deal", "deal played out"):
            v1 = median[f"{what}, {seats} seats, v1" + (" (int seed)" if what == "deal" else "")]
            v2 = median[f"{what}, {seats} seats, v2" + (" (key derived)" if what == "deal" else "")]
            print(f"ratio v2/v1, {what}, {seats} seats: {v2 / v1:.2f}x")
    for label, _ in DERIVATIONS:
        print(f"{label:<40} {1e6 / median[label]:>9.2f} us a call")


if __name__ == "__main__":
    main()
