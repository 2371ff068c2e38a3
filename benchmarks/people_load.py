"""Load trial: many simulated people playing at once over the REST API and the event stream, on PostgreSQL + Redis
+ Celery, on loopback only.

Starts the production stack on 127.0.0.1 against its own database ``eights_load``: the ``web:`` line and every
Celery worker line (``celery ... worker``) of the Procfile (so the trial follows the Procfile: the web server, its worker count set by
``--web-workers``; the Celery workers with ``WORKER_CONCURRENCY=--celery``), or ``--web-cmd`` instead of the web
line. It creates ``--people`` accounts with API tokens; each person, in one asyncio client, presses Play now (bots
only) on a two-seat pagat ladder of house bots and plays, thinking ``--think-min-ms``..``--think-max-ms`` (uniform)
before each move and sending a random legal action answering the view's ``ply``. A person whose match ends starts
another. Two ways to follow a match (``--mode``):

- ``events`` (default): the match's server-sent events (``GET /api/matches/<id>/events/``, docs/LIVE.md), opened
  with ``Last-Event-ID`` = the ply of the first seat view; the seat view is fetched again only when an event says
  the match moved (events that arrive while a fetch is under way are folded into one more fetch). The event latency
  is the receipt time minus the event's ``published_at_ms`` (same machine, same clock). If the endpoint is absent
  (404/405: the code before issue 13), the trial says so and every person polls instead.
- ``poll``: the seat view every ``--poll-ms`` ms with ``If-None-Match`` (the last ETag; a ``304`` keeps the view).

``--watchers N`` adds N strangers (either mode) who each pick a running match from ``GET /api/matches/?status=running``
and follow its events from its public view's ply: the event latency at a watcher, and the watching load.

The trial stops after ``--seconds`` s (bounded; a progress line every 5 s), stops the servers, then checks the
database: lost moves (answered ``200 stored`` but not in the database as that person's move: must be 0), 5xx and
transport errors by endpoint, and p50 / p95 / p99 / max latency (ms, at the client) of the seat view, the move,
Play now and the events.

The generator speaks HTTP with the lean loopback client (``benchmarks/loopback_http.py``, on uvloop) unless
``--client httpx``: it shares the machine with the servers, and httpx cost it about five times the CPU. People arrive
at random over ``--arrive-s`` seconds (2: a burst of Play now).

Usage: ``python benchmarks/people_load.py --people 100 --seconds 45 [--mode events|poll] [--watchers 20]``; needs PostgreSQL and
Redis on 127.0.0.1 (or LOAD_DATABASE_URL / LOAD_BROKER_URL, loopback only). Results go to stdout; BENCHMARKS.md
quotes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks import free_port  # noqa: E402 (after the path)
DATABASE_URL = os.environ.get("LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_load")
BROKER_URL = os.environ.get("LOAD_BROKER_URL", "redis://127.0.0.1:6379/13")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
for _url in (DATABASE_URL, BROKER_URL):
    if urlsplit(_url).hostname not in LOOPBACK:
        raise SystemExit(f"the load trial runs on loopback only: {urlsplit(_url).hostname!r} is not 127.0.0.1")
SERVER_ENV = {
    **os.environ, "DATABASE_URL": DATABASE_URL, "CELERY_BROKER_URL": BROKER_URL, "DJANGO_SETTINGS_MODULE":
    "config.settings", "DEBUG": "false", "SECRET_KEY": "load-trial-only", "LOG_LEVEL": "ERROR",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    # every simulated person connects from 127.0.0.1: the per-address limits on opening event streams and public
    # views (docs/LIVE.md) would count them all as one client. The per-account limits stay as deployed.
    "LIVE_EVENTS_RATE": os.environ.get("LIVE_EVENTS_RATE", "100000/min"),
    "LIVE_PUBLIC_RATE": os.environ.get("LIVE_PUBLIC_RATE", "100000/min"),
    "LIVE_STREAMS_PER_ADDRESS": os.environ.get("LIVE_STREAMS_PER_ADDRESS", "100000"),
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


def _procfile_commands(port: int, args) -> dict[str, str]:
    """The Procfile's ``web`` command, bound to 127.0.0.1:``port`` with ``--web-workers``, and every Celery worker
    line (``celery ... worker``: the house, bots and housekeeping pools; not beat, not the example bots)."""
    commands = {}
    with open(os.path.join(ROOT, "Procfile")) as f:
        for line in f:
            name, sep, command = line.partition(":")
            name = name.strip()
            is_worker = re.search(r"\bcelery\b.*\sworker\b", command) is not None
            if sep and (name == "web" or is_worker) and not line.lstrip().startswith("#"):
                commands[name] = command.strip()
    if args.web_cmd:
        commands["web"] = args.web_cmd
    if "web" not in commands:
        raise SystemExit("the Procfile has no web: line; give --web-cmd")
    web = re.sub(r"\$\{EIGHTS_BIND:-[^}]*\}", f"127.0.0.1:{port}", commands["web"])
    web = re.sub(r"(?<!\S)(?:--workers[ =]|-w ?)\S+", f"--workers {args.web_workers}", web)
    web = re.sub(r"--access-logfile[ =]\S+", "", web)
    if f"127.0.0.1:{port}" not in web:
        raise SystemExit(f"cannot bind the web command to loopback: {web!r} (give --web-cmd with {{bind}})")
    commands["web"] = web
    return {name: re.sub(r"--loglevel[ =]\S+", "--loglevel WARNING", c) for name, c in commands.items()}


class Stats:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.status: Counter = Counter()
        self.stored: Counter = Counter()  # (match_id, seat) -> moves answered 200 stored
        self.errors: list[str] = []
        self.events = 0
        self.event_latency: list[float] = []  # at the people's own streams
        self.watcher_latency: list[float] = []  # at the watchers' (--watchers)
        self.reconnects = 0
        self.safety_fetches = 0  # seat views fetched because no event came for --event-wait-s
        self.move_views = 0  # seat views taken from a move's answer instead of a fetch
        self.events_absent = False
        self.matches_started = 0
        self.events_accept = "text/event-stream"  # as a browser's EventSource asks
        self.streams_refused = 0
        self.steady_from = float("inf")  # time.monotonic() after which everyone is seated (--warmup-s)
        self.steady: dict[str, list[float]] = defaultdict(list)  # latencies from steady_from on
        self.steady_cpu: tuple[dict[str, float], int, float] | None = None  # (_cpu_seconds(), moves, time) then
        self.steady_at_stop: tuple[dict[str, float], int, float] | None = None  # the same at the trial's end

    def note(self, endpoint: str, status: int, ms: float, body: str = "") -> None:
        self.latency[endpoint].append(ms)
        if time.monotonic() >= self.steady_from:
            self.steady[endpoint].append(ms)
        self.status[(endpoint, status)] += 1
        if (status >= 500 or status == 0) and len(self.errors) < 10:
            self.errors.append(f"{endpoint} {status}: {body[:200]}")

    def failures(self) -> int:
        return sum(n for (_, s), n in self.status.items() if s >= 500 or s == 0)


class Person:
    """One simulated person: an API token, a random generator, the shared client and the trial's stats."""

    def __init__(self, client, token: str, args, stats: Stats, stop_at: float, rng: random.Random) -> None:
        self.client, self.args, self.stats, self.stop_at, self.rng = client, args, stats, stop_at, rng
        self.headers = {"Authorization": f"Token {token}"}

    async def call(self, endpoint: str, method: str, url: str, headers: dict | None = None, **kw):
        started = time.perf_counter()
        try:
            response = await self.client.request(method, url, headers={**self.headers, **(headers or {})}, **kw)
        except self.client.errors as exc:
            self.stats.note(endpoint, 0, (time.perf_counter() - started) * 1000, repr(exc))
            return None
        self.stats.note(endpoint, response.status_code, (time.perf_counter() - started) * 1000, response.text)
        return response

    def think_s(self) -> float:
        return self.rng.uniform(self.args.think_min_ms, self.args.think_max_ms) / 1000

    async def run(self) -> None:
        await asyncio.sleep(self.rng.random() * self.args.arrive_s)  # people do not all arrive in the same millisecond
        while time.monotonic() < self.stop_at:
            r = await self.call("play_now", "POST", "/api/ladders/load/play/", json={"match_with": "bots"})
            if r is None or r.status_code != 201:
                await asyncio.sleep(1)
                continue
            self.stats.matches_started += 1
            match_id, seat = r.json()["match_id"], r.json()["seat"]
            if self.args.mode == "events" and not self.stats.events_absent:
                await self.play_on_events(match_id, seat)
            else:
                await self.play_polling(match_id, seat)

    async def move(self, view_url: str, view: dict, match_id: int, seat: int) -> dict | None:
        """Think, then send a random legal move; returns the seat view the answer carries (the view after the move,
        issue 13's follow-up), or None (a refused move, or a server that does not send it)."""
        await asyncio.sleep(self.think_s())
        action = self.rng.choice(view["legal_actions"])
        r = await self.call("move", "POST", view_url + "actions/", json={"ply": view["ply"], "action": action})
        if r is not None and r.status_code == 200 and r.json().get("stored"):
            self.stats.stored[(match_id, seat)] += 1
            seen = r.json().get("seat_view")
            return seen if isinstance(seen, dict) and self.args.move_view else None
        return None

    async def play_polling(self, match_id: int, seat: int) -> None:
        """Poll the seat view every --poll-ms with If-None-Match; move on the person's turn."""
        view_url = f"/api/matches/{match_id}/seats/{seat}/"
        etag, view = None, None
        while time.monotonic() < self.stop_at:
            r = await self.call("seat_view", "GET", view_url, headers={"If-None-Match": etag} if etag else None)
            if r is None or r.status_code not in (200, 304) or (r.status_code == 304 and view is None):
                etag = None
                await asyncio.sleep(self.args.poll_ms / 1000)
                continue
            if r.status_code == 200:
                view, etag = r.json(), r.headers.get("ETag")
            if view["status"] != "running":
                return
            if not view["your_turn"]:
                await asyncio.sleep(self.args.poll_ms / 1000)
                continue
            await self.move(view_url, view, match_id, seat)
            etag = None  # the answer to a 409 must be a fresh view, not a 304

    async def play_on_events(self, match_id: int, seat: int) -> None:
        """Follow the match by its events; fetch the seat view only when an event says the match moved."""
        view_url = f"/api/matches/{match_id}/seats/{seat}/"
        changed = asyncio.Event()
        state = {"last_id": None, "ended": False}
        r = await self.call("seat_view", "GET", view_url)
        if r is None or r.status_code != 200:
            return
        view = r.json()
        state["last_id"] = view["ply"]
        stream = asyncio.create_task(self.follow(match_id, state, changed))
        try:
            while time.monotonic() < self.stop_at:
                if view["status"] != "running":
                    return
                if view["your_turn"]:
                    seen = await self.move(view_url, view, match_id, seat)
                    if seen is not None and seen["ply"] > view["ply"]:  # the view after our move: no fetch for it
                        view = seen
                        self.stats.move_views += 1
                        if (state["last_id"] or 0) <= view["ply"]:  # nothing newer announced: wait for an event
                            changed.clear()
                        if view["your_turn"]:  # still ours (a draw before playing): move again, no event will come
                            continue
                if stream.done():
                    stream.result()  # a bug in the client must not pass silently
                    if self.stats.events_absent or state.get("refused"):
                        return await self.play_polling(match_id, seat)
                timed_out = False
                try:
                    await asyncio.wait_for(changed.wait(), min(self.args.event_wait_s,
                                                               max(0.1, self.stop_at - time.monotonic())))
                except asyncio.TimeoutError:
                    if time.monotonic() >= self.stop_at:
                        return
                    self.stats.safety_fetches += 1
                    timed_out = True
                changed.clear()
                if (state["last_id"] or 0) <= view["ply"] and not timed_out and not state["ended"]:
                    continue  # only our own ply's event (its view came with the move's answer): nothing to fetch
                r = await self.call("seat_view", "GET", view_url)
                if r is not None and r.status_code == 200:
                    view = r.json()
        finally:
            stream.cancel()
            try:
                await stream
            except (asyncio.CancelledError, Exception):
                pass

    async def follow(self, match_id: int, state: dict, changed: asyncio.Event) -> None:
        """Read the match's event stream (reconnecting with Last-Event-ID) until its end event or the trial's end."""
        url = f"/api/matches/{match_id}/events/"
        timeout = self.client.stream_timeout
        while time.monotonic() < self.stop_at and not state["ended"]:
            headers = {**self.headers, "Accept": self.stats.events_accept}
            if state["last_id"] is not None:
                headers["Last-Event-ID"] = str(state["last_id"])
            connected_ms = time.time() * 1000
            started = time.perf_counter()
            try:
                async with self.client.stream("GET", url, headers=headers, timeout=timeout) as response:
                    self.stats.note("events_open", response.status_code, (time.perf_counter() - started) * 1000)
                    if response.status_code in (404, 405):
                        if not self.stats.events_absent:
                            self.stats.events_absent = True
                            print(f"  the events endpoint is absent ({url} answered {response.status_code}): every "
                                  "person polls the seat view instead (--mode poll)", flush=True)
                        changed.set()
                        return
                    if response.status_code == 406 and headers["Accept"] != "*/*":
                        if self.stats.events_accept != "*/*":
                            print("  the events endpoint answered 406 to Accept: text/event-stream (what a browser's "
                                  "EventSource sends: a bug to fix); the trial asks with Accept: */* instead",
                                  flush=True)
                        self.stats.events_accept = "*/*"
                        continue
                    if response.status_code != 200:
                        await response.aread()
                        if response.status_code == 429 or response.status_code >= 500:
                            await asyncio.sleep(1)
                            continue
                        self.stats.streams_refused += 1  # 400/403/...: this match is followed by polling
                        state["refused"] = True
                        changed.set()
                        return
                    event, data, event_id = "message", [], None
                    async for line in response.aiter_lines():
                        if time.monotonic() >= self.stop_at:
                            return  # a ping comes at least every 15 s: the trial never waits long for this
                        if line == "":
                            if data:
                                self.on_event(event, event_id, "\n".join(data), state, changed, connected_ms)
                            event, data, event_id = "message", [], None
                            if state["ended"]:
                                return
                            continue
                        if line.startswith(":"):
                            continue
                        field, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if field == "event":
                            event = value
                        elif field == "data":
                            data.append(value)
                        elif field == "id":
                            event_id = value
            except self.client.errors as exc:
                self.stats.note("events_open", 0, (time.perf_counter() - started) * 1000, repr(exc))
            if not state["ended"] and time.monotonic() < self.stop_at:
                self.stats.reconnects += 1
                await asyncio.sleep(0.2)

    def on_event(self, event: str, event_id: str | None, data: str, state: dict, changed: asyncio.Event,
                 connected_ms: float) -> None:
        received_ms = time.time() * 1000
        payload = json.loads(data)
        if event_id is not None and event_id.isdigit():
            state["last_id"] = int(event_id)
        if event == "ply":
            self.stats.events += 1
            published = payload.get("published_at_ms")
            if isinstance(published, (int, float)) and published >= connected_ms:  # live, not a replayed backlog
                (self.stats.watcher_latency if state.get("watcher") else self.stats.event_latency).append(
                    received_ms - published)
        elif event == "end":
            state["ended"] = True
        changed.set()


class Watcher(Person):
    """A stranger watching: picks a running match (``GET /api/matches/?status=running``) and follows its events (the
    public view's ply as Last-Event-ID) until it ends, then another. Measures event latency in either mode."""

    async def run(self) -> None:
        await asyncio.sleep(2 + self.rng.random() * 3)  # let the people start their matches
        while time.monotonic() < self.stop_at and not self.stats.events_absent:
            r = await self.call("match_list", "GET", "/api/matches/?status=running&limit=50")
            results = r.json().get("results", []) if r is not None and r.status_code == 200 else []
            if not results:
                await asyncio.sleep(1)
                continue
            match_id = self.rng.choice(results)["id"]
            r = await self.call("public_view", "GET", f"/api/matches/{match_id}/public/")
            if r is None or r.status_code != 200:
                await asyncio.sleep(1)
                continue
            state = {"last_id": r.json()["ply"], "ended": False, "watcher": True}
            await self.follow(match_id, state, asyncio.Event())
            if state.get("refused"):
                await asyncio.sleep(1)


def _client(base_url: str, tokens: list[str], args):
    """The trial's HTTP client (``--client``): the lean loopback one (default) or httpx's, with ``errors`` (the
    exceptions that mean no answer) and ``stream_timeout`` (for an event stream's reads: 60 s) set alike.

    Idle connections are dropped after 1 s: uvicorn closed them after 5 s, and a request sent on a connection the
    server is closing fails with a ReadError that no server did anything to cause (seen at 50 people)."""
    if args.client == "raw":
        from benchmarks.loopback_http import Client

        client = Client(base_url, timeout=30, keepalive_s=1.0)
        client.stream_timeout = 60
        return client
    import httpx

    streams = 2 if args.mode == "events" else 1
    connections = streams * len(tokens) + 2 * args.watchers + 10
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=1.0)
    client = httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits)
    client.errors = (httpx.HTTPError,)
    client.stream_timeout = httpx.Timeout(connect=30, read=60, write=30, pool=60)
    return client


async def _trial(base_url: str, tokens: list[str], args, stats: Stats) -> None:
    stop_at = time.monotonic() + args.seconds
    stats.steady_from = time.monotonic() + args.warmup_s
    async with _client(base_url, tokens, args) as client:
        if args.mode == "events":  # is there an events endpoint at all? (a route, whatever the match: OPTIONS)
            probe = await client.options("/api/matches/1/events/")
            if probe.status_code in (404, 405):
                stats.events_absent = True
                print(f"  the events endpoint is absent (OPTIONS /api/matches/1/events/ answered {probe.status_code}):"
                      " every person polls the seat view instead (--mode poll)", flush=True)
        tasks = [asyncio.create_task(Person(client, t, args, stats, stop_at, random.Random(i)).run())
                 for i, t in enumerate(tokens)]
        tasks += [asyncio.create_task(Watcher(client, tokens[i % len(tokens)], args, stats, stop_at,
                                              random.Random(10_000 + i)).run()) for i in range(args.watchers)]
        started = time.monotonic()
        seen = Counter()
        while not all(t.done() for t in tasks):
            await asyncio.sleep(5)
            if stats.steady_cpu is None and time.monotonic() >= stats.steady_from:  # the CPU per move from here on
                stats.steady_cpu = (_cpu_seconds(), sum(stats.stored.values()), time.monotonic())
            window = {e: stats.latency[e][seen[e]:] for e in ("seat_view", "move")}
            for e in window:
                seen[e] = len(stats.latency[e])
            print(f"  {time.monotonic() - started:5.0f} s: {sum(stats.stored.values())} moves stored, "
                  f"{stats.matches_started} matches started, seat view p95 {_pct(window['seat_view'], .95):.0f} ms, "
                  f"move p95 {_pct(window['move'], .95):.0f} ms (last 5 s), {stats.events} events, "
                  f"{stats.failures()} 5xx/transport errors", flush=True)
        stats.steady_at_stop = (_cpu_seconds(), sum(stats.stored.values()), time.monotonic())
        if hasattr(client, "opened"):
            print(f"  the client opened {client.opened} connections", flush=True)
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


def _cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system) used so far by each part of the stack, read from /proc: the processes of each
    server's session (keyed by the session leader's pid), PostgreSQL and Redis (every process of those names, so
    compare differences), and this generator itself."""
    tick = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = defaultdict(float)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        session, cpu = int(fields[3]), (int(fields[11]) + int(fields[12])) / tick
        if name.startswith("postgres"):
            used["postgres"] += cpu
        elif name.startswith("redis"):
            used["redis"] += cpu
        else:
            used[f"session:{session}"] += cpu
    times = os.times()
    used["load generator"] = times.user + times.system
    return used


def _stop(servers: list[subprocess.Popen]) -> None:
    for proc in servers:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for proc in servers:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=100, help="simulated people playing at once (default 100)")
    parser.add_argument("--seconds", type=float, default=60, help="length of the trial (default 60 s)")
    parser.add_argument("--mode", choices=("events", "poll"), default="events",
                        help="follow a match by its events (default) or poll the seat view with ETags")
    parser.add_argument("--think-min-ms", type=float, default=1000, help="shortest think before a move (1000 ms)")
    parser.add_argument("--think-max-ms", type=float, default=3000, help="longest think before a move (3000 ms)")
    parser.add_argument("--poll-ms", type=float, default=500, help="seat view poll interval, poll mode (500 ms)")
    parser.add_argument("--event-wait-s", type=float, default=20,
                        help="events mode: fetch the seat view anyway after this long without an event (20 s)")
    parser.add_argument("--watchers", type=int, default=0,
                        help="strangers watching running matches by their events, in either mode (default 0)")
    parser.add_argument("--arrive-s", type=float, default=2,
                        help="people arrive at random over this many seconds from the start (default 2 s: a burst "
                        "of Play now; give --warmup-s past it to measure the steady state)")
    parser.add_argument("--warmup-s", type=float, default=10,
                        help="also report the seat view and move latencies from this many seconds on (default 10 s: "
                        "after the start's burst of Play now)")
    parser.add_argument("--no-move-view", dest="move_view", action="store_false",
                        help="ignore the seat view a move's answer carries and fetch it after the move's event, as "
                        "clients before it did (default: use it)")
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw",
                        help="the generator's HTTP client: the lean loopback one (default: about a fifth of httpx's "
                        "CPU per move, so the servers get the machine) or httpx (as trials before issue 25's round 4)")
    parser.add_argument("--web-workers", type=int, default=2, help="web server worker processes (default 2)")
    parser.add_argument("--celery", type=int, default=2, help="processes per Celery worker (WORKER_CONCURRENCY, 2)")
    parser.add_argument("--web-cmd", default="", help="the web server command instead of the Procfile's web line "
                        "(keep ${EIGHTS_BIND:-...} or 127.0.0.1:<port> in it)")
    args = parser.parse_args()
    if not (1 <= args.people <= 1000 and 5 <= args.seconds <= 1800 and args.web_workers >= 1 and args.celery >= 1
            and 0 <= args.think_min_ms <= args.think_max_ms <= 600_000 and args.poll_ms >= 50
            and args.event_wait_s >= 1 and 0 <= args.watchers <= 1000 and 0 <= args.arrive_s < args.seconds):
        parser.error("--people 1..1000, --seconds 5..1800, --poll-ms >= 50, 0 <= --think-min-ms <= --think-max-ms, "
                     "--event-wait-s >= 1, --watchers 0..1000, workers >= 1, 0 <= --arrive-s < --seconds")
    port = free_port()
    commands = _procfile_commands(port, args)
    print(f"load trial: {args.people} people, {args.seconds:.0f} s, mode {args.mode}, think "
          f"{args.think_min_ms:.0f}-{args.think_max_ms:.0f} ms"
          + (f", poll {args.poll_ms:.0f} ms" if args.mode == "poll" else "")
          + f"; PostgreSQL + Redis on loopback; WORKER_CONCURRENCY={args.celery}", flush=True)
    for name, command in commands.items():
        print(f"  {name}: {command}", flush=True)
    _database_reset()
    tokens = _setup(args.people)
    subprocess.run(["redis-cli", "-u", BROKER_URL, "flushdb"], check=False, stdout=subprocess.DEVNULL)
    bindir = os.path.dirname(sys.executable)
    env = {**SERVER_ENV, "PATH": bindir + os.pathsep + SERVER_ENV.get("PATH", ""),
           "WORKER_CONCURRENCY": str(args.celery), "WEB_WORKERS": str(args.web_workers),
           "EIGHTS_BIND": f"127.0.0.1:{port}"}
    log_path = os.path.join(ROOT, "var", f"people_load-{port}.log")  # the servers' output: errors to look at
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    log = open(log_path, "w")
    # bash runs each line as the Procfile would (e.g. "web: DB_CONN_MAX_AGE=0 gunicorn ..."); its own session, so
    # stopping it stops all it started
    servers = [subprocess.Popen(["bash", "-c", command], cwd=ROOT, env=env, start_new_session=True,
                                stdout=log, stderr=log) for command in commands.values()]
    stats = Stats()
    try:
        import httpx

        for _ in range(150):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        cpu_before = _cpu_seconds()
        started = time.monotonic()
        trial = _trial(f"http://127.0.0.1:{port}", tokens, args, stats)
        if args.client == "raw":  # uvloop (uvicorn[standard] installs it): the generator's loop costs less too
            import uvloop

            uvloop.run(trial)
        else:
            asyncio.run(trial)
        cpu_after, elapsed = _cpu_seconds(), time.monotonic() - started
    finally:
        _stop(servers)
        log.close()
    lost, extra = _lost_moves(stats)
    from games.models import Match

    finished = Match.objects.filter(status=Match.Status.FINISHED).count()
    mode = args.mode + (" (events endpoint absent: polled)" if stats.events_absent else "")
    print(f"\nresults ({args.people} people, {args.seconds:.0f} s, mode {mode}):")
    print(f"  moves stored (answered 200): {sum(stats.stored.values())}; lost: {lost}; stored beyond the answers: "
          f"{extra}; matches finished: {finished}")
    for endpoint in ("seat_view", "move", "play_now", "events_open", "match_list", "public_view"):
        values = stats.latency.get(endpoint, [])
        if not values:
            continue
        codes = ", ".join(f"{s}: {n}" for (e, s), n in sorted(stats.status.items()) if e == endpoint)
        print(f"  {endpoint:11s} {len(values):6d} requests  p50 {_pct(values, .5):7.1f}  p95 {_pct(values, .95):7.1f}"
              f"  p99 {_pct(values, .99):7.1f}  max {max(values):7.1f} ms  ({codes})")
        steady = stats.steady.get(endpoint, [])
        if steady and endpoint in ("seat_view", "move", "play_now"):
            print(f"  {'':11s} {len(steady):6d} after {args.warmup_s:.0f} s: p50 {_pct(steady, .5):7.1f}  p95 "
                  f"{_pct(steady, .95):7.1f}  p99 {_pct(steady, .99):7.1f}  max {max(steady):7.1f} ms  (everyone "
                  "seated: the start's burst of Play now left out)")
    if args.mode == "events" and not stats.events_absent:
        ev = stats.event_latency
        print(f"  event latency (receipt - published_at_ms) {len(ev)} live events of {stats.events}: p50 "
              f"{_pct(ev, .5):.1f}  p95 {_pct(ev, .95):.1f}  p99 {_pct(ev, .99):.1f}  max {max(ev, default=0):.1f} ms;"
              f" {stats.reconnects} reconnects, {stats.move_views} views taken from moves' answers, "
              f"{stats.safety_fetches} views fetched after {args.event_wait_s:.0f} s "
              f"without an event, {stats.streams_refused} streams refused (those matches polled)")
    if args.watchers and not stats.events_absent:
        ev = stats.watcher_latency
        print(f"  event latency at {args.watchers} watchers: {len(ev)} live events: p50 {_pct(ev, .5):.1f}  p95 "
              f"{_pct(ev, .95):.1f}  p99 {_pct(ev, .99):.1f}  max {max(ev, default=0):.1f} ms")
    names = {f"session:{proc.pid}": name for name, proc in zip(commands, servers)}
    shares = sorted(((cpu_after.get(key, 0) - cpu_before.get(key, 0), names.get(key, key)) for key in cpu_after
                     if key in names or not key.startswith("session:")), reverse=True)
    print(f"  CPU seconds over the {elapsed:.0f} s trial (2 cores = {2 * elapsed:.0f} s): "
          + ", ".join(f"{name} {cpu:.1f}" for cpu, name in shares))
    if stats.steady_cpu is not None and stats.steady_at_stop is not None:
        (cpu_from, moves_from, at_from), (cpu_to, moves_to, at_to) = stats.steady_cpu, stats.steady_at_stop
        moves = moves_to - moves_from
        used = {names.get(key, key): cpu_to.get(key, 0) - cpu_from.get(key, 0) for key in cpu_to
                if key in names or not key.startswith("session:")}
        servers = sum(cpu for name, cpu in used.items() if name != "load generator")
        if moves:
            print(f"  CPU per person move, steady ({moves} moves from {args.warmup_s:.0f} s to the end, "
                  f"{at_to - at_from:.0f} s): servers {1000 * servers / moves:.1f} ms ("
                  + ", ".join(f"{name} {1000 * cpu / moves:.1f}" for name, cpu in
                              sorted(used.items(), key=lambda kv: -kv[1]) if name != "load generator")
                  + f"); the load generator {1000 * used.get('load generator', 0) / moves:.1f} ms "
                  f"({100 * used.get('load generator', 0) / max(0.001, servers + used.get('load generator', 0)):.0f}%"
                  " of all the CPU used)")
    print(f"  5xx or transport errors: {stats.failures()}; the servers' output: {log_path}")
    for line in stats.errors:
        print(f"    {line}")
    if lost or stats.failures():
        sys.exit(1)


if __name__ == "__main__":
    main()
