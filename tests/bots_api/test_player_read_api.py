"""Players over the API (issue 14): GET /api/players/{id or name}/ is anyone's public profile (kind, owner, ladders
and ratings, recent matches), never a bot's endpoint or secret; an unknown player is a JSON 404."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from bots_api.services import bot_register
from eights_engine import Ruleset
from games.services import match_advance, match_create, player_house_create
from tournaments.services import ladder_entry_create


@pytest.mark.django_db
def test_a_player_is_found_by_id_or_name_with_ratings_and_recent_matches(ladder, house_bots):
    match = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat"), seed=4)
    assert match_advance(match_id=match.pk) == "finished"
    professor = house_bots[3]
    by_name = APIClient().get("/api/players/Professor/")
    by_id = APIClient().get(f"/api/players/{professor.pk}/")
    assert by_name.status_code == by_id.status_code == 200
    assert by_name.json() == by_id.json()
    data = by_id.json()
    assert (data["id"], data["name"], data["kind"], data["owner"]) == (professor.pk, "Professor", "house", None)
    assert [r["ladder"] for r in data["ratings"]] == ["test"]
    assert [m["id"] for m in data["recent_matches"]] == [match.pk]


@pytest.mark.django_db
def test_an_id_wins_over_a_name_made_of_digits(house_bots):
    named = player_house_create(name=str(house_bots[0].pk), strategy="random")
    assert APIClient().get(f"/api/players/{house_bots[0].pk}/").json()["id"] == house_bots[0].pk
    assert APIClient().get(f"/api/players/{named.pk}/").json()["id"] == named.pk
    unused = named.pk + 1000  # an all-digit name that is no player's id is still found by its name
    digits = player_house_create(name=str(unused), strategy="random")
    assert APIClient().get(f"/api/players/{unused}/").json()["id"] == digits.pk


@pytest.mark.django_db
def test_a_bots_profile_names_its_owner_and_never_its_endpoint_or_secret(ladder):
    owner = get_user_model().objects.create_user("ada", password="pw-ada-12345")
    bot, secret = bot_register(owner=owner, name="Probe", endpoint_url="http://127.0.0.1:9/hidden-path")
    ladder_entry_create(ladder=ladder, player=bot.player)
    stranger = get_user_model().objects.create_user("eve", password="pw-eve-12345")
    client = APIClient()
    client.force_authenticate(stranger)
    for url in (f"/api/players/{bot.player_id}/", "/api/players/Probe/"):
        answer = client.get(url)
        body = answer.content.decode()
        assert answer.status_code == 200 and answer.json()["owner"] == "ada" and answer.json()["kind"] == "bot"
        assert "hidden-path" not in body and "127.0.0.1" not in body and secret not in body


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_player_is_a_json_404(settings, debug):
    settings.DEBUG = debug
    for url in ("/api/players/Nobody/", "/api/players/987654/", "/api/players/a%2Fb/"):
        answer = APIClient().get(url)
        assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json"), url
        assert answer.json()["error"] == "not_found"


def _queries(url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert APIClient().get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_a_profile_takes_a_fixed_number_of_queries(ladder, house_bots):
    owner = get_user_model().objects.create_user("ada", password="pw-ada-12345")
    bot, _secret = bot_register(owner=owner, name="Probe", endpoint_url="http://127.0.0.1:9/")
    first = match_create(players=[house_bots[3], bot.player], ruleset=Ruleset.preset("pagat"), seed=1)
    few = (_queries("/api/players/Professor/"), _queries(f"/api/players/{bot.player_id}/"))
    for seed in range(2, 14):
        match_create(players=[house_bots[3], bot.player], ruleset=Ruleset.preset("pagat"), seed=seed)
    many = (_queries("/api/players/Professor/"), _queries(f"/api/players/{bot.player_id}/"))
    assert first.pk and few == many and max(many) <= 8, (few, many)
    assert len(APIClient().get("/api/players/Probe/").json()["recent_matches"]) == 10  # bounded
