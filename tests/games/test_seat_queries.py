"""What a person's table costs per request, in queries (issue 13's load trial: the web tier was bound by ORM work, so
each query saved is a request's worth of CPU at load). A token-authenticated person, as the API's clients and the
load trial are (the token looked up once, then from this process's cache: ``sitekit.tokens``): the seat view is the
match with its seats (one query, which also answers the 304) and the plies stored since this process's cached state;
a move adds the store (compare-and-set, moves, the seats' clocks) and never reads the match again after storing."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from eights_engine import Ruleset
from games.models import Move
from games.selectors import match_state
from games.services import match_create, player_for_user


@pytest.fixture
def table(db, house_bots):
    """(API client with ruth's token, match id) for a pagat match of ruth against a house bot, ruth to play."""
    ruth = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    person = player_for_user(user=ruth)
    match = next(m for seed in range(40) if match_state(match=(m := match_create(
        players=[person, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=seed))).to_play == 0)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=ruth).key}")
    return api, match.pk


def _statements(captured) -> list[str]:
    """The statements that reach the database as work (savepoints are the test's transaction's, not the view's)."""
    return [q["sql"] for q in captured.captured_queries if "SAVEPOINT" not in q["sql"]]


def test_the_seat_view_takes_two_queries_and_its_304_one(table, django_assert_max_num_queries):
    api, match_id = table
    url = f"/api/matches/{match_id}/seats/0/"
    first = api.get(url)  # the first read in this process replays the log (and looks the token up); later ones
    assert first.status_code == 200  # start from the cached state, with the cached token
    with django_assert_max_num_queries(2) as captured:
        again = api.get(url)
    assert again.status_code == 200 and again.json() == first.json()
    assert len(_statements(captured)) == 2, _statements(captured)  # match with its seats, plies since
    with django_assert_max_num_queries(1) as captured:
        unchanged = api.get(url, HTTP_IF_NONE_MATCH=again["ETag"])
    assert unchanged.status_code == 304 and len(_statements(captured)) == 1  # match with its seats


def test_a_move_is_stored_without_reading_the_match_again(table, django_assert_max_num_queries):
    api, match_id = table
    url = f"/api/matches/{match_id}/seats/0/"
    view = api.get(url).json()
    with django_assert_max_num_queries(12) as captured:
        moved = api.post(url + "actions/", {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
    assert moved.status_code == 200, moved.content
    assert moved.json()["ply"] == view["ply"] + 2 and moved.json()["status"] == "running"  # the house answered
    statements = _statements(captured)
    # the seats, the match with its plies since (the deal's row comes with them), compare-and-set, the moves (the
    # person's and the house's answer, one INSERT), both seats' clocks (one UPDATE; the token: from this process's
    # cache)
    assert len(statements) == 5, statements
    assert Move.objects.filter(deal__match_id=match_id).count() == view["ply"] + 2
    assert moved.json()["seat_view"] == api.get(url).json()  # the view after the move, as a fetch would give it
    assert sum(connection.ops.quote_name("games_match") in sql and sql.lstrip().startswith("SELECT")
               for sql in statements[1:]) <= 1  # the match is read once (with the plies), never again after storing


@pytest.mark.django_db
def test_a_move_that_ends_a_deal_answers_the_new_deals_view_and_commitment(table):
    """The new deal's row is stored with the move, after the snapshot was read: its commitment comes from the row."""
    from games.models import Deal
    from games.services import match_advance

    api, match_id = table
    url = f"/api/matches/{match_id}/seats/0/"
    for _ in range(400):
        match_advance(match_id=match_id)  # the house bot plays until it is the person's turn
        view = api.get(url).json()
        assert view["status"] == "running" and view["your_turn"]
        moved = api.post(url + "actions/", {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
        assert moved.status_code == 200, moved.content
        after = moved.json()["seat_view"]
        assert after == api.get(url).json()
        if after["deal_number"] > view["deal_number"]:  # this move ended the deal
            row = Deal.objects.get(match_id=match_id, number=after["deal_number"])
            assert after["commitment"] == row.commitment and len(after["commitment"]) == 64
            return
    pytest.fail("no move of the person's ended a deal in 400 turns")
