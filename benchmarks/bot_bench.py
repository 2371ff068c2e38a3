"""Bot call benchmark: the service's own overhead per bot turn on loopback, and bot turns per second per worker.

Starts two reference bot servers (examples/bot_server.py, ``eager`` strategy, separate processes) on loopback,
plays ``--matches`` two-seat pagat matches between them through ``games.services.match_advance`` in this
process (one worker's loop: engine, signed HTTP call, schema and legality checks, one transaction per ply on
PostgreSQL), and times every turn: the HTTP round trip (which holds the bot's own think time) and everything
else (the service's overhead). Uses the database ``eights_bench`` and needs PostgreSQL on 127.0.0.1.
Usage: ``python benchmarks/bot_bench.py [--matches 5]``.
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
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_bench")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ["BOTS_ALLOW_LOOPBACK"] = "1"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.pop("CELERY_BROKER_URL", None)


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=5, help="matches to play (default 5)")
    args = parser.parse_args()
    if not 1 <= args.matches <= 1000:
        parser.error("--matches must be from 1 to 1000")
    from benchmarks.service_bench import database_ready

    database_ready()
    from django.contrib.auth import get_user_model
    from django.utils import timezone
    import bots_api.agent as agent_module
    from bots_api.models import Bot
    from bots_api.services import bot_register
    from eights_engine import Ruleset
    from games.models import Player
    from games.services import match_advance, match_create

    secret = "bench-secret"
    procs, bots = [], []
    for i, port in enumerate((8791, 8792)):
        # one owner per bot: a match never seats two bots of one owner (games.services.match_create)
        owner, _ = get_user_model().objects.get_or_create(username=f"bench-{i}")
        procs.append(subprocess.Popen([sys.executable, os.path.join(ROOT, "examples", "bot_server.py"), "--port",
                                       str(port), "--secret", secret, "--strategy", "eager"],
                                      stdout=subprocess.DEVNULL))
        name = f"bench-bot-{i}"
        bot = Bot.objects.filter(player__name=name).first() or bot_register(
            owner=owner, name=name, endpoint_url="http://127.0.0.1:9/")[0]
        Bot.objects.filter(pk=bot.pk).update(endpoint_url=f"http://127.0.0.1:{port}/", secret=secret,
                                             verified_at=timezone.now(), is_enabled=True, owner=owner)
        Player.objects.filter(pk=bot.player_id).update(user=owner)
        bots.append(Bot.objects.get(pk=bot.pk))
    time.sleep(1.5)
    http_s: list[float] = []
    real_post = agent_module.post_json

    def timed_post(*a, **k):
        started = time.perf_counter()
        try:
            return real_post(*a, **k)
        finally:
            http_s.append(time.perf_counter() - started)

    agent_module.post_json = timed_post
    try:
        plies = 0
        started = time.perf_counter()
        for i in range(args.matches):
            match = match_create(players=[b.player for b in bots], ruleset=Ruleset.preset("pagat"), seed=500 + i)
            assert match_advance(match_id=match.pk) == "finished"
            match.refresh_from_db()
            plies += match.ply_count
            print(f"  {i + 1}/{args.matches} matches", end="\r", file=sys.stderr)
        elapsed = time.perf_counter() - started
    finally:
        agent_module.post_json = real_post
        for p in procs:
            p.terminate()
            p.wait(10)
    per_ply = elapsed / plies
    overhead = [per_ply - h for h in http_s]  # mean loop time minus each call's round trip
    print(f"bot call benchmark: {args.matches} pagat matches between two reference bots on loopback, "
          f"{plies} bot turns, one worker loop on PostgreSQL")
    print(f"  bot turns per second (one worker):   {plies / elapsed:8.0f}")
    print(f"  HTTP round trip (bot think + wire):  p50 {1000 * _pct(http_s, .5):6.2f} ms   "
          f"p99 {1000 * _pct(http_s, .99):6.2f} ms")
    print(f"  service overhead per turn:           p50 {1000 * _pct(overhead, .5):6.2f} ms   "
          f"p99 {1000 * _pct(overhead, .99):6.2f} ms   (mean turn {1000 * per_ply:.2f} ms minus its round trip)")
    print(f"  mean HTTP share of a turn:           {statistics.mean(http_s) / per_ply:6.1%}")


if __name__ == "__main__":
    main()
