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
from django.test import Client

from games.models import Deal, Move, Seat
from personas import forfeited_match


@pytest.mark.django_db
def test_breaker_the_watch_page_of_a_match_ended_by_a_forfeit_opens_its_replay(house_bots, settings):
    settings.BOT_TIME_BANK_MS = 0
    match = forfeited_match(house_bots[3])
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
