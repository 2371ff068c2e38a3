"""The tests' personas and their bots, made one way everywhere (the root conftest's fixtures use them):

* a person ("lin", signed up), a bot owner ("ada") and a stranger ("bob"), each with an API client
  (``api_client``: DRF's, authenticated as them);
* ``bot_of(owner, server, name)``: a bot of ``owner`` registered on a real HTTP bot server (``bot_servers.BotServer``,
  secret ``s3cret``) or on an address that is never called, verified unless told otherwise;
* ``forfeited_match(opponent)``: a match that a faulting bot forfeited;
* a guest: a browser (Django's test client) that pressed Deal on the home page (``press_deal``) and sits at the
  table it was sent to (``table_of``).
"""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

#: the address of a bot that is never called (a schedule, a page): nothing listens on port 9 (discard)
UNCALLED = "http://127.0.0.1:9/"
PASSWORDS = {"lin": "pw-lin-12345", "ada": "pw-ada-123", "bob": "pw-bob-123"}


def user(name: str):
    """A signed-up account ``name`` (password ``PASSWORDS[name]`` for the personas, else ``pw-<name>-12345``)."""
    return get_user_model().objects.create_user(name, password=PASSWORDS.get(name, f"pw-{name}-12345"))


def api_client(account=None) -> APIClient:
    """DRF's test client, authenticated as ``account`` (None: anonymous)."""
    client = APIClient()
    if account is not None:
        client.force_authenticate(account)
    return client


def bot_of(owner, server=None, name: str = "Probe", *, verified: bool = True, active: bool | None = None,
           version: str | None = None):
    """A bot of ``owner`` on ``server`` (a ``BotServer``: its secret ``s3cret`` is set as the bot's; None: an
    address never called), ``verified`` now (else unverified), its player made ``active`` when given (else as
    registering leaves it), reporting ``version`` when given. Returns the bot as stored."""
    from bots_api.models import Bot
    from bots_api.services import bot_register
    from games.models import Player

    bot, _secret = bot_register(owner=owner, name=name, endpoint_url=server.url if server is not None else UNCALLED)
    changes = {"verified_at": timezone.now() if verified else None}
    if server is not None:
        changes["secret"] = "s3cret"
    if version is not None:
        changes["reported_version"] = version
    Bot.objects.filter(pk=bot.pk).update(**changes)
    if active is not None:
        Player.objects.filter(pk=bot.player_id).update(is_active=active)
    return Bot.objects.select_related("player").get(pk=bot.pk)


def forfeited_match(opponent):
    """A match that ended by a forfeit: the bot "Faulty" of a new account, on a server answering HTTP 500, faults
    its turns away against ``opponent`` (a house bot) under pagat, seed 7, and forfeits mid-deal (the caller sets
    ``BOT_TIME_BANK_MS`` to 0); the server is stopped. Returns the match as it ended."""
    from bot_servers import BotServer
    from eights_engine import Ruleset
    from games.services import match_advance, match_create

    server = BotServer("status:500", "s3cret")
    try:
        bot = bot_of(user("forfeiter"), server, "Faulty")
        match = match_create(players=[bot.player, opponent], ruleset=Ruleset.preset("pagat"), seed=7,
                             turn_timeout_ms=300)
        assert match_advance(match_id=match.pk) == "finished"
    finally:
        server.stop()
    match.refresh_from_db()
    return match


def press_deal(client, **data):
    """Press Deal on the home page with ``client`` (Django's test client, CSRF checked or not) as the page does
    (with its CSRF token): a guest's (or a signed-in person's) casual match. Returns the answer (302 to the table)."""
    client.get("/")
    token = client.cookies["csrftoken"].value
    return client.post("/play/guest/", {"preset": "web-table", "seats": "2", **data, "csrfmiddlewaretoken": token})


def table_of(response) -> int:
    """The match id of the table ``press_deal`` sent the browser to."""
    assert response.status_code == 302, (response.status_code, response.content[:400])
    found = re.fullmatch(r"/matches/(\d+)/play/", response["Location"])
    assert found, response["Location"]
    return int(found[1])
