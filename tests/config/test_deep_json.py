"""A JSON body nested too deeply for Python's parser answers 400 parse_error, never 500 (breaker F3)."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.services import casual_match_create

DEEP = "[" * 5000 + "]" * 5000
#: a NUL escape makes the NUL middleware (config.api.RefuseNulMiddleware) parse the body itself
DEEP_WITH_NUL = "[" * 5000 + '"\\u0000"' + "]" * 5000


def _is_parse_error(response) -> bool:
    body = response.json()
    return response.status_code == 400 and body["error"] == "parse_error" and "nested" in body["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("body", [DEEP, DEEP_WITH_NUL])
def test_token_endpoint(client, body):
    assert _is_parse_error(client.post("/api/auth/token/", body, content_type="application/json"))


@pytest.mark.django_db
@pytest.mark.parametrize("body", [DEEP, DEEP_WITH_NUL])
def test_move_and_casual_endpoints(client, house_bots, body):
    person = get_user_model().objects.create_user("deep-person", password="pw-deep-1")
    client.force_login(person)
    match = casual_match_create(user=person, opponents=["Professor"])
    url = reverse("api-seat-action", args=[match.pk, 0])
    assert _is_parse_error(client.post(url, body, content_type="application/json"))
    assert _is_parse_error(client.post(reverse("api-casual-match"), body, content_type="application/json"))


@pytest.mark.django_db
def test_an_ordinary_bad_body_still_says_parse_error(client):
    response = client.post("/api/auth/token/", "{", content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "parse_error"
    assert client.post("/api/auth/token/", json.dumps({"username": "x"}), content_type="application/json"
                       ).status_code == 400
