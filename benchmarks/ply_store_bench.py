"""Stored plies per second of one worker loop (issue 13): house-only matches played through
``games.services.match_advance`` in this process on PostgreSQL, each ply in its own transaction
(``MATCH_BATCH_PLIES=1``) against batches of consecutive house plies (``--batch``, default 32), alternating
match by match so both see the same machine. Uses the database ``eights_bench`` (DATABASE_URL to change).
Usage: ``python benchmarks/ply_store_bench.py [--matches 10] [--batch 32]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_bench")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.pop("CELERY_BROKER_URL", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="matches of each kind (default 10)")
    parser.add_argument("--batch", type=int, default=32, help="plies per transaction to compare with 1 (default 32)")
    args = parser.parse_args()
    from benchmarks.service_bench import database_ready

    database_ready()
    from django.conf import settings
    from eights_engine import Ruleset
    from games.models import Match
    from games.services import match_advance, match_create, player_house_create

    bots = [player_house_create(name=f"bench-{s}", strategy=s) for s in ("heuristic", "greedy", "eager", "random")]
    rates: dict[int, list[float]] = {1: [], args.batch: []}
    settings.MATCH_BATCH_MS = 1000
    for i in range(args.matches):
        for batch in (1, args.batch):
            settings.MATCH_BATCH_PLIES = batch
            match = match_create(players=[bots[i % 4], bots[(i + 1) % 4]], ruleset=Ruleset.preset("pagat"),
                                 seed=7000 + i)
            started = time.perf_counter()
            assert match_advance(match_id=match.pk) == "finished"
            elapsed = time.perf_counter() - started
            rates[batch].append(Match.objects.get(pk=match.pk).ply_count / elapsed)
        print(f"  {i + 1}/{args.matches}", end="\r", file=sys.stderr)
    one, many = statistics.median(rates[1]), statistics.median(rates[args.batch])
    print(f"ply store benchmark: {args.matches} two-seat pagat matches of house bots per kind, one worker loop, "
          "PostgreSQL")
    print(f"  each ply its own transaction:   {one:7.0f} stored plies/s (median of matches)")
    print(f"  up to {args.batch} house plies a transaction: {many:7.0f} stored plies/s  ({many / one:.1f}x)")


if __name__ == "__main__":
    main()
