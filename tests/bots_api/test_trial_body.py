"""Breaker: ``POST /api/bots/<id>/trials/`` with a body that lacks ``opponents`` (``{}``, ``null``, an empty body, or
any object naming only other fields) answers HTTP 500: the view passes the body's fields straight to
``trials.trial_create(bot=..., **fields)``, whose ``opponents`` is a required keyword, so Python raises
``TypeError: trial_create() missing 1 required keyword-only argument: 'opponents'`` before any check runs.

Reproduction: ``curl -X POST -H 'Authorization: Token T' -H 'Content-Type: application/json' -d '{}'
/api/bots/<id>/trials/`` -> 500 {"error": "server_error"}.
Fix: give ``opponents`` a default (None) in ``trial_create`` so its own check answers 400 ``invalid_opponents``
("opponents is a non-empty list, e.g. ["house:heuristic"]"), or check the body with the view's ``Input`` serializer.
"""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from bots_api.models import Bot
from bots_api.services import bot_register

from bot_servers import BotServer


@pytest.mark.django_db
@pytest.mark.parametrize("body", [{}, None, {"matches": 5}, {"seeds": [1, 2]}])
def test_breaker_a_trial_request_without_opponents_is_a_400_saying_what_is_missing(body):
    server = BotServer("good", "s3cret")
    try:
        owner = get_user_model().objects.create_user("cleo", password="pw-cleo-123456")
        bot, _secret = bot_register(owner=owner, name="Tried", endpoint_url=server.url)
        Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
        client = APIClient(raise_request_exception=False)
        client.force_authenticate(owner)
        answer = client.post(f"/api/bots/{bot.pk}/trials/", body, format="json")
    finally:
        server.stop()
    assert answer.status_code == 400, (answer.status_code, answer.content[:200])
    assert answer.json()["error"] == "invalid_opponents" and "opponents" in answer.json()["detail"]
