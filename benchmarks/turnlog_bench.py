"""Turn log benchmark (issue 14): what logging every bot turn costs a turn, and what it stores.

Starts two reference bot servers (examples/bot_server.py, ``eager`` strategy, ``--debug`` so every reply carries a
debug note, separate processes) on loopback and plays two-seat pagat matches between them through
``games.services.match_advance`` in this process (one worker's loop on PostgreSQL). Matches alternate between the
turn log off (``bots_api.agent.turn_log_record`` replaced by a no-op: the service before issue 14) and on, so both
see the same machine noise; every bot turn is timed around the bot agent (HTTP round trip + the log's INSERT) and
the whole ply (agent, referee, the ply's transaction). Then the turn log table's size (heap + TOAST + indexes,
``pg_total_relation_size``) per 1,000 logged turns. Uses the database ``eights_bench_turnlog``.
Usage: ``python benchmarks/turnlog_bench.py [--matches 10]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks import free_port  # noqa: E402 (after the path)
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_bench_turnlog")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ["BOTS_ALLOW_LOOPBACK"] = "1"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.pop("CELERY_BROKER_URL", None)


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="matches to play, half with the log off (default 10)")
    args = parser.parse_args()
    if not 2 <= args.matches <= 1000:
        parser.error("--matches must be from 2 to 1000")
    from benchmarks.service_bench import database_ready

    database_ready()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone
    import bots_api.agent as agent_module
    from bots_api.models import Bot, BotTurn
    from bots_api.services import bot_register
    from games import hooks
    from eights_engine import Ruleset
    from games.models import Player
    from games.services import match_advance, match_create

    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {BotTurn._meta.db_table}")  # sizes below are of this run's rows only
    secret = "bench-secret"
    procs, bots = [], []
    for i in range(2):
        port = free_port()
        owner, _ = get_user_model().objects.get_or_create(username=f"bench-{i}")
        procs.append(subprocess.Popen([sys.executable, os.path.join(ROOT, "examples", "bot_server.py"), "--port",
                                       str(port), "--secret", secret, "--strategy", "eager", "--debug"],
                                      stdout=subprocess.DEVNULL))
        name = f"bench-bot-{i}"
        bot = Bot.objects.filter(player__name=name).first() or bot_register(
            owner=owner, name=name, endpoint_url="http://127.0.0.1:9/")[0]
        Bot.objects.filter(pk=bot.pk).update(endpoint_url=f"http://127.0.0.1:{port}/", secret=secret,
                                             verified_at=timezone.now(), is_enabled=True, owner=owner)
        Player.objects.filter(pk=bot.player_id).update(user=owner)
        bots.append(Bot.objects.get(pk=bot.pk))
    time.sleep(1.5)

    agent_s = {False: [], True: []}
    match_s = {False: [], True: []}
    plies = {False: 0, True: 0}
    real_record = agent_module.turn_log_record
    real_agent = hooks.agent_for("bot")
    logging_on = {"on": True}
    record_s: list[float] = []

    def timed_record(**kwargs):
        started = time.perf_counter()
        try:
            return real_record(**kwargs)
        finally:
            record_s.append(time.perf_counter() - started)

    def timed_agent(**kwargs):
        started = time.perf_counter()
        try:
            return real_agent(**kwargs)
        finally:
            agent_s[logging_on["on"]].append(time.perf_counter() - started)

    hooks.register_agent("bot", timed_agent)
    try:
        for i in range(args.matches):
            on = i % 2 == 1
            logging_on["on"] = on
            agent_module.turn_log_record = timed_record if on else (lambda **kw: None)
            # the same seeds in both modes (pairs of matches): the same plies, the same bot calls
            match = match_create(players=[b.player for b in bots], ruleset=Ruleset.preset("pagat"),
                                 seed=900 + i // 2)
            started = time.perf_counter()
            assert match_advance(match_id=match.pk) == "finished"
            match_s[on].append(time.perf_counter() - started)
            match.refresh_from_db()
            plies[on] += match.ply_count
            print(f"  {i + 1}/{args.matches} matches", end="\r", file=sys.stderr)
    finally:
        agent_module.turn_log_record = real_record
        hooks.register_agent("bot", real_agent)
        for p in procs:
            p.terminate()
            p.wait(10)

    table = BotTurn._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {table}")
        cursor.execute("SELECT pg_relation_size(%s), pg_total_relation_size(%s) - pg_relation_size(%s) - "
                       "pg_indexes_size(%s), pg_indexes_size(%s), pg_total_relation_size(%s)", [table] * 6)
        heap, toast, indexes, total = cursor.fetchone()
        cursor.execute(f"SELECT avg(octet_length(request)), avg(octet_length(reply)), avg(octet_length(debug)) "
                       f"FROM {table}")
        req, rep, dbg = cursor.fetchone()
    rows = BotTurn.objects.count()
    # the write alone, 500 times each way interleaved: as the service does it (no wait for the WAL flush) and a
    # plain autocommit INSERT (what it would cost with synchronous commit)
    from django.db import transaction

    sample = BotTurn.objects.order_by("id").first()
    last_id = BotTurn.objects.order_by("-id").values_list("id", flat=True).first()
    write_s = {"plain": [], "async": []}

    def plain_write():
        BotTurn(bot_id=sample.bot_id, match_id=sample.match_id, deal_number=1, ply=0, seat=0, request=sample.request,
                reply=sample.reply, debug=sample.debug).save(force_insert=True)

    def service_write():
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            plain_write()

    for _ in range(500):
        for name, write in (("plain", plain_write), ("async", service_write)):
            started = time.perf_counter()
            write()
            write_s[name].append(time.perf_counter() - started)
    BotTurn.objects.filter(id__gt=last_id).delete()

    per_ply = {on: sum(match_s[on]) / plies[on] for on in (False, True)}
    print(f"load average: {os.getloadavg()[0]:.1f} (2 cores)")
    print(f"turn log benchmark: {args.matches} pagat matches between two reference bots (--debug) on loopback, "
          f"log off and on in alternate matches on the same seeds, one worker loop on PostgreSQL")
    print(f"  bot turns timed:               off {len(agent_s[False])}   on {len(agent_s[True])}")
    for on in (False, True):
        print(f"  bot agent (HTTP + log), log {'on ' if on else 'off'}: p50 {1000 * _pct(agent_s[on], .5):6.2f} ms   "
              f"p99 {1000 * _pct(agent_s[on], .99):6.2f} ms   mean {1000 * statistics.mean(agent_s[on]):6.2f} ms")
    print(f"  added by the log:              p50 {1000 * (_pct(agent_s[True], .5) - _pct(agent_s[False], .5)):+6.2f} ms"
          f"   p99 {1000 * (_pct(agent_s[True], .99) - _pct(agent_s[False], .99)):+6.2f} ms")
    print(f"  the log's write alone:         p50 {1000 * _pct(record_s, .5):6.2f} ms   "
          f"p99 {1000 * _pct(record_s, .99):6.2f} ms")
    for name, words in (("async", "as the service writes it"), ("plain", "plain INSERT, synchronous commit")):
        print(f"  one log write, {words:32} p50 {1000 * _pct(write_s[name], .5):5.2f} ms   "
              f"p99 {1000 * _pct(write_s[name], .99):5.2f} ms")
    print(f"  whole ply (mean, all seats):   off {1000 * per_ply[False]:6.2f} ms   on {1000 * per_ply[True]:6.2f} ms"
          f"   ratio {per_ply[True] / per_ply[False]:.3f}")
    print(f"  logged turns: {rows}; mean bytes: request {float(req):.0f}, reply {float(rep):.0f}, "
          f"debug {float(dbg):.0f}")
    print(f"  table {table}: heap {heap / 1024:.0f} KiB, TOAST {toast / 1024:.0f} KiB, indexes {indexes / 1024:.0f} "
          f"KiB, total {total / 1024:.0f} KiB")
    print(f"  per 1,000 logged turns:        {total / rows * 1000 / 1024 / 1024:.2f} MiB "
          f"(heap+TOAST {(heap + toast) / rows * 1000 / 1024 / 1024:.2f} MiB, indexes "
          f"{indexes / rows * 1000 / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
