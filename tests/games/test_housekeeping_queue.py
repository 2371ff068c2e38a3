"""Breaker: the queue split (issue 13) puts every unrouted task on the housekeeping queue, which the Procfile serves
with ONE process (``housekeeping: ... -Q $CELERY_QUEUE --concurrency 1``). Unrouted are also the two tasks that call
bots over HTTP: ``bots_api.tasks.check_bot`` (a Verify: ping, refusals, ~18 turns and a match_end, "up to about
45 s of bot calls", ``bot_check_run``) and ``bots_api.tasks.notify_match_end`` (one call per bot seat of every
finished match, each up to the match's turn timeout). So one slow bot being verified, or slow bots at the end of
many matches, hold the only housekeeping process while the watchdog (re-queues matches of killed workers), guest
housekeeping, ladder scheduling and tournament ticks wait behind them; an owner with a few bots can keep it busy
for good (Verify allows 12 a minute per account, one running check per bot). Before the split these ran beside the
matches on a pool of several processes.

Reproduction (real worker on the housekeeping queue only, concurrency 1 as in the Procfile): Verify a bot that
answers each turn in 600 ms, then queue the watchdog with a stalled match waiting: the watchdog runs only when the
check is done (~10 s later).
Fix: route ``check_bot`` and ``notify_match_end`` to the bots' queue (``MATCH_QUEUE_BOTS``, a threads pool made for
waiting on HTTP) or a queue of their own; keep housekeeping for short, local tasks.
"""

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from django.utils import timezone

from config.celery import app
from eights_engine import Ruleset
from games.models import Match
from games.services import match_create
from games.tasks import watchdog


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_breaker_a_slow_bots_check_never_holds_the_watchdog_back(house_bots, settings):
    from bot_servers import BotServer
    from bots_api.models import Bot
    from bots_api.services import bot_check_request, bot_register

    owner = get_user_model().objects.create_user("slowpoke", password="pw-slowpoke-123")
    bot, secret = bot_register(owner=owner, name="Molasses", endpoint_url="http://127.0.0.1:9/")
    server = BotServer("sleep:600", secret, "Molasses")
    Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
    bot.refresh_from_db()
    stalled = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=3)
    Match.objects.filter(pk=stalled.pk).update(last_progress_at=timezone.now() - timezone.timedelta(hours=1))
    app.control.purge()
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=90,
                          hostname="housekeeping@test", queues=[settings.HOUSEKEEPING_QUEUE]):
            bot_check_request(bot=bot)  # the owner presses Verify
            time.sleep(1.0)  # the housekeeping process has taken the check
            queued = time.monotonic()
            watchdog.delay()  # beat's every-30-s tick
            while time.monotonic() - queued < 60:
                if Match.objects.get(pk=stalled.pk).resume_count > 0:
                    break
                time.sleep(0.05)
            took = time.monotonic() - queued
            app.control.purge()
    finally:
        server.stop()
        app.amqp.queues.select([q.name for q in app.conf.task_queues])
    assert Match.objects.get(pk=stalled.pk).resume_count > 0
    assert took < 3, f"the watchdog waited {took:.1f} s behind one bot's check"
