"""Queue benchmark (issue 13): matches per minute of bot matches and of house-only matches played at once by real
Celery workers, on one shared pool against the three-queue layout of the Procfile.

Starts an HTTP bot on loopback that thinks ``--bot-ms`` ms a turn (tests/support/bot_servers.py, ``sleep:MS``),
creates ``--bot-matches`` two-seat pagat matches of that bot against a house bot and ``--house-matches`` house-only
ones, queues them all (``games.tasks.match_queue``) and times until each kind is finished, twice:
"one pool": one ``celery worker`` (prefork, 2 processes) taking every queue, as before issue 13;
"three queues": the Procfile's ``worker`` (``.house``, prefork, 2 processes) and ``botworker`` (``.bots``, threads,
``--threads``). Needs PostgreSQL and Redis on 127.0.0.1; uses the database ``eights_bench`` and the queue
``CELERY_QUEUE`` (default ``eights.bench``). Usage: ``python benchmarks/queue_bench.py [--bot-matches 8]
[--house-matches 8] [--bot-ms 20] [--threads 16]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_bench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
os.environ.setdefault("CELERY_QUEUE", "eights.bench")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ["BOTS_ALLOW_LOOPBACK"] = "1"
os.environ.setdefault("LOG_LEVEL", "WARNING")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot-matches", type=int, default=8)
    parser.add_argument("--house-matches", type=int, default=8)
    parser.add_argument("--bot-ms", type=int, default=20, help="the bot's think time per turn (ms)")
    parser.add_argument("--threads", type=int, default=16, help="threads of the bots' worker (default 16)")
    args = parser.parse_args()
    from benchmarks.service_bench import database_ready

    database_ready()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from bot_servers import BotServer

    from bots_api.models import Bot
    from bots_api.services import bot_register
    from config.celery import app
    from eights_engine import Ruleset
    from games.models import Match
    from games.services import match_create, player_house_create
    from games.tasks import match_queue

    houses = [player_house_create(name=f"bench-{s}", strategy=s) for s in ("heuristic", "greedy", "eager", "random")]
    owner, _ = get_user_model().objects.get_or_create(username="queue-bench")
    bot = Bot.objects.filter(player__name="queue-bench-bot").first() or bot_register(
        owner=owner, name="queue-bench-bot", endpoint_url="http://127.0.0.1:9/")[0]
    server = BotServer(f"sleep:{args.bot_ms}", "queue-bench-secret", "queue-bench-bot")
    Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url, secret="queue-bench-secret",
                                         verified_at=timezone.now(), is_enabled=True)
    bot = Bot.objects.get(pk=bot.pk)
    base = settings.CELERY_TASK_DEFAULT_QUEUE
    layouts = {
        "one pool (before)": [["-Q", f"{base},{base}.bots,{base}.house", "-P", "prefork", "--concurrency", "2"]],
        "three queues (after)": [["-Q", f"{base}.house", "-P", "prefork", "--concurrency", "2"],
                                 ["-Q", f"{base}.bots", "-P", "threads", "--concurrency", str(args.threads)]],
    }
    print(f"queue benchmark: {args.bot_matches} matches of a bot thinking {args.bot_ms} ms a turn against a house "
          f"bot and {args.house_matches} house-only matches, queued together; Celery + Redis + PostgreSQL")
    try:
        for name, workers in layouts.items():
            app.control.purge()
            procs = [subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", *w, "--loglevel",
                                       "WARNING", "-n", f"qbench{i}@%h"], cwd=ROOT, stdout=subprocess.DEVNULL)
                     for i, w in enumerate(workers)]
            try:
                time.sleep(5)
                ruleset = Ruleset.preset("pagat")
                bots = [match_create(players=[bot.player, houses[i % 4]], ruleset=ruleset, seed=100 + i).pk
                        for i in range(args.bot_matches)]
                house = [match_create(players=[houses[i % 4], houses[(i + 1) % 4]], ruleset=ruleset,
                                      seed=200 + i).pk for i in range(args.house_matches)]
                started = time.perf_counter()
                for pk in bots + house:
                    match_queue(match_id=pk)
                done: dict[str, float] = {}
                while len(done) < 2 and time.perf_counter() - started < 600:
                    time.sleep(0.1)
                    for kind, ids in (("bot", bots), ("house", house)):
                        if kind not in done and not Match.objects.filter(pk__in=ids,
                                                                         status=Match.Status.RUNNING).exists():
                            done[kind] = time.perf_counter() - started
                print(f"  {name:22s} bot matches {len(bots) / done['bot'] * 60:7.1f}/min (all done in "
                      f"{done['bot']:5.1f} s)   house-only {len(house) / done['house'] * 60:7.1f}/min (all done in "
                      f"{done['house']:5.1f} s)")
            finally:
                for p in procs:
                    p.terminate()
                for p in procs:
                    p.wait(30)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
