"""Benchmark of ``manage.py verify_matches``: finished matches (and plies) verified per second on PostgreSQL.

Creates its own database ``eights_verify_bench`` afresh (and drops it at the end), stores
``--matches`` finished two-seat pagat matches to 100 between house bots (tests/support/stored_matches.py: played
in-process, rows written in bulk, with salts and commitments), then times, ``--repeats`` times each and in turn:

* ``verify``: what the command does (``verify_matches``: read in chunks + replay + every check), progress bar off;
* ``read``: the reading alone (``games.matches.exports.match_exports``: four queries a chunk, records built);
* ``replay``: the checking alone (``eights_engine.record.verify_record`` over the same records held in memory).

Prints medians, the ratio of the parts, the command's own summary line once, and the peak Python memory
(tracemalloc) of one verify of all matches against one of a single chunk's worth and one of half of them (flat
memory: about the same).
Usage: ``python benchmarks/verify_bench.py [--matches 2000] [--repeats 5] [--chunk 200]``; needs PostgreSQL on
127.0.0.1 (or VERIFY_BENCH_DATABASE_URL).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
URL = os.environ.get("VERIFY_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_verify_bench")
os.environ["DATABASE_URL"] = URL
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")


def _fresh_database(create: bool = True) -> None:
    import psycopg

    name = URL.rsplit("/", 1)[1]
    with psycopg.connect(URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=2000, help="matches stored (default 2000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each part (default 5)")
    parser.add_argument("--chunk", type=int, default=200, help="matches read per chunk (default 200)")
    args = parser.parse_args()
    if args.matches < 10 or args.repeats < 1 or args.chunk < 1:
        parser.error("--matches is 10 or more, --repeats and --chunk 1 or more")
    _fresh_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from eights_engine import Ruleset
    from eights_engine.record import verify_record
    from games.models import Match, Move
    from games.matches.exports import match_exports, matches_for_export
    from games.services import player_house_create
    from stored_matches import store_house_matches
    from tournaments.management.commands.verify_matches import verify_matches

    bots = [player_house_create(name=f"bench-{s}", strategy=s) for s in ("heuristic", "greedy", "eager", "random")]
    ruleset = Ruleset.preset("pagat")
    started = time.perf_counter()
    per_pair = args.matches // 4
    for i in range(4):  # every strategy meets the next one (the random strategy's deals are long: ~340 plies)
        count = per_pair if i < 3 else args.matches - 3 * per_pair
        store_house_matches(players=[bots[i], bots[(i + 1) % 4]], ruleset=ruleset, preset="pagat",
                            seeds=range(1000 * (i + 1), 1000 * (i + 1) + count))
    stored = time.perf_counter() - started
    plies = Move.objects.count()
    print(f"verify_matches benchmark: {args.matches} finished two-seat pagat matches to 100 (house bots: heuristic, "
          f"greedy, eager, random in pairs), {plies:,} plies, PostgreSQL, chunks of {args.chunk}; median of "
          f"{args.repeats} runs (stored in {stored:.1f} s)")
    matches = matches_for_export()
    records = list(match_exports(matches=matches, chunk_size=args.chunk))

    def verify() -> None:
        report = verify_matches(matches, chunk=args.chunk)
        assert not report.mismatches and report.checked == args.matches, report.summary()

    def read() -> None:
        assert sum(1 for _ in match_exports(matches=matches, chunk_size=args.chunk)) == args.matches

    def replay() -> None:
        for record in records:
            verify_record(record)

    parts = {"verify (read + replay)": verify, "read (match_exports)": read, "replay (verify_record)": replay}
    times: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(args.repeats):
        for name, run in parts.items():  # interleaved: drifting load hits every part alike
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    for name, median in medians.items():
        print(f"  {name:<24} {args.matches / median:>9,.0f} matches/s  {plies / median:>11,.0f} plies/s  "
              f"({median:.2f} s; runs {min(times[name]):.2f} to {max(times[name]):.2f} s)")
    total = medians["verify (read + replay)"]
    print(f"  share of verify: read {medians['read (match_exports)'] / total:.0%}, "
          f"replay {medians['replay (verify_record)'] / total:.0%}")
    out = io.StringIO()
    call_command("verify_matches", "--no-progress", "--chunk", str(args.chunk), stdout=out)
    print("  the command: " + out.getvalue().strip().splitlines()[-1])
    records.clear()  # the memory runs below start without them
    peaks = {}
    first_chunk = list(matches.values_list("pk", flat=True)[:args.chunk])
    half = list(matches.values_list("pk", flat=True)[:args.matches // 2])
    for label, subset in (("one chunk", matches.filter(pk__in=first_chunk)), ("half", matches.filter(pk__in=half)),
                          ("all", matches)):
        tracemalloc.start()
        verify_matches(subset, chunk=args.chunk)
        peaks[label] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    print(f"  peak traced memory of one verify: {peaks['all']:.1f} MB for all {args.matches} matches, "
          f"{peaks['half']:.1f} MB for {len(half)}, {peaks['one chunk']:.1f} MB for one chunk ({len(first_chunk)})")
    assert Match.objects.count() == args.matches
    from django.db import connections

    connections.close_all()
    _fresh_database(create=False)  # leaves nothing behind


if __name__ == "__main__":
    main()
