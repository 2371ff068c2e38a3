"""Rated tables (issue 23, 1): a table rated on a ladder plays the ladder's rules and seats its entries only; its
match is a ladder match, rated at its end; guests and one's own bots are refused with a reason."""

from __future__ import annotations

import pytest

from games.models import Match
from personas import bot_of
from tables.models import Table
from tournaments.models import LadderEntry, RatingChange

pytestmark = pytest.mark.django_db


def _create(client, *seats, **extra):
    return client.post("/api/tables/", {"seats": list(seats), **extra}, format="json")


def test_a_rated_table_plays_the_ladders_rules_and_its_match_is_rated(ladder, as_person, as_stranger):
    made = _create(as_person, {"kind": "open"}, ladder="test")
    assert made.status_code == 201, made.content
    table = made.json()
    assert table["rated"] and table["ladder"] == "test" and table["preset"] == "pagat"
    joined = as_stranger.post(f"/api/tables/{table['code']}/join/").json()
    match = Match.objects.get(pk=joined["match_id"])
    assert match.ladder_match.ladder == ladder and match.move_seconds == ladder.move_seconds
    assert set(LadderEntry.objects.filter(ladder=ladder, player__kind="human").values_list("player__name",
                                                                                          flat=True)) == {"lin", "bob"}
    from games.services import _finish
    from games.matches.snapshots import match_state_snapshot

    _finish(match, match_state_snapshot(match=match).state, forfeited=0)  # the end of the match: rated at once
    assert RatingChange.objects.filter(match=match).count() == 2


def test_house_seats_of_a_rated_table_are_the_ladders_house_entries(ladder, as_person):
    missing = _create(as_person, {"kind": "house", "strategy": "tactician"}, ladder="test")
    assert missing.status_code == 400 and "its house strategies: eager, greedy, heuristic, random" in \
        missing.json()["detail"]
    started = _create(as_person, {"kind": "house", "strategy": "greedy"}, ladder="test").json()
    match = Match.objects.get(pk=started["match_id"])
    assert match.seats.get(index=1).player.name == "Greedy" and match.ladder_match.ladder == ladder
    again = _create(as_person, {"kind": "house", "strategy": "eager"}, ladder="test")
    assert again.status_code == 429 and "matches of the ladder Test ladder running (limit 1)" in \
        again.json()["detail"]


def test_rated_tables_refuse_what_cannot_be_rated(ladder, as_person, person, servers, house_bots):
    assert _create(as_person, {"kind": "open"}, ladder="nope").json()["error"] == "bad_table"
    other_rules = _create(as_person, {"kind": "open"}, ladder="test", preset="web-table")
    assert other_rules.status_code == 400 and "leave preset out" in other_rules.json()["detail"]
    three = _create(as_person, {"kind": "open"}, {"kind": "open"}, ladder="test")
    assert three.status_code == 400 and "plays 2 seats" in three.json()["detail"]
    mine = bot_of(person, servers(), "LinBot", active=True)
    own_bot = _create(as_person, {"kind": "bot", "bot": mine.pk}, ladder="test")
    assert own_bot.status_code == 400 and "own bot may not sit at a rated table" in own_bot.json()["detail"]
    assert Table.objects.count() == 0


def test_a_guest_may_not_sit_at_a_rated_table(ladder, as_person):
    from django.test import Client

    from personas import press_deal

    code = _create(as_person, {"kind": "open"}, ladder="test").json()["code"]
    guest = Client()
    press_deal(guest)  # a guest of this browser
    page = guest.post(f"/tables/{code}/join/")
    assert page.status_code == 403 and "signed-up people only" in page.content.decode()


def test_the_lobby_form_opens_a_rated_table(ladder, person):
    from django.test import Client

    browser = Client()
    browser.force_login(person)
    lobby = browser.get("/tables/").content.decode()
    assert 'name="ladder"' in lobby and 'value="test"' in lobby
    made = browser.post("/tables/new/", {"ladder": "test", "preset": "web-table", "seats": "2", "seat_1": "open",
                                         "listed": "on"})
    assert made.status_code == 302, made.content[:300]
    page = browser.get(made["Location"]).content.decode()
    assert "rated on the ladder" in page and "<code>pagat</code>" in page
    assert "rated: test" in browser.get("/tables/").content.decode()
    assert 'name="ladder"' not in Client().get("/tables/").content.decode()  # a guest plays casual tables only
