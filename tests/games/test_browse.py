"""The match list (issue 11, item 1): ``GET /api/matches/`` and the ``/matches/`` page filter by status, preset,
player (id, name or me), ladder and days, sort newest or oldest first, and cut keyset pages that neither overlap nor
skip while new matches arrive; a bad filter is a 400 that says what is wrong and what would be right."""

from __future__ import annotations

import base64
import datetime as dt
import re
from urllib.parse import parse_qs, urlparse

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from eights_engine import Ruleset
from games.models import Match
from games.services import match_create, player_for_user
from tournaments.services import ladder_schedule_matches
from personas import press_deal, table_of


def _match(players, preset="pagat", seed=1):
    return match_create(players=players, ruleset=Ruleset.preset(preset), preset=preset, seed=seed)


def _ids(answer) -> list[int]:
    assert answer.status_code == 200, answer.content[:300]
    return [row["id"] for row in answer.json()["results"]]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _cursor(link: str | None) -> str | None:
    return parse_qs(urlparse(link).query)["cursor"][0] if link else None


@pytest.fixture
def scene(house_bots, ladder):
    """Matches of every kind: two ladder matches, casual ones of two presets, one finished, one aborted, one a month
    old; ``person`` (ruth) sits in two of them."""
    person = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    me = player_for_user(user=person)
    rando, eager, greedy, professor = house_bots
    old = _match([rando, eager], seed=1)
    Match.objects.filter(pk=old.pk).update(created_at=dt.datetime(2026, 1, 15, 12, tzinfo=dt.timezone.utc))
    ladder_matches = ladder_schedule_matches(ladder=ladder, limit=2)
    mine = _match([me, professor], seed=2)
    crazy = _match([greedy, professor], preset="crazy-eights", seed=3)
    finished = _match([me, greedy], seed=4)
    Match.objects.filter(pk=finished.pk).update(status=Match.Status.FINISHED)
    aborted = _match([rando, professor], seed=5)
    Match.objects.filter(pk=aborted.pk).update(status=Match.Status.ABORTED)
    return {"person": person, "me": me, "old": old, "ladder": [m.pk for m in ladder_matches], "mine": mine,
            "crazy": crazy, "finished": finished, "aborted": aborted, "bots": house_bots}


@pytest.mark.django_db
def test_the_api_lists_every_match_newest_first_and_oldest_first_on_request(scene):
    every = list(Match.objects.order_by("-id").values_list("pk", flat=True))
    assert _ids(Client().get("/api/matches/")) == every
    assert _ids(Client().get("/api/matches/?order=oldest")) == every[::-1]


@pytest.mark.django_db
def test_the_api_filters_by_status_preset_player_ladder_and_day(scene):
    c = Client()
    assert _ids(c.get("/api/matches/?status=finished")) == [scene["finished"].pk]
    assert _ids(c.get("/api/matches/?status=aborted")) == [scene["aborted"].pk]
    assert scene["finished"].pk not in _ids(c.get("/api/matches/?status=running"))
    mine = [scene["finished"].pk, scene["mine"].pk]
    assert _ids(c.get(f"/api/matches/?player={scene['me'].pk}")) == mine
    assert _ids(c.get("/api/matches/?player=ruth")) == mine
    assert _ids(c.get("/api/matches/?player=ruth&status=running")) == [scene["mine"].pk]
    assert _ids(c.get("/api/matches/?ladder=test&order=oldest")) == scene["ladder"]
    assert _ids(c.get("/api/matches/?to=2026-01-15")) == [scene["old"].pk]
    assert _ids(c.get("/api/matches/?from=2026-01-15&to=2026-01-15")) == [scene["old"].pk]
    assert scene["old"].pk not in _ids(c.get("/api/matches/?from=2026-01-16"))
    preset = set(_ids(c.get("/api/matches/?preset=pagat")))
    assert scene["mine"].pk in preset and scene["crazy"].pk not in preset
    assert _ids(c.get("/api/matches/?preset=crazy-eights")) == [scene["crazy"].pk]
    assert _ids(c.get("/api/matches/?ladder=test&player=ruth")) == []


@pytest.mark.django_db
def test_my_matches_are_the_signed_in_persons_and_a_guests_own(scene, client):
    client.force_login(scene["person"])
    assert _ids(client.get("/api/matches/?player=me")) == [scene["finished"].pk, scene["mine"].pk]
    page = client.get("/")
    assert 'href="/matches/?player=me"' in page.content.decode()  # "My matches": one click from every page
    mine = client.get("/matches/?player=me")
    assert mine.status_code == 200
    body = mine.content.decode()
    assert "<h1>My matches</h1>" in body and f"/matches/{scene['mine'].pk}/" in body
    assert f"/matches/{scene['aborted'].pk}/" not in body
    newcomer = Client()
    newcomer.force_login(get_user_model().objects.create_user("newcomer", password="pw-new-12345"))
    assert _ids(newcomer.get("/api/matches/?player=me")) == []  # no player yet: nothing, not an error
    assert "You have played no match yet" in newcomer.get("/matches/?player=me").content.decode()
    anonymous = Client()
    assert 'href="/matches/?player=me"' not in anonymous.get("/").content.decode()
    refused = anonymous.get("/api/matches/?player=me")
    assert refused.status_code == 400 and "log in" in refused.json()["detail"]


@pytest.mark.django_db
def test_a_guest_finds_its_own_matches(house_bots, ladder):
    guest = Client()
    match_id = table_of(press_deal(guest, preset="pagat", seats="3"))
    _match(house_bots[:2], seed=9)
    assert 'href="/matches/?player=me"' in guest.get("/").content.decode()
    assert _ids(guest.get("/api/matches/?player=me")) == [match_id]


@pytest.mark.django_db
def test_cursor_pages_neither_overlap_nor_skip_while_new_matches_arrive(house_bots):
    first = [_match(house_bots[:2], seed=i).pk for i in range(12)]
    c = Client()
    page1 = c.get("/api/matches/?page_size=5").json()
    assert [r["id"] for r in page1["results"]] == first[::-1][:5] and page1["previous"] is None
    arrived = [_match(house_bots[2:], seed=100 + i).pk for i in range(3)]  # three new matches, newest first
    seen = [r["id"] for r in page1["results"]]
    link = page1["next"]
    while link:
        page = c.get(link).json()
        seen += [r["id"] for r in page["results"]]
        link = page["next"]
    assert seen == first[::-1], "the pages overlapped or skipped a match"
    page2 = c.get(page1["next"]).json()
    back = c.get(page2["previous"]).json()  # back from page 2: page 1 as it is now (the new ones above it)
    assert [r["id"] for r in back["results"]] == first[::-1][:5]
    assert _ids(c.get("/api/matches/?page_size=3")) == arrived[::-1]
    oldest = c.get("/api/matches/?order=oldest&page_size=5").json()
    following = c.get(oldest["next"]).json()
    assert [r["id"] for r in oldest["results"] + following["results"]] == first[:10]


@pytest.mark.django_db
def test_the_page_pages_with_the_same_cursor(house_bots):
    made = [_match(house_bots[:2], seed=i).pk for i in range(30)]
    c = Client()
    page1 = c.get("/matches/")
    body = page1.content.decode()
    shown = [int(i) for i in re.findall(r'<a href="/matches/(\d+)/">#', body)]
    assert shown == made[::-1][:25]
    older = re.search(r'<a href="([^"]+)" rel="next">', body).group(1).replace("&amp;", "&")
    assert "cursor=" in older
    _match(house_bots[2:], seed=99)
    rest = [int(i) for i in re.findall(r'<a href="/matches/(\d+)/">#', c.get(older).content.decode())]
    assert rest == made[::-1][25:]
    filtered = c.get("/matches/?status=running&order=oldest&page_size=5").content.decode()
    assert [int(i) for i in re.findall(r'<a href="/matches/(\d+)/">#', filtered)] == made[:5]
    assert 'value="oldest" selected' in filtered


@pytest.mark.django_db
@pytest.mark.parametrize("query, says", [
    ("status=done", "status: 'done' is not a match status: use one of running, finished, aborted"),
    ("preset=poker", "preset: there is no preset 'poker': use one of"),
    ("from=2026-13-01", "from: '2026-13-01' is not a date"),
    ("to=yesterday", "to: 'yesterday' is not a date: give it as YYYY-MM-DD"),
    ("from=2026-02-01&to=2026-01-01", "to: 2026-01-01 is before from (2026-02-01)"),
    ("ladder=nope", "ladder: there is no ladder 'nope': give a ladder's slug (test)"),
    ("player=nobody", "player: there is no player named 'nobody': give a player's id or exact name"),
    ("player=999999", "player: there is no player with id 999999"),
    ("order=random", "order: 'random' is not an order: use newest (the default) or oldest"),
    ("cursor=garbage", "cursor: this is not a cursor of the match list: follow a page's next or previous link"),
    # well-formed cursors whose position is not a match id (DRF handed it to the id filter: a 500)
    ("cursor=" + _b64("p=abc&r=0&o=0"), "cursor: this is not a cursor of the match list"),
    ("cursor=" + _b64("p=1e5"), "cursor: this is not a cursor of the match list"),
    ("order=oldest&cursor=" + _b64("p=abc&r=1"), "cursor: this is not a cursor of the match list"),
])
def test_a_bad_filter_is_a_400_saying_what_is_wrong_and_what_is_right(ladder, query, says):
    answer = Client().get(f"/api/matches/?{query}")
    assert answer.status_code == 400
    body = answer.json()
    assert body["error"] == "invalid_filter" and body["detail"].startswith(says), body
    page = Client().get(f"/matches/?{query}")
    assert page.status_code == 400
    assert says.replace("'", "&#x27;")[:40] in page.content.decode()


@pytest.mark.django_db
def test_the_widest_day_range_lists_every_match(house_bots):
    """``to=9999-12-31`` has no next day to stop before (it was an OverflowError, a 500): it bounds nothing."""
    made = [_match(house_bots[:2], seed=i).pk for i in range(2)]
    assert _ids(Client().get("/api/matches/?from=0001-01-01&to=9999-12-31&order=oldest")) == made
    assert Client().get("/matches/?from=0001-01-01&to=9999-12-31").status_code == 200


@pytest.mark.django_db
def test_a_running_matchs_row_shows_only_public_facts(scene):
    running = scene["mine"]
    row = next(r for r in Client().get("/api/matches/").json()["results"] if r["id"] == running.pk)
    assert set(row) == {"id", "url", "status", "preset", "ladder", "seat_count", "deal_number", "ply_count",
                        "totals", "created_at", "finished_at", "seats"}
    assert row["status"] == "running" and row["totals"] == [0, 0] and row["url"] == f"/matches/{running.pk}/"
    assert [s["place"] for s in row["seats"]] == [None, None]
    ladder_row = next(r for r in Client().get("/api/matches/").json()["results"] if r["id"] == scene["ladder"][0])
    assert ladder_row["ladder"] == "test"


@pytest.mark.django_db
def test_a_page_of_the_list_costs_a_fixed_number_of_queries(house_bots, django_assert_max_num_queries):
    for i in range(30):
        _match(house_bots[i % 2:i % 2 + 2], seed=i)
    with django_assert_max_num_queries(4):
        assert Client().get("/api/matches/?status=running").status_code == 200
    with django_assert_max_num_queries(5):
        assert Client().get("/matches/?player=Rando").status_code == 200


@pytest.mark.django_db
def test_player_bot_and_ladder_pages_link_to_their_whole_match_list(scene):
    from bots_api.services import bot_register

    owner = get_user_model().objects.create_user("ada", password="pw-ada-12345")
    bot, _secret = bot_register(owner=owner, name="Probe", endpoint_url="http://127.0.0.1:9/")
    assert f'href="/matches/?player={scene["me"].pk}"' in Client().get("/players/ruth/").content.decode()
    as_owner = Client()
    as_owner.force_login(owner)
    assert f'href="/matches/?player={bot.player_id}"' in as_owner.get(f"/bots/{bot.pk}/").content.decode()
    assert 'href="/matches/?ladder=test"' in Client().get("/ladders/test/").content.decode()
