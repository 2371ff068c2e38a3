"""Fault trial (issue 21): people and the house play on the production stack while Redis, PostgreSQL connections, web
workers and Celery workers are killed and restarted at random; then the stored matches are checked.

Loopback only, bounded in time. Starts its own redis-server on a free port (nothing on disk, as production's) and
its own PostgreSQL database ``eights_fault``; runs the Procfile's web, worker, botworker, housekeeping and beat lines
against them (the trial is their supervisor: it restarts what it kills, and counts any process that exits on its
own); creates a two-seat pagat ladder of house bots, whose ticks keep house matches running on the house queue, and
``--people`` accounts that press Play now (``match_with: bots``) and play over the REST API (the seat view, random
legal moves, retries on 429/503/errors with the view's ``ply``: a move is never stored twice).

For ``--seconds`` it injects, every 8-15 s (``--seed``), one of: Redis SIGKILLed and started again (empty) after 5 to
``--redis-outage-max`` s; every connection to the database terminated (``pg_terminate_backend``); a web worker
SIGKILLed (gunicorn's master starts another); a graceful web reload (SIGHUP); a Celery worker SIGKILLed and started
1-3 s later; a Celery worker stopped warmly (SIGTERM) and started again. ``--schedule all``: each once, in that order.
Then the ladder stops scheduling, the people finish their matches (``--drain-seconds`` at most), and it checks:

- 0 moves answered ``200 stored`` but not in the database; 0 duplicate plies (two moves for one deal and ply);
- 0 matches aborted; 0 still running; every finished match identical to a replay (``manage.py verify_matches``);
- 0 answers 500 (or other 5xx but 503, which is allowed with Retry-After while the database is away);
- 0 processes that exited on their own;
- no address locked out of live streams: after a lease (``LIVE_STREAM_LEASE_SECONDS``), ``LIVE_STREAMS_PER_ADDRESS``
  streams opened at once from 127.0.0.1 all answer 200.

Usage: ``python benchmarks/fault_trial.py [--seconds 150] [--people 6] [--schedule random|all]``; exits 1 when a
check fails. The servers' output goes to var/fault_trial-<port>.log. BENCHMARKS.md ("Fault trial") quotes a run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks import free_port  # noqa: E402 (after the path)


REDIS_PORT = free_port()
DATABASE = os.environ.get("FAULT_DATABASE", "eights_fault")
if not DATABASE.startswith("eights_fault"):
    raise SystemExit(f"refusing to use {DATABASE!r}: the fault trial only resets databases named eights_fault*")
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
BROKER_URL = f"redis://127.0.0.1:{REDIS_PORT}/0"
LEASE_SECONDS = 10
STREAM_CAP = 6
# the people_load module reads these at import: the trial's own database and Redis, never the load trial's
os.environ["LOAD_DATABASE_URL"], os.environ["LOAD_BROKER_URL"] = DATABASE_URL, BROKER_URL

from benchmarks.people_load import SERVER_ENV, Person, Stats, Watcher, _lost_moves  # noqa: E402

SERVER_ENV.update({
    "WATCHDOG_SECONDS": "5", "MATCH_STALL_SECONDS": "15", "MATCH_LEASE_SECONDS": "20", "LADDER_TICK_SECONDS": "3",
    "LIVE_STREAMS_PER_ADDRESS": str(STREAM_CAP), "LIVE_STREAM_LEASE_SECONDS": str(LEASE_SECONDS),
    "LIVE_KEEPALIVE_SECONDS": "3",
    "LOG_LEVEL": "WARNING", "CELERY_QUEUE": "fault", "HUMAN_MOVE_SECONDS": "120"})
FAULTS = ("redis", "postgres", "web-kill", "web-reload", "worker-kill", "worker-stop")


def _database_reset() -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE}"')


def _setup(people: int, target: int) -> list[str]:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from games.services import player_house_create
    from tournaments.services import ladder_create, ladder_entry_create

    call_command("migrate", verbosity=0)
    ladder = ladder_create(name="Fault trial", slug="load", preset="pagat", seats_per_match=2, max_running_matches=6,
                           target=target)
    for strategy in ("heuristic", "greedy", "eager", "random"):
        ladder_entry_create(ladder=ladder, player=player_house_create(name=f"fault-{strategy}", strategy=strategy))
    User = get_user_model()
    tokens = [Token.objects.create(user=User.objects.create_user(username=f"person{i:03d}", password="fault-trial-pw")
                                   ).key for i in range(people)]
    from django.db import connections

    connections.close_all()
    return tokens


def _procfile(port: int) -> dict[str, str]:
    """The Procfile's lines but the example bots, the web server bound to 127.0.0.1:``port``."""
    commands = {}
    with open(os.path.join(ROOT, "Procfile")) as f:
        for line in f:
            name, sep, command = line.partition(":")
            if sep and not line.startswith("#") and name.strip() not in ("bot1", "bot2"):
                commands[name.strip()] = command.strip().replace("--access-logfile -", "")
    commands["web"] = commands["web"].replace("${EIGHTS_BIND:-127.0.0.1:8000}", f"127.0.0.1:{port}")
    assert f"127.0.0.1:{port}" in commands["web"], commands["web"]
    return commands


class Stack:
    """The trial's processes: its Redis and the Procfile's lines, each in its own session; it restarts what it
    kills, and counts (and restarts) what exits on its own."""

    def __init__(self, port: int, log_path: str):
        self.commands = _procfile(port)
        self.env = {**SERVER_ENV, "EIGHTS_BIND": f"127.0.0.1:{port}",
                    "PATH": os.path.dirname(sys.executable) + os.pathsep + SERVER_ENV.get("PATH", "")}
        self.log = open(log_path, "w")
        self.procs: dict[str, subprocess.Popen] = {}
        self.killing: set[str] = set()  # names the trial is stopping: their exit is not a failure
        self.exits: list[str] = []  # processes that exited on their own
        self.redis_dir = tempfile.mkdtemp(prefix="fault-redis-")
        self.redis = None

    def start_redis(self) -> None:
        self.redis = subprocess.Popen(["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1", "--save",
                                       "", "--appendonly", "no", "--dir", self.redis_dir],
                                      stdout=subprocess.DEVNULL, start_new_session=True)
        for _ in range(50):
            if subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "ping"], capture_output=True,
                              text=True).stdout.strip() == "PONG":
                return
            time.sleep(0.1)

    def start(self, name: str) -> None:
        self.killing.discard(name)
        self.procs[name] = subprocess.Popen(["bash", "-c", self.commands[name]], cwd=ROOT, env=self.env,
                                            start_new_session=True, stdout=self.log, stderr=self.log)

    def signal(self, name: str, sig: int) -> None:
        try:
            os.killpg(self.procs[name].pid, sig)
        except ProcessLookupError:
            pass

    def supervise(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None and name not in self.killing:
                self.exits.append(f"{name} exited with {proc.returncode}")
                print(f"  !! {name} exited on its own ({proc.returncode}); restarting it", flush=True)
                self.start(name)

    def web_children(self) -> list[int]:
        master = self.procs["web"].pid
        out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
        return [int(pid) for pid in out]

    def stop(self) -> None:
        for name in self.procs:
            self.killing.add(name)
            self.signal(name, signal.SIGTERM)
        for name, proc in self.procs.items():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                self.signal(name, signal.SIGKILL)
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait()
        self.log.close()


async def _fault(stack: Stack, kind: str, rng: random.Random, args, say) -> None:
    if kind == "redis":
        outage = rng.uniform(5, max(5, args.redis_outage_max))
        say(f"Redis SIGKILLed, back in {outage:.0f} s")
        stack.redis.kill()
        stack.redis.wait()
        await asyncio.sleep(outage)
        stack.start_redis()
        say("Redis started again (empty)")
    elif kind == "postgres":
        import psycopg

        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
            killed = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s "
                                  "AND pid <> pg_backend_pid()", [DATABASE]).fetchone()[0]
        say(f"{killed} database connections terminated")
    elif kind == "web-kill":
        children = stack.web_children()
        if children:
            os.kill(rng.choice(children), signal.SIGKILL)
        say(f"a web worker SIGKILLed (of {len(children)})")
    elif kind == "web-reload":
        os.kill(stack.procs["web"].pid, signal.SIGHUP)
        say("web reloaded gracefully (SIGHUP)")
    else:
        name = rng.choice(["worker", "botworker", "housekeeping", "beat"])
        sig = signal.SIGKILL if kind == "worker-kill" else signal.SIGTERM
        stack.killing.add(name)
        stack.signal(name, sig)
        say(f"{name} {'SIGKILLed' if sig == signal.SIGKILL else 'stopped warmly (SIGTERM)'}")
        proc = stack.procs[name]
        for _ in range(600):
            if proc.poll() is not None:
                break
            await asyncio.sleep(0.1)
        else:
            stack.signal(name, signal.SIGKILL)
        await asyncio.sleep(rng.uniform(1, 3))
        stack.start(name)
        say(f"{name} started again")


class _PlaysFirst(random.Random):
    """A person's choices: a random card when one can be played, else a random legal action (uniformly random
    actions draw so often that a deal can run for hundreds of plies)."""

    def choice(self, seq):
        plays = [action for action in seq if isinstance(action, dict) and action.get("type") == "play"]
        return super().choice(plays or seq)


class TrialPerson(Person):
    """A person who starts matches until the chaos ends, and plays the one in hand to its end (``stop_at``)."""

    chaos_end = 0.0

    async def run(self) -> None:
        await asyncio.sleep(self.rng.random() * 2)
        while time.monotonic() < self.chaos_end:
            r = await self.call("play_now", "POST", "/api/ladders/load/play/", json={"match_with": "bots"})
            if r is None or r.status_code != 201:
                await asyncio.sleep(1)
                continue
            self.stats.matches_started += 1
            await self.play_polling(r.json()["match_id"], r.json()["seat"])


async def _trial(base_url: str, tokens: list[str], stack: Stack, args, stats: Stats) -> list[str]:
    import httpx

    rng = random.Random(args.seed)
    started = time.monotonic()
    events: list[str] = []

    def say(what: str) -> None:
        line = f"  {time.monotonic() - started:6.1f} s: {what}"
        events.append(line)
        print(line, flush=True)

    TrialPerson.chaos_end = started + args.seconds
    stop_at = started + args.seconds + args.drain_seconds + (120 if args.schedule == "all" else 0)
    limits = httpx.Limits(max_connections=4 * len(tokens) + 10, keepalive_expiry=1.0)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:
        people = [asyncio.create_task(TrialPerson(client, token, args, stats, stop_at, _PlaysFirst(i)).run())
                  for i, token in enumerate(tokens)]
        # strangers holding event streams through the faults (a killed web worker leaves their slots behind)
        watchers = [asyncio.create_task(Watcher(client, tokens[i % len(tokens)], args, stats, TrialPerson.chaos_end,
                                                random.Random(1000 + i)).run()) for i in range(args.watchers)]
        schedule = list(FAULTS) if args.schedule == "all" else []
        next_fault = started + rng.uniform(8, 15)
        ladder_stopped = False
        while not all(p.done() for p in people) and time.monotonic() < stop_at:
            stack.supervise()
            now = time.monotonic()
            if schedule and now >= TrialPerson.chaos_end:  # --schedule all: the chaos lasts until each kind struck
                TrialPerson.chaos_end = next_fault + 1
            if now < TrialPerson.chaos_end and now >= next_fault and (schedule or args.schedule == "random"):
                kind = schedule.pop(0) if schedule else rng.choice(FAULTS)
                await _fault(stack, kind, rng, args, say)
                next_fault = time.monotonic() + rng.uniform(8, 15)
            if now >= TrialPerson.chaos_end and not ladder_stopped:
                await asyncio.to_thread(_ladder_stop)
                ladder_stopped = True
                say("chaos over: the ladder schedules nothing more; draining")
            if int(now - started) % 5 == 0:
                statuses = Counter()
                for (_, status), n in stats.status.items():
                    statuses[status] += n
                say(f"{sum(stats.stored.values())} moves stored, {stats.matches_started} matches started, "
                    f"{await asyncio.to_thread(_running)} running, {stats.events} events watched, answers by "
                    f"status {dict(sorted(statuses.items()))}")
            await asyncio.sleep(1)
        for task in people + watchers:
            task.cancel()
        await asyncio.gather(*people, *watchers, return_exceptions=True)
        while time.monotonic() < stop_at and await asyncio.to_thread(_running):  # house matches still finishing
            stack.supervise()
            await asyncio.sleep(1)
    return events


def _ladder_stop() -> None:
    from django.db import connections

    from tournaments.models import Ladder

    Ladder.objects.filter(slug="load").update(is_active=False)
    connections.close_all()


def _running() -> int:
    from django.db import connections

    from games.models import Match

    try:
        return Match.objects.filter(status=Match.Status.RUNNING).count()
    finally:
        connections.close_all()


async def _streams_open(base_url: str, match_id: int) -> list[int]:
    """Open STREAM_CAP event streams at once from this address; their statuses."""
    import httpx

    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        async def one():
            async with client.stream("GET", f"/api/matches/{match_id}/events/",
                                     headers={"Last-Event-ID": "0"}) as response:
                return response.status_code

        return list(await asyncio.gather(*(one() for _ in range(STREAM_CAP))))


def _checks(stats: Stats, stack: Stack, base_url: str) -> list[tuple[str, bool, str]]:
    from django.db import connection, connections

    from games.models import Match

    connections.close_all()
    lost, extra = _lost_moves(stats)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM (SELECT deal_id, ply FROM games_move GROUP BY deal_id, ply "
                       "HAVING count(*) > 1) AS twice")
        duplicates = cursor.fetchone()[0]
    aborted = list(Match.objects.filter(status=Match.Status.ABORTED).values_list("pk", "abort_reason"))
    running = Match.objects.filter(status=Match.Status.RUNNING).count()
    finished = Match.objects.filter(status=Match.Status.FINISHED).count()
    verify = subprocess.run([sys.executable, "manage.py", "verify_matches", "--no-progress"], cwd=ROOT,
                            env={**stack.env, "LOG_LEVEL": "WARNING"}, capture_output=True, text=True, timeout=600)
    statuses = Counter()
    for (_, status), n in stats.status.items():
        statuses[status] += n
    errors = sum(n for s, n in statuses.items() if s >= 500 and s != 503)
    time.sleep(LEASE_SECONDS + 5)  # leases held by killed web workers run out
    some_match = Match.objects.order_by("pk").values_list("pk", flat=True).first()
    opened = asyncio.run(_streams_open(base_url, some_match)) if some_match else []
    verify_tail = (verify.stdout + verify.stderr).strip().splitlines()[-1:] or [""]
    return [
        ("no acknowledged move lost", lost == 0, f"{sum(stats.stored.values())} moves answered stored, {lost} "
         f"missing ({extra} more stored: the clock's fallbacks)"),
        ("no duplicate ply", duplicates == 0, f"{duplicates} (deal, ply) pairs stored twice"),
        ("no match aborted", not aborted, f"{len(aborted)} aborted {aborted[:5]}"),
        ("no match left running", running == 0, f"{running} running, {finished} finished"),
        ("every finished match replays", verify.returncode == 0, f"verify_matches: {verify_tail[0][:200]}"),
        ("no 500 answer", errors == 0, f"answers by status {dict(sorted(statuses.items()))} (0: transport errors "
         f"while a web worker restarts; 503: the database away, with Retry-After); {stats.errors[:3]}"),
        ("no process exited on its own", not stack.exits,
         f"{len(stack.exits)}: " + "; ".join(stack.exits[:8]) if stack.exits else "none"),
        ("no address locked out of live streams", opened == [200] * STREAM_CAP,
         f"{STREAM_CAP} streams opened at once after a lease: {opened}"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=6, help="simulated people (default 6)")
    parser.add_argument("--seconds", type=float, default=150, help="length of the chaos (default 150 s)")
    parser.add_argument("--drain-seconds", type=float, default=240, help="longest wait for matches to end (240 s)")
    parser.add_argument("--redis-outage-max", type=float, default=30, help="longest Redis outage (default 30 s)")
    parser.add_argument("--schedule", choices=("random", "all"), default="random",
                        help="random faults (default), or each kind once in order (the test)")
    parser.add_argument("--seed", type=int, default=21, help="the random schedule's seed (default 21)")
    parser.add_argument("--target", type=int, default=50, help="the ladder's match target (default 50 points: "
                        "matches short enough to finish in the drain)")
    parser.add_argument("--think-min-ms", type=float, default=200)
    parser.add_argument("--think-max-ms", type=float, default=600)
    parser.add_argument("--poll-ms", type=float, default=400, help="seat view poll interval (default 400 ms)")
    parser.add_argument("--watchers", type=int, default=3, help="strangers following running matches' event "
                        "streams during the faults (default 3)")
    args = parser.parse_args()
    args.mode, args.move_view = "poll", False
    if not (1 <= args.people <= 100 and 10 <= args.seconds <= 1800 and 10 <= args.drain_seconds <= 1800
            and 5 <= args.redis_outage_max <= 300):
        parser.error("--people 1..100, --seconds 10..1800, --drain-seconds 10..1800, --redis-outage-max 5..300")
    port = free_port()
    log_path = os.path.join(ROOT, "var", f"fault_trial-{port}.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    print(f"fault trial: {args.people} people, {args.seconds:.0f} s of faults ({args.schedule}, seed {args.seed}), "
          f"Redis on :{REDIS_PORT}, database {DATABASE}; servers' output: {log_path}", flush=True)
    _database_reset()
    tokens = _setup(args.people, args.target)
    stack = Stack(port, log_path)
    stats = Stats()
    base_url = f"http://127.0.0.1:{port}"
    try:
        stack.start_redis()
        for name in stack.commands:
            stack.start(name)
        import httpx

        for _ in range(150):
            try:
                if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        else:
            raise SystemExit(f"the stack never answered /healthz 200: see {log_path}")
        asyncio.run(_trial(base_url, tokens, stack, args, stats))
        checks = _checks(stats, stack, base_url)
    finally:
        stack.stop()
    print("\nchecks:")
    for name, ok, detail in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {name}: {detail}")
    if not all(ok for _, ok, _ in checks):
        print(f"  the servers' output: {log_path}")
        sys.exit(1)


if __name__ == "__main__":
    main()
