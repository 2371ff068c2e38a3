"""Playing now benchmark (issue 13): ``tournaments.selectors.matches_playing_now`` (the home page's and a ladder page's
"Playing now", the featured match at ``/watch/``) with many running matches, on PostgreSQL.

Creates a throwaway database (``eights_playing_now_bench``, dropped at the end unless ``--keep``), migrates it and
generates, for each size of ``--running``, that many running two-seat matches among 400 players (200 entries on each
of two ladders; 70% of the matches are ladder matches, the rest casual), plus 10x as many finished ones. Times (median
of ``--runs``) the strongest 10 of all running matches and of one ladder's (read now, not from the cache), the home
page through Django's test client (its list from the cache after the first run, as served), and the home page's
ladder counts (``ladder_list``, which was there before), and counts the queries of each.

Usage: ``python benchmarks/playing_now_bench.py [--running 1000 10000] [--runs 7] [--keep]``; needs PostgreSQL on
127.0.0.1 (or ``BENCH_DATABASE_URL``, a URL whose database may be created and dropped).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_playing_now_bench")
os.environ["DATABASE_URL"] = URL
os.environ.pop("CELERY_BROKER_URL", None)
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ["DEBUG"] = "false"
os.environ.setdefault("SECRET_KEY", "playing-now-bench-" + "x" * 40)


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql)


def _database(create: bool) -> None:
    name = URL.rsplit("/", 1)[1]
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if create:
        _admin(f'CREATE DATABASE "{name}"')


def _players_and_ladders():
    from eights_engine import Ruleset
    from games.models import Player
    from tournaments.models import Ladder, LadderEntry

    rng = random.Random(1)
    players = Player.objects.bulk_create([Player(name=f"p{i}", kind=Player.Kind.HOUSE, strategy="random")
                                          for i in range(400)])
    ladders = [Ladder.objects.create(name=f"L{i}", slug=f"l{i}", preset="pagat",
                                     ruleset=Ruleset.preset("pagat").to_dict()) for i in range(2)]
    LadderEntry.objects.bulk_create([LadderEntry(ladder=ladders[i % 2], player=p, ordinal=rng.uniform(-5, 40))
                                     for i, p in enumerate(players)])
    return players, ladders


def _matches(count: int, status: str, players, ladders, rng) -> None:
    from eights_engine import Ruleset
    from games.models import Match, Seat
    from tournaments.models import LadderMatch

    ruleset = Ruleset.preset("pagat").to_dict()
    for start in range(0, count, 5000):
        size = min(5000, count - start)
        made = Match.objects.bulk_create([Match(ruleset=ruleset, preset="pagat", seat_count=2, seed=rng.randrange(2**40),
                                                engine_version="1", status=status, ply_count=rng.randrange(300))
                                          for _ in range(size)])
        seats, links = [], []
        for match in made:
            ladder = rng.randrange(2)
            pair = rng.sample([p for i, p in enumerate(players) if i % 2 == ladder][:200], 2)
            seats += [Seat(match=match, index=i, player=p) for i, p in enumerate(pair)]
            if rng.random() < 0.7:
                links.append(LadderMatch(ladder=ladders[ladder], match=match))
        Seat.objects.bulk_create(seats)
        LadderMatch.objects.bulk_create(links)


def _time(fn, runs: int) -> tuple[float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    for _ in range(runs):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            fn()
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--running", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    _database(create=True)
    try:
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.test import Client

        from games.models import Match
        from tournaments.selectors import ladder_list, matches_playing_now

        call_command("migrate", verbosity=0)
        players, ladders = _players_and_ladders()
        rng = random.Random(2)
        client = Client()
        made = 0
        print(f"{'running':>8} {'finished':>9}  {'all, top 10':>12} {'one ladder':>11} {'home page':>10}  {'ladder counts':>13}  (ms, median "
              f"of {args.runs}; queries; the home page with its playing-now list cached "
              f"{settings.PLAYING_NOW_CACHE_SECONDS:g} s)")
        for running in sorted(args.running):
            _matches(running - made, Match.Status.RUNNING, players, ladders, rng)
            _matches((running - made) * 10, Match.Status.FINISHED, players, ladders, rng)
            made = running
            from django.db import connection

            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            every = _time(lambda: matches_playing_now(limit=10, fresh=True), args.runs)
            one = _time(lambda: matches_playing_now(ladder=ladders[0], limit=10, fresh=True), args.runs)
            counts = _time(lambda: list(ladder_list()), args.runs)
            home = _time(lambda: client.get("/"), args.runs)
            print(f"{running:>8,} {running * 10:>9,}  {every[0]:>8.1f} ({every[1]}) {one[0]:>7.1f} ({one[1]}) "
                  f"{home[0]:>6.1f} ({home[1]})  {counts[0]:>6.1f} ({counts[1]})")
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            _database(create=False)


if __name__ == "__main__":
    main()
