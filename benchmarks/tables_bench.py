"""Tables benchmark (issue 23): the time from "create table" to the first card for two people, and the lobby's cost
with many open tables, on PostgreSQL, through Django's test client (the views, serializers and queries as served;
no network).

* ``first card``: person A creates a two-seat table with an open seat (``POST /api/tables/``), person B joins it
  by its code (``POST /api/tables/<code>/join/``: the match starts), and each reads their seat view (``GET
  /api/matches/<id>/seats/<seat>/``: their hand); the time from the create to both views, p50 and max over
  ``--tables`` tables. In process (``TASKS`` eager is not needed: no ply is played before the views).
* ``lobby``: ``GET /api/tables/`` (the 100 newest) and ``GET /tables/`` (the page) with ``--open`` listed waiting
  tables, median of ``--runs``, and the queries each takes.

Usage: ``python benchmarks/tables_bench.py [--tables 20] [--open 500] [--runs 7] [--keep]``; needs PostgreSQL on
127.0.0.1 (or ``BENCH_DATABASE_URL``, a URL whose database may be created and dropped).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_tables_bench")
os.environ["DATABASE_URL"] = URL
os.environ.pop("CELERY_BROKER_URL", None)
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ["DEBUG"] = "false"
os.environ.setdefault("SECRET_KEY", "tables-bench-" + "x" * 40)
os.environ["TABLE_CREATE_RATE"] = "1000000/hour"
os.environ["TABLES_WAITING_PER_PLAYER"] = "100"
os.environ["CACHE_URL"] = "file"


def _client(user):
    from rest_framework.test import APIClient

    client = APIClient(SERVER_NAME="127.0.0.1")
    client.force_authenticate(user)
    return client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--open", type=int, default=500)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    from db import database_ready, drop_database

    drop_database(create=True)
    try:

        database_ready()
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        settings.ALLOWED_HOSTS = ["*"]
        users = [get_user_model().objects.create_user(f"bench{i}", password="x") for i in range(2)]
        a, b = (_client(u) for u in users)
        spent = []
        for i in range(args.tables):
            started = time.perf_counter()
            table = a.post("/api/tables/", {"preset": "web-table", "seats": [{"kind": "open"}]}, format="json").json()
            joined = b.post(f"/api/tables/{table['code']}/join/").json()
            views = [a.get(f"/api/matches/{joined['match_id']}/seats/0/"),
                     b.get(f"/api/matches/{joined['match_id']}/seats/1/")]
            assert all(v.status_code == 200 and v.json()["view"]["hand"] for v in views)
            spent.append((time.perf_counter() - started) * 1000)
            print(f"\rfirst card: {i + 1}/{args.tables} tables", end="", file=sys.stderr)
        print(file=sys.stderr)
        print(f"create -> join -> both seat views (first card), {args.tables} tables: p50 "
              f"{statistics.median(spent):.1f} ms, max {max(spent):.1f} ms")

        hosts = [get_user_model().objects.create_user(f"host{i}", password="x") for i in range(args.open // 50 + 1)]
        for i in range(args.open):
            _client(hosts[i // 50]).post("/api/tables/", {"preset": "pagat", "seats": [{"kind": "open"}, {
                "kind": "house", "strategy": "eager"}]}, format="json")
            print(f"\rlobby: {i + 1}/{args.open} open tables", end="", file=sys.stderr)
        print(file=sys.stderr)
        page = Client(SERVER_NAME="127.0.0.1")
        for what, get in (("GET /api/tables/", lambda: a.get("/api/tables/")), ("GET /tables/",
                                                                              lambda: page.get("/tables/"))):
            times = []
            for _ in range(args.runs):
                with CaptureQueriesContext(connection) as queries:
                    started = time.perf_counter()
                    assert get().status_code == 200
                    times.append((time.perf_counter() - started) * 1000)
            print(f"{what} with {args.open} open tables (the 100 newest shown): median {statistics.median(times):.1f}"
                  f" ms of {args.runs}, {len(queries)} queries")
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            drop_database()


if __name__ == "__main__":
    main()
