"""Ladders over the API (issue 14): GET /api/ladders/ and GET /api/ladders/{slug}/ give what the ladder page shows
(ranks, ratings, how sure the order is, provisional entries apart), in bounded pages and a fixed number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games.services import player_house_create
from tournaments.models import LadderEntry
from tournaments.selectors import ladder_leaderboard, ladder_trust
from tournaments.services import ladder_create, ladder_entry_create


def _rate(ladder, name: str, mu: float, sigma: float, played: int) -> None:
    LadderEntry.objects.filter(ladder=ladder, player__name=name).update(mu=mu, sigma=sigma, ordinal=mu - 3 * sigma,
                                                                        matches_played=played, wins=played // 2)


@pytest.fixture
def rated(ladder, settings):
    settings.LADDER_PROVISIONAL_MATCHES = 10
    _rate(ladder, "Professor", 30.0, 1.0, 40)
    _rate(ladder, "Greedy", 29.0, 1.5, 40)  # close behind: cannot be told apart
    _rate(ladder, "Eager", 20.0, 1.0, 12)  # far behind: confident
    _rate(ladder, "Rando", 40.0, 6.0, 3)  # a lucky start: provisional, listed apart and never ranked
    return ladder


@pytest.mark.django_db
def test_the_ladder_list_shows_rules_seats_and_entries(rated):
    ladder_create(name="Another", slug="another", preset="web-table", seats_per_match=3)
    answer = APIClient().get("/api/ladders/")
    assert answer.status_code == 200, answer.content
    rows = {row["slug"]: row for row in answer.json()["results"]}
    assert set(rows) == {"test", "another"} and answer.json()["count"] == 2
    test = rows["test"]
    assert (test["name"], test["preset"], test["seats"], test["entries"]) == ("Test ladder", "pagat", 2, 4)
    assert test["ruleset"] == rated.ruleset and test["url"] == "/api/ladders/test/" and test["page"] == "/ladders/test/"
    assert (rows["another"]["seats"], rows["another"]["entries"]) == (3, 0)
    page = APIClient().get("/api/ladders/?limit=1&offset=1").json()
    assert [r["slug"] for r in page["results"]] == ["test"] and page["previous"]  # by name: Another, Test ladder


@pytest.mark.django_db
def test_the_leaderboard_is_the_pages_with_ranks_confidence_and_provisional_entries_apart(rated):
    answer = APIClient().get("/api/ladders/test/")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    board = data["leaderboard"]
    assert [(e["rank"], e["player"]) for e in board] == [(1, "Professor"), (2, "Greedy"), (3, "Eager")]
    assert data["count"] == 3 and data["provisional_count"] == 1
    assert [(e["player"], e["rank"], e["provisional"]) for e in data["provisional"]] == [("Rando", None, True)]
    top = board[0]
    assert (top["mu"], top["sigma"], top["rating"], top["matches_played"], top["kind"]) == (30.0, 1.0, 27.0, 40,
                                                                                            "house")
    # the page's sentences, word for word
    page_trust = ladder_trust(board=ladder_leaderboard(ladder=rated))
    assert [e["ahead_of_next"]["statement"] for e in board[:-1]] == page_trust["pairs"]
    assert "cannot yet be told apart" in board[0]["ahead_of_next"]["statement"]
    assert board[1]["ahead_of_next"]["below"] == "Eager" and board[1]["ahead_of_next"]["percent"] == 99
    assert board[2]["ahead_of_next"] is None and data["provisional"][0]["ahead_of_next"] is None
    assert data["provisional_statement"] == page_trust["provisional"] and "Rando" in data["provisional_statement"]
    assert data["provisional_matches"] == 10
    assert top["profile"] == "/api/players/Professor/"
    assert APIClient().get(top["profile"]).json()["id"] == top["player_id"]
    assert data["matches"] == "/api/matches/?ladder=test"


@pytest.mark.django_db
def test_the_leaderboard_comes_in_bounded_pages(rated):
    first = APIClient().get("/api/ladders/test/?limit=2").json()
    assert [e["rank"] for e in first["leaderboard"]] == [1, 2] and first["next"] and first["previous"] is None
    second = APIClient().get(first["next"]).json()
    assert [e["player"] for e in second["leaderboard"]] == ["Eager"] and second["next"] is None
    assert second["provisional_count"] == 1  # the provisional entries come with every page
    capped = APIClient().get("/api/ladders/test/?limit=100000").json()
    assert len(capped["leaderboard"]) == 3


@pytest.mark.django_db
def test_a_bots_entry_names_its_owner_and_never_its_endpoint_or_secret(ladder):
    from django.contrib.auth import get_user_model

    from bots_api.services import bot_register

    owner = get_user_model().objects.create_user("ada", password="pw-ada-12345")
    bot, secret = bot_register(owner=owner, name="Probe", endpoint_url="http://127.0.0.1:9/hidden-path")
    ladder_entry_create(ladder=ladder, player=bot.player)
    body = APIClient().get("/api/ladders/test/").content.decode()
    assert '"owner":"ada"' in body and "hidden-path" not in body and secret not in body


def _queries(url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert APIClient().get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_the_ladder_reads_take_a_fixed_number_of_queries(rated):
    few = (_queries("/api/ladders/"), _queries("/api/ladders/test/"))
    for i in range(30):
        player = player_house_create(name=f"Extra{i}", strategy="random")
        ladder_entry_create(ladder=rated, player=player)
        ladder_create(name=f"Ladder {i}", slug=f"l{i}")
    many = (_queries("/api/ladders/"), _queries("/api/ladders/test/"))
    assert many == few and max(many) <= 4, (few, many)


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_ladder_is_a_json_404(rated, settings, debug):
    settings.DEBUG = debug
    for url in ("/api/ladders/nope/", "/api/ladders/test/extra/", "/api/ladders/%E2%9C%93/"):
        answer = APIClient().get(url)
        assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json"), url
        assert answer.json()["error"] == "not_found", url
    refused = APIClient().post("/api/ladders/test/", {}, format="json")
    assert refused.status_code == 405 and refused.json()["error"] == "method_not_allowed"
