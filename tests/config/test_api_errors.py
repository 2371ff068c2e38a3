"""Every answer under /api/ is JSON in the API's error shape, with DEBUG on as well as off: an unknown path,
a method the path does not take, a path missing its slash."""

import pytest
from django.test import Client


def _json_error(response, status, code):
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error", "detail"} and body["error"] == code, body
    return body


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_api_path_answers_json_404(settings, debug):
    settings.DEBUG = debug
    body = _json_error(Client().get("/api/no-such-thing/"), 404, "not_found")
    assert "/api/no-such-thing/" in body["detail"] and "/api/docs/" in body["detail"]
    _json_error(Client().post("/api/matches/not-a-number/seats/0/", {}), 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_a_post_to_an_api_path_without_its_slash_says_where_to_post(settings, debug):
    settings.DEBUG = debug  # with DEBUG, Django's APPEND_SLASH raises a RuntimeError for a POST (an HTML 500)
    body = _json_error(Client().post("/api/bots", {"name": "x"}), 404, "not_found")
    assert "/api/bots/" in body["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_a_method_the_path_does_not_take_answers_json_405(settings, debug):
    settings.DEBUG = debug
    body = _json_error(Client().put("/api/auth/token/"), 405, "method_not_allowed")
    assert "PUT" in body["detail"]


@pytest.mark.django_db
def test_pages_outside_the_api_keep_html_404(settings):
    settings.DEBUG = True
    response = Client().get("/no-such-page/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
