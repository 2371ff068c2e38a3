"""Separate Celery queues (issue 13): matches with a bot or a person seated on MATCH_QUEUE_BOTS, house-only matches on
MATCH_QUEUE_HOUSE, housekeeping on CELERY_QUEUE itself; a slow bot's matches never delay a house-only match."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery.signals import before_task_publish
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model

from config.celery import app
from eights_engine import Ruleset
from games.models import Match
from games.services import match_create, player_for_user
from games.people.tasks import guest_housekeeping
from games.tasks import match_queue, watchdog

ROOT = Path(__file__).resolve().parents[2]


def _slow_bot(name, owner, behaviour):
    from bot_servers import BotServer
    from bots_api.models import Bot
    from bots_api.services import bot_register

    owner = get_user_model().objects.create_user(owner, password=f"pw-{owner}-123")
    bot, secret = bot_register(owner=owner, name=name, endpoint_url="http://127.0.0.1:9/")
    server = BotServer(behaviour, secret, name)
    Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
    bot.refresh_from_db()
    return bot, server


def test_the_queues_come_from_the_run_queue_and_every_worker_without_q_takes_them_all():
    base = django_settings.CELERY_TASK_DEFAULT_QUEUE
    assert base.startswith("eights.test")  # this run's own: runs and deployments sharing a broker stay apart
    assert (django_settings.MATCH_QUEUE_BOTS, django_settings.MATCH_QUEUE_HOUSE) == (f"{base}.bots", f"{base}.house")
    assert {q.name for q in app.conf.task_queues} == {base, f"{base}.bots", f"{base}.house"}
    for task in (watchdog, guest_housekeeping):
        assert app.amqp.router.route({}, task.name)["queue"].name == django_settings.HOUSEKEEPING_QUEUE == base


@pytest.mark.django_db
def test_a_match_goes_to_the_queue_its_seats_need(house_bots):
    sent = []

    def record(sender=None, routing_key=None, headers=None, **kwargs):
        sent.append((headers["argsrepr"], routing_key))

    person = get_user_model().objects.create_user("lin", password="pw-lin-12345")
    bot, server = _slow_bot("Sloth", "grace", "good")
    try:
        house = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
        with_bot = match_create(players=[bot.player, house_bots[0]], ruleset=Ruleset.preset("pagat"))
        with_person = match_create(players=[player_for_user(user=person), house_bots[1]], ruleset=Ruleset.preset("pagat"))
        before_task_publish.connect(record)
        try:
            for match in (house, with_bot, with_person):
                match_queue(match_id=match.pk)
        finally:
            before_task_publish.disconnect(record)
        app.control.purge()
    finally:
        server.stop()
    assert sent == [(f"({house.pk},)", django_settings.MATCH_QUEUE_HOUSE),
                    (f"({with_bot.pk},)", django_settings.MATCH_QUEUE_BOTS),
                    (f"({with_person.pk},)", django_settings.MATCH_QUEUE_BOTS)]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_slow_bots_matches_do_not_delay_a_house_only_match(house_bots):
    """Four matches against a bot that takes 300 ms a turn fill the bots' worker (a slice is 3 s, re-queued behind
    the others); a house-only match queued after them is played at once by the house worker. On one shared queue
    it would wait behind four slices (12 s). The two workers are real ``celery worker`` processes, one per queue,
    as the Procfile runs them (two in-process test workers in one process could hang at shutdown)."""
    from django.db import connection

    bot, server = _slow_bot("Sloth", "grace", "sleep:300")
    app.control.purge()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings", "MATCH_SLICE_MS": "3000",
           "TEST_DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}"}
    workers = []
    try:
        slow = [match_create(players=[bot.player, house_bots[i]], ruleset=Ruleset.preset("pagat")) for i in range(4)]
        house = match_create(players=house_bots[2:4], ruleset=Ruleset.preset("pagat"), seed=5)
        for name, queue in (("bots", django_settings.MATCH_QUEUE_BOTS), ("house", django_settings.MATCH_QUEUE_HOUSE)):
            workers.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue,
                 "-n", f"{name}@queues-test", "--loglevel", "WARNING"],
                cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        names = {"bots@queues-test", "house@queues-test"}
        started = time.monotonic()
        while time.monotonic() - started < 60:  # both workers are up (a process takes a few seconds to start)
            answered = {name for reply in app.control.ping(timeout=0.5) for name in reply}
            if names <= answered:
                break
        assert names <= answered, f"the workers did not start: {answered}"
        for match in slow:
            match_queue(match_id=match.pk)
        started = time.monotonic()
        while time.monotonic() - started < 60:  # the bots' worker has taken the first slow match (workers start up)
            if Match.objects.filter(pk__in=[m.pk for m in slow], ply_count__gt=0).exists():
                break
            time.sleep(0.05)
        queued = time.monotonic()
        match_queue(match_id=house.pk)
        while time.monotonic() - queued < 60:
            if Match.objects.get(pk=house.pk).status != Match.Status.RUNNING:
                break
            time.sleep(0.05)
        took = time.monotonic() - queued
        running = Match.objects.filter(pk__in=[m.pk for m in slow], status=Match.Status.RUNNING).count()
        app.control.purge()
        Match.objects.filter(pk__in=[m.pk for m in slow]).update(status=Match.Status.ABORTED)  # end them now
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(timeout=10)
        server.stop()
    assert Match.objects.get(pk=house.pk).status == Match.Status.FINISHED
    assert took < 6, f"the house-only match waited {took:.1f} s behind the slow bot's matches"
    assert running == 4  # the slow bot's matches were all still being played meanwhile
