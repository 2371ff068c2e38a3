"""Swiss pairing time (``tournaments.formats.swiss_pairing``, pure Python, one core): fields of several sizes and
seat counts, random results round after round; prints per field the median and the slowest round's pairing time
and the rematches the last round needed. Run: ``.venv/bin/python -m benchmarks.swiss_pairing``."""

from __future__ import annotations

import random
import statistics
import time

from tournaments.formats import Entrant, Result, places_from_scores, swiss_pairing

FIELDS = [(64, 2, 8), (30, 2, 6), (12, 2, 11), (41, 4, 6), (33, 3, 10), (9, 3, 6), (16, 8, 4)]


def main() -> None:
    print(f"{'entrants':>8} {'seats':>5} {'rounds':>6} {'median ms':>9} {'slowest ms':>10} {'rematches':>9}")
    for n, seats, rounds in FIELDS:
        rng = random.Random(n * 100 + seats)
        entrants = [Entrant(i, i) for i in range(1, n + 1)]
        results, byes, times = [], {}, []
        for r in range(rounds):
            began = time.perf_counter()
            pairing = swiss_pairing(entrants, results, byes, seats)
            times.append((time.perf_counter() - began) * 1000)
            for b in pairing.byes:
                byes[b] = byes.get(b, 0) + 1
            for pod in pairing.pods:
                places = tuple(places_from_scores([(rng.random(),) for _ in pod]))
                results.append(Result(pod, places, tuple(0 for _ in pod), r + 1))
        print(f"{n:>8} {seats:>5} {rounds:>6} {statistics.median(times):>9.1f} {max(times):>10.1f} "
              f"{pairing.rematches:>9}")


if __name__ == "__main__":
    main()
