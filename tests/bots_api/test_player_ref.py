"""Breaker: ``GET /api/players/{id}/`` is what the API tells clients to use (the sign-up answer's ``player_id`` help:
"your player (GET /api/players/{id}/)"; the profile's ``id`` help: "GET /api/players/{id}/ works as well as the
name"), but an exact *name* wins over an id (``bots_api.selectors.player_by_ref``), and a person may sign up with
an all-digit user name. So anyone can take another player's id as their name and be served in that player's place
at the id address: a client following the documented reference reads the impostor's profile (kind, owner, ratings,
recent matches) as if it were the player it asked for.

Reproduction: ``POST /api/accounts/ {"username": "<Professor's id>", ...}``; ``GET /api/players/<Professor's id>/``
answers the new account's profile, not the house bot's.
Fix: separate the two lookups (``/api/players/id/<n>/`` or ``?id=``), or refuse all-digit player names (as
sign-up already refuses look-alikes), and say which one was found.
"""

import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_breaker_the_id_address_of_a_player_always_answers_that_player(house_bots):
    from games.services import player_house_create

    professor = house_bots[3]
    while professor.pk < 10:  # a name is 2 to 50 characters: a player with a two-digit id
        professor = player_house_create(name=f"Professor {professor.pk + 1}", strategy="heuristic")
    client = APIClient()
    signed = client.post("/api/accounts/", {"username": str(professor.pk), "password": "a-long-pass-phrase-9"},
                         format="json")
    assert signed.status_code == 400 and "player id" in signed.content.decode(), signed.content  # refused now
    player_house_create(name=str(professor.pk), strategy="random")  # made another way (not checked): the id wins
    answer = APIClient().get(f"/api/players/{professor.pk}/")
    assert answer.status_code == 200
    assert answer.json()["id"] == professor.pk and answer.json()["name"] == professor.name, answer.json()
