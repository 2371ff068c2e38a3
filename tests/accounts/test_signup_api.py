"""Sign-up over the API (issue 14): POST /api/accounts/ creates the account and its player under the sign-up page's
rules (Django's user name rules and password validators, no look-alike names) and answers the API token; it is
limited like the page (the same budgets per address)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games.models import Player


def _signup(client: APIClient, username: str, password: str = "a-long-pass-9876", **extra):
    return client.post("/api/accounts/", {"username": username, "password": password}, format="json", **extra)


@pytest.mark.django_db
def test_a_script_signs_up_and_uses_its_token():
    answer = _signup(APIClient(), "scripter")
    assert answer.status_code == 201, answer.content
    data = answer.json()
    assert data["username"] == "scripter" and answer["Cache-Control"] == "no-store"
    player = Player.objects.get(pk=data["player_id"])
    assert (player.name, player.kind, player.user.username) == ("scripter", "human", "scripter")
    client = APIClient(HTTP_AUTHORIZATION=f"Token {data['token']}")
    assert client.get("/api/bots/").status_code == 200
    again = APIClient().post("/api/auth/token/", {"username": "scripter", "password": "a-long-pass-9876"},
                             format="json")
    assert again.json()["token"] == data["token"]


@pytest.mark.django_db
@pytest.mark.parametrize("password, words", [("short1", "too short"), ("password123", "too common"),
                                             ("83920571946", "entirely numeric"), ("scripter-x", "too similar")])
def test_a_weak_password_is_refused_by_djangos_validators(password, words):
    answer = _signup(APIClient(), "scripter", password)
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["error"] == "weak_password" and any(words in m for m in body["detail"]["password"]), body
    assert not get_user_model().objects.filter(username="scripter").exists()


@pytest.mark.django_db
def test_a_taken_or_look_alike_name_is_a_conflict_and_a_bad_name_is_refused(house_bots):
    for name in ("Professor", "Pr\u03bffessor", "professor"):
        answer = _signup(APIClient(), name)
        assert answer.status_code == 409 and answer.json()["error"] == "name_taken", (name, answer.content)
    for name in ("a b", "x", "Guest1a2b3c", "zero\u200bwidth"):
        answer = _signup(APIClient(), name)
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_username", (name, answer.content)
        assert answer.json()["detail"]["username"]
    missing = APIClient().post("/api/accounts/", {"username": "x"}, format="json")
    assert missing.status_code == 400 and "password" in missing.json()["detail"]


@pytest.mark.django_db
def test_sign_ups_share_the_pages_budget_per_address(settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "signup": "2/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = APIClient()
    assert _signup(client, "first").status_code == 201
    page = client.post("/accounts/signup/", {"username": "second", "password1": "a-long-pass-9876",
                                             "password2": "a-long-pass-9876"})
    assert page.status_code == 302  # the page's sign-up counts against the same budget
    refused = _signup(client, "third")
    assert refused.status_code == 429 and refused.json()["error"] == "throttled"
    assert int(refused["Retry-After"]) > 0 and "2/hour" in refused.json()["detail"]
    assert not get_user_model().objects.filter(username="third").exists()
