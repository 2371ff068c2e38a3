"""Issue 27 item 2: a bot owner's webhook. The bot's notifications (here: its check failing, then passing) reach a
real local HTTP server, signed exactly like the protocol's requests and sent through the address guard, from a task
after the commit; a webhook that fails every try is turned off and the owner is told in the site; a bad URL is
refused saying why."""

from __future__ import annotations

import json
import time

import pytest

from bots_api.models import Bot
from bots_api.services import bot_check_request, bot_check_run
from eights_engine.bots.protocol import verify
from games.models import Notification
from personas import api_client, bot_of


def _notifications(server, count: int = 1) -> list[tuple[dict, dict, bytes]]:
    """The notification requests ``server`` received, waiting up to 10 s for ``count`` (the delivery runs in a
    thread of this process without a broker)."""
    deadline = time.monotonic() + 10
    while True:
        found = [(headers, json.loads(body), body) for headers, body in list(server.requests)
                 if json.loads(body).get("type") == "notification"]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)  # the delivery's thread reads the committed rows
def test_a_bots_notifications_reach_its_owners_webhook_signed_like_the_protocol(
        owner, servers, settings):
    settings.TASKS = "eager"
    bot_server, hook_server = servers("status:500"), servers("good")
    bot = bot_of(owner, bot_server, "Hooked", active=True)
    answer = api_client(owner).patch(f"/api/bots/{bot.pk}/", {"webhook_url": hook_server.url + "hook"}, format="json")
    assert answer.status_code == 200 and answer.json()["webhook_url"] == hook_server.url + "hook"
    bot_check_run(check_id=bot_check_request(bot=bot).pk)
    [(headers, data, raw)] = _notifications(hook_server)
    assert data["kind"] == "bot_check_failed" and data["bot"] == {"id": bot.pk, "name": "Hooked"}
    assert data["text"].startswith("Your bot Hooked failed its check") and data["url"].endswith(f"/bots/{bot.pk}/")
    assert verify("s3cret", raw, headers.get("X-Eights-Timestamp"), headers.get("X-Eights-Signature"))
    bot_server.behaviour = "good"
    bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert [d["kind"] for _h, d, _r in _notifications(hook_server, 2)] == ["bot_check_failed", "bot_recovered"]


@pytest.mark.django_db(transaction=True)
def test_a_webhook_failing_every_try_is_turned_off_and_the_owner_told(owner, servers, settings, monkeypatch):
    from bots_api import webhooks

    settings.TASKS = "eager"
    monkeypatch.setattr(webhooks, "BACKOFF_S", (0.0, 0.0))
    bot_server = servers("status:500")
    bot = bot_of(owner, bot_server, "Deaf", active=True)
    Bot.objects.filter(pk=bot.pk).update(webhook_url="http://127.0.0.1:9/hook")  # nothing listens there
    bot_check_run(check_id=bot_check_request(bot=bot).pk)
    deadline = time.monotonic() + 10
    while Bot.objects.get(pk=bot.pk).webhook_disabled_at is None and time.monotonic() < deadline:
        time.sleep(0.05)
    bot.refresh_from_db()
    assert bot.webhook_disabled_at is not None and bot.webhook_failures == 3
    off = Notification.objects.get(user=owner, kind="webhook_disabled")
    assert "3 tries failed" in off.params["reason"]
    answer = api_client(owner).patch(f"/api/bots/{bot.pk}/", {"webhook_url": "http://127.0.0.1:9/hook"},
                                     format="json")
    assert answer.status_code == 200 and answer.json()["webhook_disabled_at"] is None  # set again: on again


@pytest.mark.django_db
def test_a_bad_webhook_url_is_refused_saying_why(owner, settings):
    bot = bot_of(owner, None, "Picky")
    settings.BOTS_ALLOW_LOOPBACK = False
    for url, words in (("ftp://example.org/x", "webhook_url"), ("http://127.0.0.1:8000/x", "loopback")):
        answer = api_client(owner).patch(f"/api/bots/{bot.pk}/", {"webhook_url": url}, format="json")
        assert answer.status_code == 400 and words in answer.content.decode(), answer.content
    assert api_client(owner).patch(f"/api/bots/{bot.pk}/", {"webhook_url": ""}, format="json").status_code == 200
