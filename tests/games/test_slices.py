"""Bots that answer slowly but within their timeout never stall a person's match (issue 8, breaker's finding on slow
bots): the Celery task plays a match in time slices and queues it again behind the others, people's matches first;
the zero-setup loop plays each bots-only match for a short step and serves the people's matches again after each.

Each test runs ``SLOW_MATCHES`` matches of a real HTTP bot that sleeps 0.9 s on every turn (its timeout is 2 s, so it
never faults) against a house bot, then has a person play ``MOVES`` moves against a house bot and times how long
each of their turns takes to come back after their move.

For a measurement (not a test), ``SLICE_SLOW_MATCHES``, ``SLICE_MOVES`` and ``SLICE_CONCURRENCY`` (worker threads)
change those numbers, and ``pytest -s`` prints the waits' p50 and max.
"""

import os
import statistics
import threading
import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from bot_servers import BotServer
from bots_api.models import Bot
from bots_api.services import bot_register
from config.celery import app
from eights_engine import Ruleset
from games.models import Match
from games.services import match_advance, match_create, player_for_user
from games.tasks import match_queue

SLOW_MATCHES = int(os.environ.get("SLICE_SLOW_MATCHES", 4))
MOVES = int(os.environ.get("SLICE_MOVES", 5))
CONCURRENCY = int(os.environ.get("SLICE_CONCURRENCY", 1))
WAIT_BOUND = 3.0  # seconds from a person's move to their next turn
SLOW_MS = 900


@pytest.fixture
def slow_matches(house_bots):
    """``SLOW_MATCHES`` running matches: a bot of its own owner that takes 0.9 s a turn against a house bot."""
    servers, matches = [], []
    try:
        for i in range(SLOW_MATCHES):
            owner = get_user_model().objects.create_user(f"slow{i}", password=f"pw-slow{i}-123")
            server = BotServer(f"sleep:{SLOW_MS}", "s3cret", f"Slow{i}")
            servers.append(server)
            bot, _ = bot_register(owner=owner, name=f"Slow{i}", endpoint_url=server.url)
            Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
            matches.append(match_create(players=[bot.player, house_bots[i % len(house_bots)]],
                                        ruleset=Ruleset.preset("pagat"), turn_timeout_ms=2000))
        yield matches
    finally:
        for server in servers:
            server.stop()


@pytest.fixture
def person_match(house_bots):
    """A person's match against the house bot Rando, the person in seat 0 (to play first), and their client."""
    user = get_user_model().objects.create_user("lin", password="pw-lin-12345")
    client = APIClient()
    client.force_authenticate(user)
    match = match_create(players=[player_for_user(user=user), house_bots[0]], ruleset=Ruleset.preset("pagat"))
    return match, client


def _person_waits(match, client, moves: int, limit: float = 30.0) -> list[float]:
    """Play ``moves`` of the person's moves (the first legal action); the seconds each next turn took to come."""
    waits = []
    url = f"/api/matches/{match.pk}/seats/0/"
    for _ in range(moves + 1):
        began = time.monotonic()
        while not Match.objects.filter(pk=match.pk).exclude(status=Match.Status.RUNNING, awaiting_human=False).exists():
            assert time.monotonic() - began < limit, f"the person's turn did not come back in {limit} s"
            time.sleep(0.02)  # (the database, not the page: the API would throttle this poll)
        waits.append(time.monotonic() - began)
        view = client.get(url).json()
        assert view["your_turn"] or view["status"] != "running", view
        if view["status"] != "running" or len(waits) > moves:
            break
        moved = client.post(f"{url}actions/", {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
        assert moved.status_code == 200, moved.content
    waits = waits[1:]  # the first wait is the match's start
    print(f"\nperson's wait with {SLOW_MATCHES} slow-bot matches: p50 {statistics.median(waits):.2f} s, "
          f"max {max(waits):.2f} s over {len(waits)} moves")
    return waits


def _slow_progress(slow_matches, within: float = 15.0) -> list[int]:
    """The slow matches' ply counts once at least two of them have moved, or after ``within`` seconds.

    The house answers a person's move in the move's own request (issue 25), so the person's moves take no worker
    time and may all be over before the slow matches' slices turn over; the slices show in the slow matches taking
    turns on the one worker within a few slices each (a match played to its end in one go would hold it for minutes).
    """
    began = time.monotonic()
    while True:
        progress = [Match.objects.get(pk=m.pk).ply_count for m in slow_matches]
        if sum(1 for plies in progress if plies > 0) >= 2 or time.monotonic() - began > within:
            return progress
        time.sleep(0.1)


@pytest.mark.django_db
def test_a_used_up_time_budget_stops_a_match_after_at_least_one_ply(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    assert match_advance(match_id=match.pk, time_budget_ms=0) == "budget"  # a slice always moves the match on
    match.refresh_from_db()
    assert match.ply_count == 1 and match.lease_owner == "" and match.lease_until is None  # the lease is released
    assert match_advance(match_id=match.pk, time_budget_ms=60_000) == "finished"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_with_a_real_worker_a_persons_turn_comes_back_while_slow_bots_play(settings, slow_matches, person_match):
    assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
    settings.TASKS = "celery"
    app.control.purge()
    match, client = person_match
    pool = "solo" if CONCURRENCY == 1 else "threads"
    with start_worker(app, pool=pool, concurrency=CONCURRENCY, perform_ping_check=False, shutdown_timeout=30):
        for slow in slow_matches:
            match_queue(match_id=slow.pk)
        time.sleep(1.5)  # the worker is in a slow match; the others are queued
        match_queue(match_id=match.pk)
        waits = _person_waits(match, client, MOVES)
        progress = _slow_progress(slow_matches)
        app.control.purge()
    assert len(waits) == MOVES
    assert max(waits) < WAIT_BOUND, f"the person waited {[round(w, 2) for w in waits]} s for their turn"
    assert sum(1 for plies in progress if plies > 0) >= 2, f"the slow matches took turns too: plies {progress}"


@pytest.mark.django_db(transaction=True)
def test_in_the_zero_setup_loop_a_persons_turn_comes_back_while_slow_bots_play(settings, ladder, slow_matches,
                                                                               person_match):
    from django.db import connection
    from tournaments.management.commands.ladder_run import Command, _Worker

    settings.TASKS = "in_process"
    match, client = person_match
    stop = threading.Event()
    failures = []

    def loop():
        worker = _Worker(Command(), ladders=[], matches=0, forever=True, interval=3600, poll=0.05, timeout=600)
        try:
            while not stop.is_set():
                if not worker.serve():
                    time.sleep(worker.poll)
        except Exception as exc:  # pragma: no cover - reported below
            failures.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        time.sleep(1.5)  # the loop is in a slow match
        waits = _person_waits(match, client, MOVES)
        progress = _slow_progress(slow_matches)
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not failures, failures
    assert len(waits) == MOVES
    assert max(waits) < WAIT_BOUND, f"the person waited {[round(w, 2) for w in waits]} s for their turn"
    assert sum(1 for plies in progress if plies > 0) >= 2, f"the slow matches took turns too: plies {progress}"
