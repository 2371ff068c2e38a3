"""Breaker: the watch page of a match that ended by a forfeit does not open its replay at the last ply.

When a match ends, watch.js goes to the watch address again, which answers a public match with a redirect to its
replay "at the last ply" (docs/LIVE.md): ``/matches/<id>/replay/?deal=D&ply=P`` with P = the last deal row's
``plies`` (``games.views.match_watch``). A forfeit (a bot's third fault in a row, a person's clock) ends the match in
the middle of a deal, whose row never gets its ply count (``services._finish(forfeited=...)`` leaves the cut-off
deal unfinished: ``Deal.plies`` stays 0), so every watcher of such a match (the featured page's too) is sent to the
deal *as dealt* (``ply=0``) instead of the position where the match ended.

Reproduction: a bot that answers HTTP 500 forfeits against a house bot; GET ``/matches/<id>/watch/`` -> 302 to
``...?deal=1&ply=0`` although deal 1 has N stored plies.
Fix: take the last deal's ply count from its moves (``Move.objects.filter(deal=...).count()``) when the deal was
cut off, or keep ``Deal.plies`` up to date for a cut-off deal when the match ends.
"""


import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from bots_api.models import Bot
from bots_api.services import bot_register
from eights_engine import Ruleset
from games.models import Deal, Move, Seat
from games.services import match_advance, match_create

from bot_servers import BotServer


@pytest.mark.django_db
def test_breaker_the_watch_page_of_a_match_ended_by_a_forfeit_opens_its_replay(house_bots, settings):
    settings.BOT_TIME_BANK_MS = 0
    server = BotServer("status:500", "s3cret")
    try:
        owner = get_user_model().objects.create_user("forfeiter", password="pw-forfeit-123")
        bot, _secret = bot_register(owner=owner, name="Faulty", endpoint_url=server.url)
        Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
        match = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=7,
                             turn_timeout_ms=300)
        assert match_advance(match_id=match.pk) == "finished"
    finally:
        server.stop()
    assert Seat.objects.get(match=match, index=0).forfeited
    watcher = Client()
    first = watcher.get(f"/matches/{match.pk}/watch/")  # where watch.js goes when the end event arrives
    assert first.status_code == 302
    landed = watcher.get(first["Location"])
    assert landed.status_code == 200, (first["Location"], landed.status_code)
    last = Deal.objects.filter(match=match).order_by("-number").first()
    stored = Move.objects.filter(deal=last).count()
    assert stored > 0
    assert first["Location"].endswith(f"?deal={last.number}&ply={stored}"), (first["Location"], stored)
