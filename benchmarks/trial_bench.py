"""Trial time on the zero-setup stack (issue 25, target 4): how long a newcomer's trial of a fast bot against a house
bot takes on `make run`, with the demo ladders playing on beside it.

Starts what `make run` starts without a broker, in a scratch directory (``EIGHTS_VAR_DIR``: its own SQLite database):
``migrate``, ``demo_setup``, the two example HTTP bots and ``demo_bots``, then the ladder loop (``ladder_run
--forever --interval 5``, the Procfile.dev line). It waits ``--warmup`` s so the demo ladders' matches are running,
registers a fast bot (``examples/bot_server.py --strategy random``, marked verified: the checks are not what is
measured), creates a trial of ``--matches`` matches against ``--opponent`` and times it from creation to its last
match's end, printing each match as it finishes. It also counts the ladder matches that finished meanwhile (the
ladders must not starve).

Usage: ``python benchmarks/trial_bench.py [--matches 20] [--opponent house:heuristic] [--warmup 10]``.
BENCHMARKS.md ("Trials on make run") quotes runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks import free_port  # noqa: E402 (after the path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--opponent", default="house:heuristic")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of ladder play before the trial")
    parser.add_argument("--limit", type=float, default=900.0, help="give up after this many seconds")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="trial_bench-")
    port = free_port()
    secret = "bench-secret-not-for-production"
    env = {**os.environ, "EIGHTS_VAR_DIR": scratch, "DEMO_BOT_PORT": str(port), "DEMO_BOT_SECRET": secret,
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    for key in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"):
        env.pop(key, None)
    os.environ.clear()
    os.environ.update(env)
    py = sys.executable
    run = dict(cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    procs = []
    try:
        print(f"scratch directory {scratch}: migrate, demo_setup, example bots, demo_bots", flush=True)
        subprocess.run([py, "manage.py", "migrate", "--noinput"], check=True, **run)
        subprocess.run([py, "manage.py", "demo_setup"], check=True, **run)
        fast_port = free_port()
        for p, name, strategy in ((port, "Example Alpha", "heuristic"), (port + 1, "Example Beta", "greedy"),
                                  (fast_port, "Fast", "random")):
            procs.append(subprocess.Popen([py, "examples/bot_server.py", "--port", str(p), "--secret", secret,
                                           "--name", name, "--strategy", strategy], stderr=subprocess.DEVNULL, **run))
        time.sleep(1.0)
        subprocess.run([py, "manage.py", "demo_bots"], check=True, **run)
        loop = subprocess.Popen([py, "manage.py", "ladder_run", "--forever", "--interval", "5"],
                                stderr=subprocess.DEVNULL, **run)
        procs.append(loop)
        print(f"ladder loop started; {args.warmup:.0f} s of ladder play first", flush=True)
        time.sleep(args.warmup)
        return _trial(args, secret, fast_port)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def _trial(args, secret: str, fast_port: int) -> int:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bots_api.models import Bot, TrialMatch
    from bots_api.services import bot_register
    from bots_api.trials import trial_create
    from games.models import Match

    owner = get_user_model().objects.create_user("bench-author", password="bench-author-pw-123")
    bot, _ = bot_register(owner=owner, name="FastBench", endpoint_url=f"http://127.0.0.1:{fast_port}/")
    Bot.objects.filter(pk=bot.pk).update(secret=secret, verified_at=timezone.now())
    bot.refresh_from_db()
    ladder_done_before = Match.objects.filter(ladder_match__isnull=False, status=Match.Status.FINISHED).count()
    running = Match.objects.filter(status=Match.Status.RUNNING).count()
    began = time.monotonic()
    trial = trial_create(bot=bot, opponents=[args.opponent], matches=args.matches)
    print(f"trial #{trial.pk}: {args.matches} matches of {bot.name} against {args.opponent} "
          f"({running} matches running beside it)", flush=True)
    ids = list(TrialMatch.objects.filter(trial=trial).values_list("match_id", flat=True))
    seen: set[int] = set()
    plies = 0
    while len(seen) < len(ids):
        if time.monotonic() - began > args.limit:
            print(f"gave up after {args.limit:.0f} s with {len(seen)} of {len(ids)} matches finished")
            return 1
        for pk, ply_count in Match.objects.filter(pk__in=ids).exclude(status=Match.Status.RUNNING) \
                .values_list("pk", "ply_count"):
            if pk not in seen:
                seen.add(pk)
                plies += ply_count
                print(f"[{len(seen):>2}/{len(ids)}] {time.monotonic() - began:6.1f} s  match #{pk}: "
                      f"{ply_count} plies", flush=True)
        time.sleep(0.2)
    took = time.monotonic() - began
    ladder_done = Match.objects.filter(ladder_match__isnull=False, status=Match.Status.FINISHED).count() \
        - ladder_done_before
    print(f"trial of {len(ids)} matches: {took:.1f} s ({plies} plies, {plies / took:.0f} plies/s); "
          f"{ladder_done} ladder matches finished meanwhile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
