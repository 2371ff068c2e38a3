"""Load trial: many simulated people playing at once over the REST API, on PostgreSQL + Redis + Celery.

Starts the production stack on loopback (gunicorn with ``--web-workers`` sync workers, ``celery worker`` with
``--celery`` processes) against its own database ``eights_load``, creates ``--people`` accounts with API tokens,
and lets each person, in one asyncio client, press Play now (bots only) on a two-seat pagat ladder of house bots
and play: poll the seat view every ``--poll-ms`` ms, and on their turn wait ``--think-ms`` ms and send a random
legal action answering the view's ``ply``. A person whose match ends starts another. The trial stops after
``--seconds`` s (bounded), stops the servers, then checks the database:

- lost moves: moves answered ``200 stored`` that are not in the database as that person's move (must be 0);
- 5xx answers, by endpoint; 409 answers (stale position or busy: expected now and then, retried by the client);
- p50 / p95 / max latency (ms) of the seat view (GET) and of the move (POST), measured at the client.

Usage: ``python benchmarks/people_load.py [--people 100] [--seconds 60]``; needs PostgreSQL and Redis on
127.0.0.1 (or LOAD_DATABASE_URL / LOAD_BROKER_URL). Results go to stdout; BENCHMARKS.md quotes them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DATABASE_URL = os.environ.get("LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_load")
BROKER_URL = os.environ.get("LOAD_BROKER_URL", "redis://127.0.0.1:6379/13")
SERVER_ENV = {
    **os.environ, "DATABASE_URL": DATABASE_URL, "CELERY_BROKER_URL": BROKER_URL, "DJANGO_SETTINGS_MODULE":
    "config.settings", "DEBUG": "false", "SECRET_KEY": "load-trial-only", "LOG_LEVEL": "ERROR",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
}
os.environ.update({k: v for k, v in SERVER_ENV.items() if k != "PATH"})


def _database_reset() -> None:
    """Drop and create the trial's own database (never the development one)."""
    import psycopg

    name = DATABASE_URL.rsplit("/", 1)[1]
    if not name.startswith("eights_load"):
        raise SystemExit(f"refusing to reset {name!r}: the load trial only resets databases named eights_load*")
    with psycopg.connect(DATABASE_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _setup(people: int) -> list[str]:
    """Migrate, make the ladder of house bots and ``people`` accounts; returns their API tokens."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    call_command("migrate", verbosity=0)
    if "django_cache_table" in _cache_tables():
        call_command("createcachetable", verbosity=0)
    from games.services import player_house_create
    from tournaments.services import ladder_create, ladder_entry_create

    ladder = ladder_create(name="Load trial", slug="load", preset="pagat", seats_per_match=2,
                           max_running_matches=1000)
    for strategy in ("heuristic", "greedy", "eager", "random"):
        ladder_entry_create(ladder=ladder, player=player_house_create(name=f"load-{strategy}", strategy=strategy))
    User = get_user_model()
    tokens = []
    for i in range(people):
        user = User.objects.create_user(username=f"person{i:03d}", password="load-trial-password")
        tokens.append(Token.objects.create(user=user).key)
    from django.db import connections

    connections.close_all()
    return tokens


def _cache_tables() -> set[str]:
    from django.conf import settings

    return {c.get("LOCATION") for c in settings.CACHES.values()
            if c.get("BACKEND", "").endswith("DatabaseCache")}


class Stats:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.status: Counter = Counter()
        self.stored: Counter = Counter()  # (match_id, seat) -> moves answered 200 stored
        self.errors: list[str] = []

    def note(self, endpoint: str, status: int, ms: float, body: str = "") -> None:
        self.latency[endpoint].append(ms)
        self.status[(endpoint, status)] += 1
        if status >= 500 and len(self.errors) < 10:
            self.errors.append(f"{endpoint} {status}: {body[:200]}")


async def _person(client, token: str, args, stats: Stats, stop_at: float, rng: random.Random) -> None:
    import httpx

    headers = {"Authorization": f"Token {token}"}

    async def call(endpoint: str, method: str, url: str, **kw):
        started = time.perf_counter()
        try:
            response = await client.request(method, url, headers=headers, **kw)
        except httpx.HTTPError as exc:
            stats.note(endpoint, 0, (time.perf_counter() - started) * 1000, repr(exc))
            return None
        stats.note(endpoint, response.status_code, (time.perf_counter() - started) * 1000, response.text)
        return response

    await asyncio.sleep(rng.random() * 2)  # people do not all arrive in the same millisecond
    while time.monotonic() < stop_at:
        r = await call("play_now", "POST", "/api/ladders/load/play/", json={"match_with": "bots"})
        if r is None or r.status_code != 201:
            await asyncio.sleep(1)
            continue
        match_id, seat = r.json()["match_id"], r.json()["seat"]
        view_url = f"/api/matches/{match_id}/seats/{seat}/"
        while time.monotonic() < stop_at:
            r = await call("seat_view", "GET", view_url)
            if r is None or r.status_code != 200:
                await asyncio.sleep(args.poll_ms / 1000)
                continue
            view = r.json()
            if view["status"] != "running":
                break
            if not view["your_turn"]:
                await asyncio.sleep(args.poll_ms / 1000)
                continue
            await asyncio.sleep(args.think_ms / 1000 * (0.5 + rng.random()))
            action = rng.choice(view["legal_actions"])
            r = await call("move", "POST", view_url + "actions/", json={"ply": view["ply"], "action": action})
            if r is not None and r.status_code == 200 and r.json().get("stored"):
                stats.stored[(match_id, seat)] += 1


async def _trial(base_url: str, tokens: list[str], args, stats: Stats) -> None:
    import httpx

    stop_at = time.monotonic() + args.seconds
    limits = httpx.Limits(max_connections=len(tokens) + 10, max_keepalive_connections=len(tokens) + 10)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:
        tasks = [asyncio.create_task(_person(client, t, args, stats, stop_at, random.Random(i)))
                 for i, t in enumerate(tokens)]
        started = time.monotonic()
        while not all(t.done() for t in tasks):
            await asyncio.sleep(5)
            moves = sum(stats.stored.values())
            fives = sum(n for (_, s), n in stats.status.items() if s >= 500 or s == 0)
            print(f"  {time.monotonic() - started:5.0f} s: {moves} moves stored, {fives} 5xx/transport errors",
                  flush=True)
        for t in tasks:
            t.result()  # a bug in the client itself must not pass silently


def _lost_moves(stats: Stats) -> tuple[int, int]:
    """(moves the clients were told were stored but the database lacks, moves in the database beyond them)."""
    from games.models import Move

    lost = extra = 0
    for (match_id, seat), told in stats.stored.items():
        stored = Move.objects.filter(deal__match_id=match_id, seat=seat, source=Move.Source.AGENT).count()
        lost += max(0, told - stored)
        extra += max(0, stored - told)
    return lost, extra


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=100, help="simulated people playing at once (default 100)")
    parser.add_argument("--seconds", type=float, default=60, help="length of the trial (default 60 s)")
    parser.add_argument("--think-ms", type=float, default=800, help="a person's mean think time (default 800 ms)")
    parser.add_argument("--poll-ms", type=float, default=500, help="seat view poll interval (default 500 ms)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn sync workers (default 2)")
    parser.add_argument("--celery", type=int, default=2, help="Celery worker processes (default 2)")
    args = parser.parse_args()
    if not (1 <= args.people <= 1000 and 5 <= args.seconds <= 1800 and args.web_workers >= 1 and args.celery >= 1
            and args.think_ms >= 0 and args.poll_ms >= 50):
        parser.error("--people 1..1000, --seconds 5..1800, --poll-ms >= 50, --think-ms >= 0, workers >= 1")
    print(f"load trial: {args.people} people, {args.seconds:.0f} s, think {args.think_ms:.0f} ms, poll "
          f"{args.poll_ms:.0f} ms; gunicorn {args.web_workers} sync workers, Celery {args.celery} processes; "
          "PostgreSQL + Redis on loopback", flush=True)
    _database_reset()
    tokens = _setup(args.people)
    subprocess.run(["redis-cli", "-u", BROKER_URL, "flushdb"], check=False, stdout=subprocess.DEVNULL)
    port = _free_port()
    py = sys.executable
    bindir = os.path.dirname(py)
    servers = [
        subprocess.Popen([os.path.join(bindir, "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
                          "--workers", str(args.web_workers), "--log-level", "warning"], cwd=ROOT, env=SERVER_ENV,
                         start_new_session=True),
        subprocess.Popen([os.path.join(bindir, "celery"), "-A", "config", "worker", "--loglevel", "WARNING",
                          "--concurrency", str(args.celery)], cwd=ROOT, env=SERVER_ENV, start_new_session=True),
    ]
    stats = Stats()
    try:
        import httpx

        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        asyncio.run(_trial(f"http://127.0.0.1:{port}", tokens, args, stats))
    finally:
        for proc in servers:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in servers:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    lost, extra = _lost_moves(stats)
    from games.models import Match

    finished = Match.objects.filter(status=Match.Status.FINISHED).count()
    print(f"\nresults ({args.people} people, {args.seconds:.0f} s):")
    print(f"  moves stored (answered 200): {sum(stats.stored.values())}; lost: {lost}; stored beyond the answers: "
          f"{extra}; matches finished: {finished}")
    for endpoint in ("seat_view", "move", "play_now"):
        values = stats.latency.get(endpoint, [])
        codes = ", ".join(f"{s}: {n}" for (e, s), n in sorted(stats.status.items()) if e == endpoint)
        print(f"  {endpoint:9s} {len(values):6d} requests  p50 {_pct(values, .5):7.1f} ms  p95 {_pct(values, .95):7.1f}"
              f" ms  max {max(values, default=float('nan')):7.1f} ms  ({codes})")
    fives = sum(n for (_, s), n in stats.status.items() if s >= 500 or s == 0)
    print(f"  5xx or transport errors: {fives}")
    for line in stats.errors:
        print(f"    {line}")
    if lost or fives:
        sys.exit(1)


if __name__ == "__main__":
    main()
