"""Tournaments for everyone (issue 23, part 8): create one from a page, enter house bots as its organiser, and follow
its running matches to their watch pages and finished ones to their replays."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from personas import user
from tournaments.models import Tournament, TournamentEntry

pytestmark = pytest.mark.django_db


def _signed_in(name: str) -> Client:
    client = Client()
    client.force_login(user(name))
    return client


def test_a_person_creates_a_tournament_enters_house_bots_and_starts_it(house_bots):
    olga = _signed_in("olga")
    assert 'id="create-tournament"' in olga.get("/tournaments/").content.decode()
    made = olga.post("/tournaments/new/", {"name": "Friday eights", "format": "swiss", "preset": "pagat",
                                           "seats_per_match": "2", "rounds": "2", "entrants": "both",
                                           "max_entrants": "16"})
    assert made.status_code == 302, made.content[:300]
    t = Tournament.objects.get(name="Friday eights")
    assert made["Location"] == f"/tournaments/{t.pk}/" and t.rounds == 2 and t.created_by.username == "olga"
    page = olga.get(made["Location"]).content.decode()
    assert 'id="house-entry"' in page and house_bots[0].name in page
    for house in house_bots:
        olga.post(f"/tournaments/{t.pk}/enter-house/", {"player_id": house.pk})
    assert TournamentEntry.objects.filter(tournament=t).count() == 4
    stranger = _signed_in("pete")
    assert 'id="house-entry"' not in stranger.get(made["Location"]).content.decode()
    stranger.post(f"/tournaments/{t.pk}/enter-house/", {"player_id": house_bots[0].pk})
    assert TournamentEntry.objects.filter(tournament=t).count() == 4  # only the organiser enters house bots

    olga.post(f"/tournaments/{t.pk}/start/")
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    round_page = Client().get(f"/tournaments/{t.pk}/rounds/1/").content.decode()
    running = re.findall(r'href="/matches/(\d+)/watch/"', round_page)
    assert len(running) == 2 and "/replay/" not in round_page  # running matches: watched, not replayed


def test_a_bad_tournament_is_refused_on_the_page_saying_why(house_bots):
    olga = _signed_in("olga")
    refused = olga.post("/tournaments/new/", {"name": "Trio", "format": "knockout", "preset": "pagat",
                                              "seats_per_match": "3", "entrants": "both", "max_entrants": "8"})
    assert refused.status_code == 400 and "a knockout plays 2 seats per match" in refused.content.decode()
    assert 'value="Trio"' in refused.content.decode()  # the form keeps what was typed
    assert olga.post("/tournaments/new/", {"name": "X", "format": "swiss", "rounds": "two"}).status_code == 400
    assert Client().post("/tournaments/new/", {"name": "Anon", "format": "swiss"})["Location"].startswith(
        "/accounts/login/")
    assert not Tournament.objects.exists()
