"""Table talk (issue 23, 7): fixed phrases only, shown to the table (the presence answer) and in the replay; limits
and refusals answer the one error shape."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from games.models import Match, Talk
from games.services import match_advance

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(as_person, as_stranger, house_bots) -> Match:
    code = as_person.post("/api/tables/", {"preset": "web-table", "seats": [{"kind": "open"}]},
                          format="json").json()["code"]
    match = Match.objects.get(pk=as_stranger.post(f"/api/tables/{code}/join/").json()["match_id"])
    match_advance(match_id=match.pk)
    return match


def _say(client, match, seat, phrase, **extra):
    return client.post(f"/api/matches/{match.pk}/seats/{seat}/talk/", {"phrase": phrase, **extra}, format="json")


def test_a_phrase_reaches_the_table_and_the_replay(table, as_person, as_stranger):
    said = _say(as_person, table, 0, "good_luck")
    assert said.status_code == 201, said.content
    assert said.json()["text"] == "Good luck!" and said.json()["seat"] == 0 and said.json()["deal_number"] == 1
    heard = as_stranger.post(f"/api/matches/{table.pk}/seats/1/presence/").json()["talk"]
    assert [(t["seat"], t["phrase"]) for t in heard] == [(0, "good_luck")]
    assert set(heard[0]) == {"id", "seat", "phrase", "text", "deal_number", "ply", "said_at"}

    Match.objects.filter(pk=table.pk).update(status=Match.Status.FINISHED)
    over = _say(as_stranger, table, 1, "good_game")
    assert over.status_code == 409 and over.json()["error"] == "not_running"


def test_only_the_tables_phrases_and_not_too_often(table, as_person, as_stranger):
    free = _say(as_person, table, 0, "<b>hi</b>")
    assert free.status_code == 400 and free.json()["error"] == "bad_phrase" and "good_game" in free.json()["detail"]
    assert _say(as_person, table, 0, "hello", to="bob").json()["error"] == "unknown_field"
    assert _say(as_person, table, 0, ["hello"]).status_code == 400
    assert _say(as_person, table, 0, "hello").status_code == 201
    fast = _say(as_person, table, 0, "thanks")
    assert fast.status_code == 429 and fast.json()["error"] == "too_chatty" and fast["Retry-After"] == "3"
    assert _say(as_stranger, table, 0, "thanks").status_code == 403  # not their seat
    assert Client().post(f"/api/matches/{table.pk}/seats/0/talk/", {"phrase": "hello"}).status_code == 401
    Talk.objects.update(said_at=Talk.objects.first().said_at - timedelta(seconds=10))
    assert _say(as_person, table, 0, "thanks").status_code == 201


def test_the_table_page_shows_the_people_panel_only_with_other_people(table, person, house_bots):
    page = Client()
    page.force_login(person)
    html = page.get(f"/matches/{table.pk}/play/").content.decode()
    assert 'id="table-people"' in html and 'data-phrase="good_game"' in html and "table_people.js" in html
    alone = Client()
    alone.force_login(person)
    solo = alone.post("/play/guest/", {"preset": "web-table", "seats": "2"})
    solo_page = alone.get(solo["Location"]).content.decode() if solo.status_code == 302 else ""
    assert solo_page and 'id="table-people"' not in solo_page


def test_the_replay_lists_what_was_said_with_a_link_to_its_ply(house_bots):
    from eights_engine import Ruleset
    from games.services import match_create

    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("web-table"), preset="web-table")
    match_advance(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    Talk.objects.create(match=match, seat=1, phrase="well_played", deal_number=1, ply=3)
    html = Client().get(f"/matches/{match.pk}/replay/").content.decode()
    assert "Table talk (1)" in html and "?deal=1&amp;ply=3" in html and "Eager</strong> said “Well played!”" in html
