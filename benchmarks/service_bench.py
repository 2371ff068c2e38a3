"""Service benchmark: complete house-bot matches per minute through Celery (Redis) on PostgreSQL.

Starts real ``celery worker`` processes (prefork, 1 and then 2 processes), queues ``--matches`` two-seat pagat
matches to 100 between house bots, and times until all are finished. Uses its own database ``eights_bench``.
Usage: ``python benchmarks/service_bench.py [--matches 20] [--workers 1,2]``; needs PostgreSQL and Redis
on 127.0.0.1 (or DATABASE_URL / CELERY_BROKER_URL).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_bench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")

from benchmarks.db import database_ready  # noqa: E402  (needs ROOT on sys.path; other benchmarks import it here)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20, help="matches per run (default 20)")
    parser.add_argument("--workers", default="1,2", help="worker process counts to try (default 1,2)")
    args = parser.parse_args()
    try:
        counts = [int(c) for c in args.workers.split(",")]
    except ValueError:
        parser.error("--workers is a comma-separated list of whole numbers, e.g. 1,2")
    if args.matches < 1 or any(c < 1 for c in counts):
        parser.error("--matches and every worker count must be at least 1")
    database_ready()
    from config.celery import app
    from eights_engine import Ruleset
    from games.models import Match
    from games.services import match_create, player_house_create
    from games.tasks import advance_match

    bots = [player_house_create(name=f"bench-{s}", strategy=s) for s in ("heuristic", "greedy", "eager", "random")]
    ruleset = Ruleset.preset("pagat")
    print(f"service benchmark: {args.matches} two-seat pagat matches to 100, house bots, Celery + Redis + PostgreSQL")
    for workers in counts:
        app.control.purge()
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", str(workers), "-P", "prefork",
             "--loglevel", "WARNING", "-n", f"bench{workers}@%h"], cwd=ROOT, stdout=subprocess.DEVNULL)
        try:
            time.sleep(4)  # let the worker connect
            matches = [match_create(players=[bots[i % 4], bots[(i + 1) % 4]], ruleset=ruleset, preset="pagat",
                                    seed=1000 + i) for i in range(args.matches)]
            ids = [m.pk for m in matches]
            start = time.perf_counter()
            for pk in ids:
                advance_match.delay(pk)
            done = 0
            while done < len(ids):
                time.sleep(0.1)
                done = Match.objects.filter(pk__in=ids, status=Match.Status.FINISHED).count()
                print(f"  {workers} worker process(es): {done}/{len(ids)} finished", end="\r", file=sys.stderr)
            elapsed = time.perf_counter() - start
            plies = sum(Match.objects.filter(pk__in=ids).values_list("ply_count", flat=True))
            print(f"{workers} worker process(es): {len(ids) / elapsed * 60:8.1f} matches/min  "
                  f"{plies / elapsed:8.0f} stored plies/s  ({elapsed:.1f} s for {len(ids)} matches)")
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
