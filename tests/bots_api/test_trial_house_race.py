"""Breaker: two first trials against the same house strategy at once answer one of them HTTP 500.

``POST /api/bots/<id>/trials/`` with ``"opponents": ["house:STRATEGY"]`` creates the strategy's house bot when there
is none (``bots_api.trials._opponent`` -> ``games.services.player_house_create``). That function looks the name up
with ``SELECT ... FOR UPDATE`` and then INSERTs, but a row another transaction is inserting at the same moment is not
visible to the lookup (nothing to lock), so the second INSERT waits on the unique name index and fails with
``IntegrityError`` once the first commits: an unhandled 500 for the second owner (a trial, a casual match and "Play
this deal" all reach ``player_house_create``).

Reproduction: owner A's trial is inside the transaction that creates "House tactician" when owner B posts a trial
naming ``house:tactician``: B gets 500 {"error": "server_error"}.
Fix: create with ``get_or_create`` inside a savepoint and read the row again on ``IntegrityError`` (or an advisory
lock on the name), then use it.
"""

import threading

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from bots_api.models import Bot
from bots_api.services import bot_register
from games.models import Player

from bot_servers import BotServer


def test_breaker_a_trial_naming_a_house_strategy_being_created_elsewhere_is_not_a_500(transactional_db):
    server = BotServer("good", "s3cret")
    inserted, release, done = threading.Event(), threading.Event(), threading.Event()

    def other_owner_creating_it():  # another request, mid-way through creating the same house bot
        try:
            with transaction.atomic():
                Player.objects.create(name="House tactician", kind=Player.Kind.HOUSE, strategy="tactician")
                inserted.set()
                release.wait(10)
        finally:
            connection.close()
            done.set()

    try:
        owner = get_user_model().objects.create_user("bea", password="pw-bea-1234567")
        bot, _secret = bot_register(owner=owner, name="Tester", endpoint_url=server.url)
        Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
        other = threading.Thread(target=other_owner_creating_it, daemon=True)
        other.start()
        assert inserted.wait(10)
        threading.Timer(1.0, release.set).start()  # it commits while this request waits on the name
        client = APIClient(raise_request_exception=False)
        client.force_authenticate(owner)
        answer = client.post(f"/api/bots/{bot.pk}/trials/", {"opponents": ["house:tactician"], "matches": 1},
                             format="json")
        done.wait(10)
    finally:
        server.stop()
    assert answer.status_code in (201, 409, 429), (answer.status_code, answer.content[:300])
