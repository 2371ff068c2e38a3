"""Issue 21: an outage of the broker or the database never aborts a match, and never answers a person with a 500.

The watchdog tells a match that no worker took (queued again, however often) from one that failed in a worker's
hands (counted, aborted past MATCH_MAX_FAILURES in a row); a wake the broker refused is kept in the database and
queued by the watchdog; the match task waits out a database that went away. The broker's own outage is played for
real by benchmarks/fault_trial.py (tests/config/test_fault_trial.py); here the publish is made to fail as an
unreachable Redis makes it fail (kombu's OperationalError), because this test run's broker must stay up."""

import kombu.exceptions
import psycopg
import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games import tasks
from eights_engine import Ruleset
from games.models import Match, Move
from games.services import match_advance, match_create, match_note_stall, matches_stalled, player_for_user

SEED = 2121


def _match(players):
    return match_create(players=players, ruleset=Ruleset.preset("pagat"), preset="pagat", seed=SEED)


def _stall(match, *, claimed: bool):
    """Make ``match`` look stalled: no progress for an hour, no live lease; ``claimed``: a worker took it after
    that and stored nothing (it died with the match)."""
    long_ago = timezone.now() - timezone.timedelta(hours=1)
    Match.objects.filter(pk=match.pk).update(
        last_progress_at=long_ago, lease_owner="", lease_until=None,
        claimed_at=long_ago + timezone.timedelta(seconds=1) if claimed else long_ago - timezone.timedelta(seconds=1))


@pytest.fixture
def broker_down(monkeypatch):
    """Publishing fails as it does while the Redis broker is unreachable."""
    def refuse(*args, **kwargs):
        raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.advance_match, "apply_async", refuse)


@pytest.mark.django_db
def test_a_match_no_worker_took_is_queued_again_however_long_the_outage(house_bots, settings):
    settings.MATCH_MAX_FAILURES = 2
    match = _match(house_bots[:2])
    for _ in range(10):  # ten watchdog passes while no worker takes the task: never the match's failure
        _stall(match, claimed=False)
        assert match.pk in matches_stalled()
        assert match_note_stall(match_id=match.pk) is True
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.resume_count == 10 and match.failures == 0


@pytest.mark.django_db
def test_a_match_that_fails_in_a_workers_hands_is_aborted_past_the_limit(house_bots, settings):
    settings.MATCH_MAX_FAILURES = 2
    match = _match(house_bots[:2])
    for expected in (1, 2):
        _stall(match, claimed=True)
        assert match_note_stall(match_id=match.pk) is True
        match.refresh_from_db()
        assert match.failures == expected and match.status == Match.Status.RUNNING
    assert match_advance(match_id=match.pk, ply_budget=3) == "budget"  # a stored ply: the count starts again
    match.refresh_from_db()
    assert match.failures == 0 and match.claimed_at is not None
    for _ in range(3):
        _stall(match, claimed=True)
        queue_again = match_note_stall(match_id=match.pk)
    match.refresh_from_db()
    assert queue_again is False and match.status == Match.Status.ABORTED
    assert match.abort_reason == "failed 3 times in a row with no ply stored (a worker took it and stored nothing)"


@pytest.mark.django_db
def test_an_unreachable_broker_marks_the_match_and_the_watchdog_queues_it(house_bots, broker_down, monkeypatch):
    match = _match(house_bots[:2])
    assert tasks.match_queue(match_id=match.pk, quick=True) is False  # no exception for the caller
    match.refresh_from_db()
    assert match.wake_pending is True
    monkeypatch.undo()  # the broker is back
    sent = []
    monkeypatch.setattr(tasks.advance_match, "apply_async", lambda args, **kw: sent.append(args[0]))
    monkeypatch.setattr(tasks, "broker_lost_its_queues", lambda: False)
    tasks.watchdog()
    assert sent == [match.pk]
    match.refresh_from_db()
    assert match.wake_pending is False and match.failures == 0 and match.status == Match.Status.RUNNING


@pytest.mark.django_db
def test_a_persons_move_is_stored_while_the_broker_is_unreachable(house_bots, broker_down, settings,
                                                                   django_capture_on_commit_callbacks):
    settings.MATCH_BATCH_PLIES = 1  # the house's answer is left to the match task (queued: the broker is away)
    person = get_user_model().objects.create_user("mira", password="pw-mira-12345")
    client = APIClient()
    client.force_authenticate(person)
    match = match_create(players=[player_for_user(user=person), house_bots[3]], ruleset=Ruleset.preset("pagat"),
                         preset="pagat", seed=SEED)
    while (outcome := match_advance(match_id=match.pk)) != "waiting":
        assert outcome == "budget"
    view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
    with django_capture_on_commit_callbacks(execute=True):
        moved = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                            {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
    assert moved.status_code == 200, moved.content
    assert moved.json()["stored"] is True
    match.refresh_from_db()
    assert match.wake_pending is True and match.ply_count == view["ply"] + 1
    assert Move.objects.filter(deal__match=match, ply=view["ply"]).exists()


def test_the_broker_marker_tells_a_broker_that_lost_its_data():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    key = f"{settings.CELERY_TASK_DEFAULT_QUEUE}.broker-marker"
    client.delete(key)  # as a restarted Redis without persistence comes back: empty
    try:
        assert tasks.broker_lost_its_queues() is True
        assert tasks.broker_lost_its_queues() is False
        assert tasks.broker_lost_its_queues() is False
        client.delete(key)
        assert tasks.broker_lost_its_queues() is True
    finally:
        client.delete(key)


@pytest.mark.django_db(transaction=True)
def test_the_match_task_waits_out_a_terminated_database_connection(house_bots, monkeypatch):
    match = _match(house_bots[:2])
    met, real = [], tasks.plies.match_advance

    def terminated_first(**kwargs):
        """The real match_advance, after the connection it is about to use is terminated the first time."""
        if not met:
            with connection.cursor() as cursor:  # the connection the task's next query uses (health-checked now)
                cursor.execute("SELECT pg_backend_pid()")
                pid = cursor.fetchone()[0]
            dsn = connection.get_connection_params()
            with psycopg.connect(host=dsn.get("host") or "127.0.0.1", port=dsn.get("port") or 5432,
                                 user=dsn.get("user") or "postgres", dbname=dsn["dbname"], autocommit=True) as admin:
                # as a failover or an operator would; waits (up to 5 s) until the backend is gone
                admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
        try:
            return real(**kwargs)
        except Exception as exc:
            met.append(exc)
            raise

    monkeypatch.setattr(tasks.plies, "match_advance", terminated_first)
    outcome = tasks.advance_match.run(match.pk)  # as a worker runs it: not eager, in slices
    assert outcome in ("budget", "finished")
    match.refresh_from_db()
    assert match.ply_count > 0 and match.failures == 0 and match.status != Match.Status.ABORTED
    assert met and isinstance(met[0], tasks.DATABASE_AWAY), met  # it met the dead connection, and waited it out
