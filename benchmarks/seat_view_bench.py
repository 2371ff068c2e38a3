"""Seat view benchmark (issue 13): ``GET /api/matches/<id>/seats/<seat>/`` on a long running match, replayed from its
whole log (the state cache emptied before every request: what every poll did before issue 13) against this process's
cached state (``games.state_cache``): unchanged since the last poll, and with 3 plies stored since (a poll after the
house bots answered a move).

Builds a match of a person against two house bots (eights-classic, target ``--target``) played to ``--plies``
stored plies through ``games.services`` (the person's moves through ``match_submit_action``), then times
``--requests`` GETs of each kind in this process through Django's test client (token authentication, throttles
and the view: the whole request, without HTTP). Wall and CPU time medians. Uses the database ``eights_bench`` on
PostgreSQL (DATABASE_URL to change). Usage: ``python benchmarks/seat_view_bench.py [--plies 2000] [--requests 50]``.

``--profile N`` then profiles N more GETs of the cached, unchanged view with cProfile, authenticated with an API token
as clients are (DRF's ``TokenAuthentication``), and prints where a request's time goes: DRF's authentication and
throttles, the view's access query, its snapshot and its view, and the rest (Django, DRF, the test client). The
cache is Redis (the broker ``benchmarks.service_bench`` sets). cProfile slows Python
code down, so read the shares, not the milliseconds.
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
# no broker from the caller's shell; but importing benchmarks.service_bench (in main) sets its own, Redis db 14 (so
# match_wake queues tasks nobody takes, and the cache is that Redis)
os.environ.pop("CELERY_BROKER_URL", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, default=2000, help="stored plies of the match (default 2000)")
    parser.add_argument("--target", type=int, default=2000, help="the match's target (default 2000)")
    parser.add_argument("--requests", type=int, default=50, help="GETs of each kind (default 50)")
    parser.add_argument("--profile", type=int, default=0, help="then profile this many token-authenticated GETs of "
                        "the cached view and print the shares of the request's time (default 0: no profile)")
    args = parser.parse_args()
    from benchmarks.service_bench import database_ready

    database_ready()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["seat_view"] = "1000000/min"
    from django.core.cache import cache

    from games import state_cache
    from eights_engine import Ruleset
    from games.models import Match
    from games.matches.snapshots import match_state_snapshot
    from games.services import match_advance, match_create, match_submit_action, player_for_user, \
        player_house_create

    user = get_user_model().objects.filter(username="seat-bench").first() or \
        get_user_model().objects.create_user("seat-bench", password="pw-seat-bench-1")
    houses = [player_house_create(name=f"bench-{s}", strategy=s) for s in ("heuristic", "greedy")]
    match = match_create(players=[player_for_user(user=user), *houses], preset="eights-classic",
                         ruleset=Ruleset.preset("eights-classic", target=args.target), seed=4242)
    print(f"  playing match {match.pk} to {args.plies} plies...", file=sys.stderr)
    while True:
        outcome = match_advance(match_id=match.pk)
        match.refresh_from_db()
        if outcome != "waiting" or match.ply_count >= args.plies:
            break
        snapshot = match_state_snapshot(match=match)
        action = snapshot.state.legal_actions()[0]
        snapshot.keep()
        match_submit_action(match_id=match.pk, seat=0, ply=match.ply_count, action=action, user=user)
    if match.status != Match.Status.RUNNING:
        sys.exit(f"the match ended at {match.ply_count} plies: raise --target")
    client = APIClient()
    client.force_authenticate(user)
    url = f"/api/matches/{match.pk}/seats/0/"

    def timed(prepare) -> tuple[list[float], list[float]]:
        wall, cpu = [], []
        for _ in range(args.requests):
            prepare()
            cache.clear()
            w, c = time.perf_counter(), time.process_time()
            response = client.get(url)
            wall.append(time.perf_counter() - w)
            cpu.append(time.process_time() - c)
            assert response.status_code == 200, response.content[:200]
        return wall, cpu

    # "3 plies since": a cached state 3 plies behind the log (what a poll finds after the house bots answered)
    behind = {}

    def three_behind():
        state_cache.clear()
        state_cache.put(state_cache.key_of(match), behind["state"]())

    def state_three_behind():
        from eights_engine import replay
        from games.matches.snapshots import match_record

        record = match_record(match=match)
        deal = record["deals"][-1]
        cut = max(0, len(deal["actions"]) - 3)
        record["deals"][-1] = {**deal, "actions": deal["actions"][:cut]}
        return replay(record)

    three = state_three_behind()
    import copy

    behind["state"] = lambda: copy.deepcopy(three)
    kinds = [("replayed from the whole log (before)", state_cache.clear), ("cached, unchanged since", lambda: None),
             ("cached, 3 plies stored since", three_behind)]
    client.get(url)  # warm
    rows = []
    for name, prepare in kinds:
        wall, cpu = timed(prepare)
        rows.append((name, statistics.median(wall) * 1000, statistics.median(cpu) * 1000))
    print(f"seat view benchmark: GET {url} of a running match at {match.ply_count} plies "
          f"(eights-classic, 3 seats), {args.requests} GETs each, Django test client, PostgreSQL")
    for name, wall, cpu in rows:
        print(f"  {name:40s} wall p50 {wall:7.2f} ms   cpu p50 {cpu:7.2f} ms   ({rows[0][1] / wall:5.1f}x)")
    if args.profile:
        _profile(url, user, args.profile)


def _profile(url: str, user, requests: int) -> None:
    """cProfile ``requests`` token-authenticated GETs of ``url`` (cached, unchanged) and print the shares."""
    import cProfile
    import pstats

    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from games import api, selectors, services

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    assert client.get(url).status_code == 200  # warm: the state cached, the token's row read once
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        client.get(url)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # (file, line, name) -> (calls, primitive, own s, cumulative s, callers)

    def cumulative(func) -> float:
        code = func.__code__
        return sum(v[3] for (file, line, name), v in stats.items()
                   if file == code.co_filename and line == code.co_firstlineno and name == code.co_name)

    from rest_framework.views import APIView

    total = sum(v[2] for v in stats.values())
    parts = [("DRF authentication (token lookup)", cumulative(APIView.perform_authentication)),
             ("DRF throttles (cache reads and writes)", cumulative(APIView.check_throttles)),
             ("the view: access (match with its seats)", cumulative(services.access_seat)),
             ("the view: snapshot (plies since)", cumulative(selectors.match_state_snapshot)),
             ("the view: building the seat view", cumulative(selectors.seat_view))]
    view = cumulative(api.SeatViewApi.get)
    print(f"profile: {requests} token-authenticated GETs of the cached view, cProfile, {1000 * total / requests:.2f} "
          "ms a request under the profiler")
    for name, seconds in parts:
        print(f"  {name:42s} {100 * seconds / total:5.1f}%")
    rest_of_view = view - sum(seconds for name, seconds in parts if name.startswith("the view"))
    print(f"  {'the view: the rest (ETag, the response)':42s} {100 * rest_of_view / total:5.1f}%")
    print(f"  {'Django, DRF dispatch, the test client':42s} {100 * (total - view - parts[0][1] - parts[1][1]) / total:5.1f}%")


if __name__ == "__main__":
    main()
