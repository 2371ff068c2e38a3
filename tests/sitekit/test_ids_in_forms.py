"""Breaker (a helper's probe of a live server): five forms and bodies read an id with ``str.isdigit`` and answered
500 for a non-ASCII digit (``"²".isdigit()`` is true, ``int("²")`` fails) or took Arabic-Indic digits as an id. Each
now reads it through ``sitekit.ids.parse_id`` and answers 4xx (or the form's own refusal)."""

import json

import pytest
from django.test import Client

from games.services import player_for_user
from personas import api_client


@pytest.mark.django_db
def test_non_ascii_digits_are_no_id_anywhere(person, owner):
    player_for_user(user=person)
    player_for_user(user=owner)
    api = api_client(owner)
    for ref in ("²", "١٢", str(person.pk) + "²"):
        answer = api.post("/api/reports/", {"player": ref, "reason": "abuse"}, format="json")
        assert answer.status_code == 404 and "no such player" in answer.json()["detail"], (ref, answer.content)
    browser = Client()
    browser.force_login(owner)
    form = browser.get("/players/lin/report/?match=²", follow=True)
    assert form.status_code == 200 and "There is no match ²" in form.content.decode()
    assert browser.post("/tables/new/", {"seats": "²"}).status_code == 400
    seat = browser.post("/tables/new/", {"seats": "2", "seat_1": "bot:²"})
    assert seat.status_code < 500


@pytest.mark.django_db
def test_a_record_file_picks_its_match_by_ascii_number_only():
    record = {"deals": []}  # the match number is read before the record is
    opened = Client().post("/replay/open/", {"record": json.dumps(record), "match": "²"})
    assert opened.status_code == 400, opened.status_code
