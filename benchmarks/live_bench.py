"""Live events on loopback (docs/LIVE.md, BENCHMARKS.md "Live events"): the production web server (Procfile's web
line: gunicorn + one uvicorn worker, ``config.asgi``) on PostgreSQL and Redis, in a database of its own.

1. Push latency: ``--watchers`` streams follow each of ``--matches`` house-bot matches that this process plays ply
   by ply (one ply per commit, ``--pace`` ms apart, as a person's table would see them); per ply and watcher, the
   receipt time minus the event's ``published_at_ms`` (the commit's publish time). p50 / p95 / max.
2. Idle cost: ``--idle`` streams open on a match that waits for a person; the web worker's resident memory and its
   PostgreSQL connections before and after, per stream.

    .venv/bin/python benchmarks/live_bench.py [--watchers 1,50] [--matches 3] [--idle 200]

Needs PostgreSQL (``--pg``, trust auth) and Redis (``--redis``); creates and drops database eights_live_bench_<pid>.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
APP = "eights-live-bench"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", default="1,50", help="watcher counts per match, comma-separated")
    parser.add_argument("--matches", type=int, default=3, help="matches played per watcher count")
    parser.add_argument("--pace", type=float, default=20, help="ms between plies")
    parser.add_argument("--idle", type=int, default=200, help="idle streams for the per-stream cost")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/1")
    args = parser.parse_args()

    name = f"eights_live_bench_{os.getpid()}"
    env = dict(os.environ, DATABASE_URL=f"{args.pg}/{name}", CACHE_URL=args.redis, CELERY_BROKER_URL=args.redis,
               CACHE_KEY_PREFIX=f"livebench{os.getpid()}", DJANGO_SETTINGS_MODULE="config.settings",
               EIGHTS_VAR_DIR=f"/tmp/{name}", PYTHONUNBUFFERED="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    os.environ.update(env)
    import psycopg

    with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    server = None
    try:
        started = time.monotonic()
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        print(f"migrated in {time.monotonic() - started:.0f} s")
        import django

        sys.path.insert(0, str(ROOT))
        django.setup()
        from django.contrib.auth import get_user_model

        from eights_engine import Ruleset
        from games.services import match_advance, match_create, player_for_user, player_house_create

        bots = [player_house_create(name=n, strategy=s) for n, s in
                (("Rando", "random"), ("Eager", "eager"), ("Greedy", "greedy"), ("Professor", "heuristic"))]
        port = _port()
        line = next(line.split(":", 1)[1].strip() for line in (ROOT / "Procfile").read_text().splitlines()
                    if line.startswith("web:"))
        server = subprocess.Popen(["/bin/sh", "-c", line], cwd=ROOT, start_new_session=True,
                                  env=dict(env, EIGHTS_BIND=f"127.0.0.1:{port}", WEB_WORKERS="1", PGAPPNAME=APP,
                                           LIVE_EVENTS_RATE="100000/min", LIVE_PUBLIC_RATE="100000/min"),
                                  stdout=open(f"/tmp/{name}.web.log", "wb"), stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            raise SystemExit(f"the web server did not start: /tmp/{name}.web.log")
        print(f"server: gunicorn + 1 uvicorn worker on {url}, PostgreSQL, Redis pub/sub")

        # 1. push latency
        seed = 100
        for watchers in [int(w) for w in args.watchers.split(",")]:
            latencies: list[float] = []
            plies = 0
            for _ in range(args.matches):
                seed += 1
                match = match_create(players=bots[2:], ruleset=Ruleset.preset("pagat"), seed=seed)
                ready = threading.Barrier(watchers + 1)
                got: list[list[float]] = [[] for _ in range(watchers)]

                def watch(i: int, match_id: int = match.pk) -> None:
                    buffer = ""
                    with httpx.Client(timeout=120) as client:
                        with client.stream("GET", f"{url}/api/matches/{match_id}/events/?last_event_id=0") as r:
                            chunks = r.iter_text()
                            buffer += next(chunks)
                            ready.wait()
                            for chunk in chunks:
                                now = time.time() * 1000
                                buffer += chunk
                                while "\n\n" in buffer:
                                    block, buffer = buffer.split("\n\n", 1)
                                    if "event: end" in block:
                                        return
                                    if "event: ply" in block:
                                        data = json.loads(block.split("data: ", 1)[1])
                                        got[i].append(now - data["published_at_ms"])

                threads = [threading.Thread(target=watch, args=(i,)) for i in range(watchers)]
                for t in threads:
                    t.start()
                ready.wait()
                time.sleep(0.3)
                while match_advance(match_id=match.pk, ply_budget=1) == "budget":
                    time.sleep(args.pace / 1000)
                for t in threads:
                    t.join(120)
                match.refresh_from_db()
                plies += match.ply_count
                latencies += [v for row in got for v in row]
            print(f"push latency, {watchers} watcher(s) per match, {args.matches} matches, {plies} plies, "
                  f"{len(latencies)} events: p50 {statistics.median(latencies):.1f} ms, "
                  f"p95 {_pct(latencies, 0.95):.1f} ms, max {max(latencies):.1f} ms")

        # 1b. the public view: a full answer against a 304 (If-None-Match), on the last match (finished)
        with httpx.Client(base_url=url, timeout=30) as client:
            path = f"/api/matches/{match.pk}/public/"
            tag = client.get(path).headers["ETag"]
            times = {"200": [], "304": []}
            for _ in range(100):
                for key, headers in (("200", {}), ("304", {"If-None-Match": tag})):
                    started = time.perf_counter()
                    answer = client.get(path, headers=headers)
                    times[key].append((time.perf_counter() - started) * 1000)
                    assert answer.status_code == int(key)
        print(f"public view of a {match.ply_count}-ply match, 100 each: full answer p50 "
              f"{statistics.median(times['200']):.1f} ms, 304 p50 {statistics.median(times['304']):.1f} ms")

        # 2. idle cost
        person = get_user_model().objects.create_user("bench-person", password="pw-bench-12345")
        waiting = match_create(players=[bots[3], player_for_user(user=person)], ruleset=Ruleset.preset("pagat"),
                               seed=7)
        match_advance(match_id=waiting.pk)
        worker = _children(server.pid)
        worker = _children(worker[0])[0] if worker and _children(worker[0]) else worker[0]
        from django.db import connection

        def pg_connections() -> int:
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP])
                return cursor.fetchone()[0]

        async def idle() -> tuple[int, int, int, int]:
            before_rss, before_pg = _rss_kb(worker), pg_connections()
            async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=None)) as client:
                streams = []
                for _ in range(args.idle):
                    cm = client.stream("GET", f"{url}/api/matches/{waiting.pk}/events/")
                    response = await cm.__aenter__()
                    await response.aiter_text().__anext__()
                    streams.append(cm)
                await asyncio.sleep(2)
                after_rss, after_pg = _rss_kb(worker), pg_connections()
                for cm in streams:
                    await cm.__aexit__(None, None, None)
            return before_rss, after_rss, before_pg, after_pg

        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # this script's own count query, inside its event loop
        before_rss, after_rss, before_pg, after_pg = asyncio.run(idle())
        print(f"idle streams: {args.idle} open on one worker: RSS {before_rss / 1024:.1f} -> {after_rss / 1024:.1f} MB "
              f"({(after_rss - before_rss) / args.idle:.1f} KB per stream); PostgreSQL connections of the web "
              f"server {before_pg} -> {after_pg}; Redis: one pub/sub connection per worker")
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(30)
        from django.db import connections

        connections.close_all()
        with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


if __name__ == "__main__":
    main()
