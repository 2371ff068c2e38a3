"""Each test run has its own Celery queue (breaker F1): two runs sharing the broker database never take each
other's tasks, and the worker a test starts takes the run's queue."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.contrib.auth import get_user_model

from config.celery import app
from games.services import casual_match_create

ROOT = Path(__file__).resolve().parents[2]

_LOAD = ("import django, json; django.setup(); from django.conf import settings; from config.celery import app; "
         "print(json.dumps([settings.CELERY_TASK_DEFAULT_QUEUE, app.conf.task_default_queue]))")


def _queues_of_a_run(run_id: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TEST_RUN_ID", "TEST_CELERY_QUEUE", "CELERY_QUEUE")}
    env["DJANGO_SETTINGS_MODULE"] = "config.test_settings"
    if run_id is not None:
        env["TEST_RUN_ID"] = run_id
    done = subprocess.run([sys.executable, "-c", _LOAD], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_runs_have_two_queues_and_a_started_process_shares_its_runs():
    first, second = _queues_of_a_run("4101"), _queues_of_a_run("4102")
    assert first == ["eights.test4101"] * 2 and second == ["eights.test4102"] * 2
    assert _queues_of_a_run(None)[0] not in ("celery", first[0])  # no run id given: the process's own (its pid)
    # this run: the queue is named after the run id kept in the environment, so a process it starts shares it
    assert settings.CELERY_TASK_DEFAULT_QUEUE == f"eights.test{os.environ['TEST_RUN_ID']}" != "celery"
    assert app.conf.task_default_queue == settings.CELERY_TASK_DEFAULT_QUEUE
    assert _queues_of_a_run(os.environ["TEST_RUN_ID"])[0] == settings.CELERY_TASK_DEFAULT_QUEUE


def test_a_bad_queue_name_stops_start_up():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "CELERY_QUEUE": "a queue"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "CELERY_QUEUE='a queue'" in done.stderr


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_tasks_go_to_the_runs_queue_and_the_started_worker_takes_it(house_bots):
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("needs the Redis broker")
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queue = settings.MATCH_QUEUE_BOTS  # a match with a person seated: the run's bots queue ("<run queue>.bots")
    assert queue.startswith(settings.CELERY_TASK_DEFAULT_QUEUE + ".")
    app.control.purge()

    def queued(name: str) -> int:  # kombu's Redis priority queues: name, name\x06\x16<priority>
        return sum(broker.llen(k) for k in broker.keys(name.encode() + b"*")
                   if k == name.encode() or k.startswith(name.encode() + b"\x06\x16"))

    celery_before = queued("celery")
    person = get_user_model().objects.create_user("queue-person", password="pw-queue-1")
    match = casual_match_create(user=person, opponents=["Professor"])  # match_wake: advance_match queued
    assert queued(queue) >= 1 and queued("celery") <= celery_before
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        assert {q.name for q in worker.consumer.task_consumer.queues} == {  # no -Q: all of the run's queues
            settings.CELERY_TASK_DEFAULT_QUEUE, settings.MATCH_QUEUE_BOTS, settings.MATCH_QUEUE_HOUSE}
        for _ in range(300):
            if queued(queue) == 0:
                break
            time.sleep(0.1)
    assert queued(queue) == 0  # the worker took the match's task (the person is to play first: it waits for them)
    match.refresh_from_db()
    assert match.lease_owner == ""  # and released the match again
