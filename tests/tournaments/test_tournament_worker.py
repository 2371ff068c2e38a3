"""Tournaments played by a real Celery worker through Redis on PostgreSQL: a Swiss of 6 house bots (interrupted
mid-round: the worker stopped and every queued message lost, then resumed; it ends with the result of an
uninterrupted run) and a knockout of 8."""

import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from eights_engine.record import verify_record
from games.models import Match
from games.selectors import match_export
from games.services import player_house_create
from games.tasks import match_queue
from tournaments.models import Tournament, TournamentMatch
from tournaments.tasks import tournaments_tick
from tournaments.tournament_selectors import tournament_standings
from tournaments.tournament_services import (tournament_create, tournament_register,
                                             tournament_start)

STRATEGIES = ["random", "eager", "greedy", "heuristic", "tactician", "random", "eager", "greedy"]


def _houses(n):
    return [player_house_create(name=f"W{i}", strategy=STRATEGIES[i]) for i in range(n)]


def _tournament(name, players, seed, **kw):
    t = tournament_create(name=name, target=30, **kw)
    Tournament.objects.filter(pk=t.pk).update(seed=seed)
    for p in players:
        tournament_register(tournament=t, player=p)
    return t


def _wait(t, until, timeout=240, poke=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t.refresh_from_db()
        if until(t):
            return
        if poke is not None:
            poke()
        time.sleep(0.2)
    raise AssertionError(f"timed out: {t.status}, {t.round_set.count()} rounds")


def _tick_when_idle(t):
    """Beat, as the schedule would: the tick again whenever no match of ``t`` is running."""
    def poke():
        if not Match.objects.filter(tournament_match__round__tournament=t, status=Match.Status.RUNNING).exists():
            tournaments_tick.delay()
    return poke


def _table(t):
    return [(r.player.name, r.rank, r.points, r.buchholz) for r in tournament_standings(tournament=t)]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_swiss_of_six_house_bots_survives_a_lost_worker_and_ends_as_an_uninterrupted_one(settings):
    """Every pod is dealt from a fresh secret (engine version 2), so two runs of a tournament deal other cards: the
    run that lost its worker is checked against itself. Each round is created once, only after the one before ended,
    every match is played once and to its end, and every match's record replays exactly as stored."""
    assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
    # one ply per transaction, as before batching: batched house plies finish a round's matches in the moment the
    # worker takes to stop, and this test needs the worker lost mid-round (batches lost mid-way: tests/games)
    settings.MATCH_BATCH_PLIES = 1
    houses = _houses(6)
    app.control.purge()
    t = _tournament("Worker", houses, 4242, format="swiss", rounds=3)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        tournament_start(tournament=t)  # round 1's matches are queued on commit
        _wait(t, lambda t: t.round_set.count() >= 2)
    app.control.purge()  # the worker is gone, and every message with it
    running = list(Match.objects.filter(tournament_match__round__tournament=t, status=Match.Status.RUNNING)
                   .values_list("pk", flat=True))
    assert running  # cut off mid-round: matches with no message left to play them
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        for match_id in running:  # what the watchdog does for stalled matches
            match_queue(match_id=match_id)
        tournaments_tick.delay()  # the beat task: the safety net behind the lost match-finished messages
        _wait(t, lambda t: t.status == Tournament.Status.FINISHED, poke=_tick_when_idle(t))
    assert t.round_set.count() == 3
    assert TournamentMatch.objects.filter(round__tournament=t).count() == 9
    matches = list(Match.objects.filter(tournament_match__round__tournament=t))
    assert all(m.status == Match.Status.FINISHED for m in matches)
    assert len({m.secret for m in matches}) == 9 and all(len(m.secret) == 64 for m in matches)
    rounds = list(t.round_set.order_by("number"))
    for before, after in zip(rounds, rounds[1:]):  # a round starts only once the one before has ended
        ended = max(m.finished_at for m in matches if m.tournament_match.round_id == before.pk)
        assert after.created_at >= ended
    for match in matches:  # every stored ply is the one the engine plays: nothing lost, nothing twice
        verify_record(match_export(match=match, sign=False))
    assert len(_table(t)) == 6


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_knockout_of_eight_house_bots_is_played_to_a_champion_by_a_real_worker():
    houses = _houses(8)
    t = _tournament("Knockout", houses, 99, format="knockout")
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        tournament_start(tournament=t)
        _wait(t, lambda t: t.status == Tournament.Status.FINISHED)
    assert [len(r.slots) for r in t.round_set.order_by("number")] == [8, 4, 2]
    assert TournamentMatch.objects.filter(round__tournament=t).count() == 7
    table = tournament_standings(tournament=t)
    assert [r.rank for r in table] == [1, 2, 3, 3, 5, 5, 5, 5]
    final = t.round_set.get(number=3)
    assert {table[0].player.pk, table[1].player.pk} == set(final.slots)
