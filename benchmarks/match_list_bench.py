"""Match list benchmark (issue 11, item 1): ``GET /api/matches/`` at 100,000 matches on PostgreSQL.

Creates a throwaway database (``eights_match_list_bench``, dropped at the end unless ``--keep``), migrates it and
generates ``--matches`` matches with ``bulk_create`` (showing progress): seats of 2 to 4 players drawn from 4 house
bots, 40 bots and 400 people (so a house bot sits in about half the matches and a person in a few dozen), 8
presets, 97% finished, 2% aborted, 1% running, two ladders holding 60% of them, creation times spread over a year
in id order. Deals and moves are not generated: the list reads only matches, seats, players and ladders.

Then, for each filter, times the request through Django's test client (filter check, keyset query, seats' prefetch,
serialization; median of ``--runs``) for the first page and for a deep page (a cursor half-way down the filtered
list), the same deep page cut by OFFSET (what a page-number paginator does) for the ratio, and prints the query plan
(``EXPLAIN ANALYZE``) of each deep page's main query, which shows the index it walks.

Usage: ``python benchmarks/match_list_bench.py [--matches 100000] [--runs 7] [--keep]``; needs PostgreSQL on
127.0.0.1 (or ``BENCH_DATABASE_URL``, a URL whose database may be created and dropped).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_match_list_bench")
os.environ["DATABASE_URL"] = URL
os.environ.pop("CELERY_BROKER_URL", None)
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ["DEBUG"] = "false"  # as deployed (DEBUG keeps every query's text)
os.environ.setdefault("SECRET_KEY", "match-list-bench-" + "x" * 40)


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql)


def _database(create: bool) -> None:
    name = URL.rsplit("/", 1)[1]
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if create:
        _admin(f'CREATE DATABASE "{name}"')


def _progress(done: int, total: int, started: float) -> None:
    print(f"\r  generated {done:,}/{total:,} matches ({time.perf_counter() - started:.0f} s)", end="",
          file=sys.stderr, flush=True)


def generate(total: int, batch: int = 5000) -> dict:
    """``total`` matches (see the module docstring); returns the names the timings filter by."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from eights_engine import PRESETS, Ruleset
    from games.models import Match, Player, Seat
    from tournaments.models import Ladder, LadderMatch

    rng = random.Random(11)
    house = [Player.objects.create(name=f"House {s}", kind=Player.Kind.HOUSE, strategy=s)
             for s in ("heuristic", "greedy", "eager", "random")]
    owner = get_user_model().objects.create_user("bench-owner")
    bots = Player.objects.bulk_create(Player(name=f"Bot {i}", kind=Player.Kind.BOT, user=owner) for i in range(40))
    people = Player.objects.bulk_create(Player(name=f"Person {i}", kind=Player.Kind.HUMAN) for i in range(400))
    ladders = [Ladder.objects.create(name=f"Ladder {i}", slug=f"ladder-{i}", preset="pagat",
                                     ruleset=Ruleset.preset("pagat").to_dict()) for i in range(2)]
    presets = sorted(PRESETS)
    rulesets = {p: Ruleset.preset(p) for p in presets}
    start = dt.datetime(2025, 12, 1, tzinfo=dt.timezone.utc)
    step = dt.timedelta(days=365) / total
    started = time.perf_counter()
    made = 0
    while made < total:
        n = min(batch, total - made)
        rows, seat_lists = [], []
        for i in range(made, made + n):
            preset = presets[i % len(presets)] if rng.random() < 0.4 else "pagat"
            ruleset = rulesets[preset]
            seats = max(ruleset.seats_min, min(ruleset.seats_max, rng.choice((2, 2, 3, 4))))
            roll = rng.random()
            status = "running" if roll < 0.01 else "aborted" if roll < 0.03 else "finished"
            when = start + step * i
            players = [rng.choice(house)] + rng.sample(bots + people, seats - 1)
            totals = [rng.randrange(0, 150) for _ in range(seats)]
            rows.append(Match(ruleset=ruleset.to_dict(), preset=preset, seat_count=seats, seed=rng.getrandbits(40),
                              engine_version="bench", status=status, deal_number=rng.randrange(1, 12),
                              ply_count=rng.randrange(20, 2000), totals=totals,
                              finished_at=None if status == "running" else when + dt.timedelta(minutes=5)))
            seat_lists.append((when, players, totals))
        Match.objects.bulk_create(rows)
        Seat.objects.bulk_create(Seat(match=m, index=k, player=p, total=t,
                                      place=k + 1 if m.status == "finished" else None)
                                 for m, (_w, players, totals) in zip(rows, seat_lists)
                                 for k, (p, t) in enumerate(zip(players, totals)))
        LadderMatch.objects.bulk_create(LadderMatch(ladder=ladders[0] if rng.random() < 0.5 else ladders[1], match=m)
                                        for m in rows if rng.random() < 0.6)
        with connection.cursor() as cursor:  # auto_now_add ignores given values: set the spread afterwards
            cursor.execute("UPDATE games_match SET created_at = %s::timestamptz + (id - %s) * %s::interval "
                           "WHERE id BETWEEN %s AND %s",
                           [start, rows[0].pk - made, step, rows[0].pk, rows[-1].pk])
        made += n
        _progress(made, total, started)
    print(file=sys.stderr)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    busiest = max(house, key=lambda p: Seat.objects.filter(player=p).count())
    return {"house": busiest.name, "person": people[7].name, "ladder": ladders[1].slug,
            "month_from": (start + dt.timedelta(days=150)).date().isoformat(),
            "month_to": (start + dt.timedelta(days=180)).date().isoformat(), "seconds": time.perf_counter() - started}


def _median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def measure(names: dict, runs: int) -> list[dict]:
    from urllib.parse import urlencode

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from rest_framework.pagination import Cursor
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from games.api import MatchListApi
    from games.browse import MatchCursorPagination, check_match_filters, match_browse

    MatchListApi.throttle_classes = []  # the anonymous API budget (30/min) is not what is measured

    cases = [("no filter", {}), ("no filter, oldest first", {"order": "oldest"}),
             ("status=finished", {"status": "finished"}), ("status=running (1%)", {"status": "running"}),
             ("preset=crazy-eights (5%)", {"preset": "crazy-eights"}),
             (f"player={names['house']} (house bot, ~25%)", {"player": names["house"]}),
             (f"player={names['person']} (a person, ~0.2%)", {"player": names["person"]}),
             (f"ladder={names['ladder']} (30%)", {"ladder": names["ladder"]}),
             ("from/to: one month", {"from": names["month_from"], "to": names["month_to"]}),
             ("player=house bot & status=finished & ladder", {"player": names["house"], "status": "finished",
                                                              "ladder": names["ladder"]})]
    client = Client()
    results = []
    for label, params in cases:
        filters = check_match_filters(params)
        order = "id" if params.get("order") == "oldest" else "-id"
        qs = match_browse(filters=filters).order_by(order)
        count = qs.count()
        depth = count // 2
        pivot = qs.values_list("id", flat=True)[depth:depth + 1].first() if count else None
        paginator = MatchCursorPagination()
        url = "/api/matches/?" + urlencode(params)
        deep = url
        if pivot is not None:
            request = Request(APIRequestFactory().get(url))
            paginator.base_url = request.build_absolute_uri()
            deep = paginator.encode_cursor(Cursor(offset=0, reverse=False, position=str(pivot)))
        for target in (url, deep):  # warm both
            assert client.get(target).status_code == 200, client.get(target).content[:300]
        first_ms = _median_ms(lambda: client.get(url), runs)
        deep_ms = _median_ms(lambda: client.get(deep), runs)
        rows = qs.prefetch_related(None)  # the page's main query alone: whole match rows (and their ladder)
        offset_ms = _median_ms(lambda: list(rows[depth:depth + 25]), runs)
        keyset_sql_ms = _median_ms(lambda: list(
            rows.filter(**({"id__lt": pivot} if order == "-id" else {"id__gt": pivot}))[:25]), runs) \
            if pivot is not None else 0.0
        plans = {}
        for which, target in (("first", url), ("deep", deep)):
            with CaptureQueriesContext(connection) as captured:
                client.get(target)
            main = next(q["sql"] for q in captured.captured_queries if 'FROM "games_match"' in q["sql"]
                        and "LIMIT" in q["sql"])
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + main)
                plans[which] = [row[0] for row in cursor.fetchall()]
        results.append({"label": label, "count": count, "first_ms": first_ms, "deep_ms": deep_ms,
                        "keyset_sql_ms": keyset_sql_ms, "offset_sql_ms": offset_ms, "plans": plans})
        print(f"  {label}: {count:,} matches; first page {first_ms:.1f} ms, deep page {deep_ms:.1f} ms "
              f"(query: keyset {keyset_sql_ms:.2f} ms, OFFSET {offset_ms:.2f} ms)", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (the median is reported)")
    parser.add_argument("--keep", action="store_true", help="keep the database (eights_match_list_bench)")
    args = parser.parse_args()
    if args.matches < 100 or args.runs < 1:
        parser.error("--matches is at least 100 and --runs at least 1")
    _database(create=True)
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0)
        print(f"match list benchmark: {args.matches:,} matches on PostgreSQL "
              f"{connection.cursor().connection.info.server_version // 10000}", file=sys.stderr)
        names = generate(args.matches)
        results = measure(names, args.runs)
        connection.close()
    finally:
        if not args.keep:
            _database(create=False)
    print(f"\n{args.matches:,} matches generated in {names['seconds']:.0f} s; medians of {args.runs} runs; a page is "
          "25 matches; deep = a cursor half-way down the filtered list.\n")
    print("| filter | matches | first page (request) | deep page (request) | deep page query: keyset | "
          "same page by OFFSET | OFFSET / keyset |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        ratio = r["offset_sql_ms"] / r["keyset_sql_ms"] if r["keyset_sql_ms"] else float("nan")
        print(f"| {r['label']} | {r['count']:,} | {r['first_ms']:.1f} ms | {r['deep_ms']:.1f} ms | "
              f"{r['keyset_sql_ms']:.2f} ms | {r['offset_sql_ms']:.2f} ms | {ratio:.0f}x |")
    print("\nQuery plans (EXPLAIN ANALYZE of the page's main query):\n")
    for r in results:
        for which, plan in r["plans"].items():
            print(f"{r['label']}, {which} page:\n```")
            print("\n".join(plan))
            print("```")


if __name__ == "__main__":
    main()
