"""Issue 27 item 4: every leaderboard filtered to people only or bots only (users' and house bots), on the ladder's
page and over ``GET /api/ladders/<slug>/?players=``, with the ratings unchanged and the ranks among those listed."""

import pytest
from django.test import Client

from games.models import Player
from tournaments.models import Ladder, LadderEntry


@pytest.fixture
def mixed_ladder(db, person, house_bots):
    from eights_engine import Ruleset

    ladder = Ladder.objects.create(name="Mixed", slug="mixed", preset="pagat", seats_per_match=2,
                                   ruleset=Ruleset.preset("pagat").to_dict())
    me = Player.objects.get(user=person, kind=Player.Kind.HUMAN) if Player.objects.filter(
        user=person, kind=Player.Kind.HUMAN).exists() else Player.objects.create(
        name="lin", kind=Player.Kind.HUMAN, user=person)
    other = Player.objects.create(name="Ada", kind=Player.Kind.HUMAN)
    owners_bot = Player.objects.create(name="Robo", kind=Player.Kind.BOT, user=person)
    ratings = [(house_bots[0], 30.0), (me, 25.0), (owners_bot, 22.0), (other, 20.0), (house_bots[1], 18.0)]
    for player, mu in ratings:
        LadderEntry.objects.create(ladder=ladder, player=player, mu=mu, sigma=2.0, ordinal=mu - 6.0,
                                   matches_played=10, wins=5)
    return ladder


def _names(body, key="leaderboard"):
    return [row["player"]["name"] if isinstance(row["player"], dict) else row["player"] for row in body[key]]


def test_the_api_lists_people_only_or_bots_only_with_the_same_ratings(mixed_ladder, house_bots):
    client = Client()
    everyone = client.get("/api/ladders/mixed/").json()
    people = client.get("/api/ladders/mixed/?players=people").json()
    bots = client.get("/api/ladders/mixed/?players=bots").json()
    assert everyone["players"] == "all" and people["players"] == "people" and bots["players"] == "bots"
    assert _names(everyone) == [house_bots[0].name, "lin", "Robo", "Ada", house_bots[1].name]
    assert _names(people) == ["lin", "Ada"] and people["count"] == 2
    assert _names(bots) == [house_bots[0].name, "Robo", house_bots[1].name]
    rating = {_names(everyone)[i]: row["rating"] for i, row in enumerate(everyone["leaderboard"])}
    for body in (people, bots):
        for name, row in zip(_names(body), body["leaderboard"]):
            assert row["rating"] == rating[name]  # one rating
        assert [row["rank"] for row in body["leaderboard"]] == list(range(1, len(body["leaderboard"]) + 1))


def test_a_bad_filter_answers_400_saying_what_would_do(mixed_ladder):
    response = Client().get("/api/ladders/mixed/?players=robots")
    assert response.status_code == 400
    body = response.json()
    assert "people" in body["detail"] and "bots" in body["detail"] and "robots" in body["detail"]


def test_the_ladder_page_filters_and_marks_the_choice(mixed_ladder, house_bots):
    client = Client()
    page = client.get("/ladders/mixed/?players=bots").content.decode()
    board = page[page.index("<tbody>"):page.index("</tbody>")]
    assert "Robo" in board and house_bots[0].name in board and ">lin<" not in board and ">Ada<" not in board
    assert 'href="?players=bots" aria-current="page"' in page and "ranked among themselves" in page
    people = client.get("/ladders/mixed/?players=people").content.decode()
    board = people[people.index("<tbody>"):people.index("</tbody>")]
    assert ">lin<" in board and ">Ada<" in board and "Robo" not in board
    odd = client.get("/ladders/mixed/?players=%3Cscript%3E")  # a hand-typed address: the whole board
    assert odd.status_code == 200 and "Robo" in odd.content.decode() and "<script>" not in odd.content.decode()
