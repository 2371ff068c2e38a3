"""Breaker: a bot's endpoint is private ("never the endpoint, the secret or the fault details": the player profile,
docs/BOT_PROTOCOL.md), yet the fault text the service writes from what the endpoint did is published to anyone in
the finished match's replay (``selectors.match_replay`` -> each frame's ``fault.detail``, drawn by replay.js):

- a ``redirect`` fault quotes the reply's ``Location`` header (``bot_calls.post_signed``): an http -> https redirect
  of a bot's web server gives its endpoint's full address, path and query (a key in the query string included);
- a ``connection`` fault for a host that does not resolve (``client.GuardedBackend``) quotes the endpoint's host
  name (likewise ``address``: "blocked address: <host> resolves only to <ip>").

Reproduction: register a bot whose server answers every turn with ``307 Location: https://<host>/turn?key=SECRET``
(or whose host stops resolving), play it against a house bot (3 faults: forfeit, the match finishes), then, as a
stranger, GET ``/matches/<id>/replay/``: the page's JSON holds the Location (or the host).
Fix: publish the fault kind and a fixed sentence ("answered HTTP 307 (a redirect)", "the host did not resolve");
keep the cause with the owner (turn log, bot page health).
"""

from __future__ import annotations


import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from bots_api.models import Bot
from bots_api.services import bot_register
from eights_engine import Ruleset
from games.models import Move
from games.services import match_advance, match_create
from bot_servers import BotServer

SECRET_HOST = "eights-bot-7f3a9c.invalid"
SECRET_KEY = "TOPSECRET-41c9"


@pytest.fixture
def redirecting_server():
    """A bot whose every turn is a 307 redirect to a URL that names its secret host and key."""
    server = BotServer(f"redirect:https://{SECRET_HOST}/turn?key={SECRET_KEY}")
    yield server.url
    server.stop()


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["redirect", "unresolvable_host"])
def test_breaker_a_bots_endpoint_never_reaches_the_public_replay_through_its_fault_text(
        how, redirecting_server, house_bots, settings):
    settings.BOT_TIME_BANK_MS = 0
    owner = get_user_model().objects.create_user("mallory-owner", password="pw-owner-12345")
    bot, _secret = bot_register(owner=owner, name="Leaky", endpoint_url=redirecting_server)
    endpoint = redirecting_server if how == "redirect" else f"http://{SECRET_HOST}:8701/turn?key={SECRET_KEY}"
    # "unresolvable_host": the bot's DNS lapsed after registration (registration resolved it)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now(), endpoint_url=endpoint)
    match = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=7,
                         turn_timeout_ms=500)
    assert match_advance(match_id=match.pk) == "finished"
    causes = list(Move.objects.filter(deal__match=match, seat=0).exclude(fault="").values_list("fault", flat=True))
    assert causes, "the bot faulted"  # (the owner may see these: the turn log and the bot page)
    page = Client().get(f"/matches/{match.pk}/replay/")  # a stranger, no login
    assert page.status_code == 200
    text = page.content.decode()
    assert SECRET_HOST not in text, causes[:1]  # (the redirect's Location also carries ?key=)
    assert SECRET_KEY not in text, causes[:1]
