"""A NUL character (U+0000) anywhere in a request (path, query string, cookies, form, JSON body) gets a 400, never
a 500: PostgreSQL text cannot hold it. Pages answer a plain page, the API its JSON error shape. Every URL pattern
is walked, with NUL in each text parameter of the path, in the query string and in a form posted to it."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from bots_api.services import bot_register
from eights_engine import Ruleset
from games.services import match_create

NUL_FORM = {"action": "enter", "ladder": "de\x00mo", "name": "Cr\x00zy", "endpoint_url": "http://a\x00b/",
            "username": "a\x00b", "password": "x\x00y", "card": "8\x00S", "suit": "S\x00", "next": "/\x00",
            "q": "\x00"}


def _routes(patterns, prefix=""):
    """Every route-pattern path under ``patterns`` ("deals/<str:code>/"); regex patterns (the admin's catch-all)
    are left out."""
    for pattern in patterns:
        if not isinstance(pattern.pattern, RoutePattern):
            continue
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route


@pytest.fixture
def world(ladder):
    user = get_user_model().objects.create_superuser("ada", password="pw-ada-123")
    bot, _ = bot_register(owner=user, name="Crazy8", endpoint_url="http://127.0.0.1:9/eights")
    match = match_create(players=[bot.player, ladder.entries.first().player], ruleset=Ruleset())
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return {"int": {"bot_id": bot.pk, "match_id": match.pk, "seat": 0, "number": 1, "check_id": 1},
            "text": {"slug": ladder.slug, "name": "Crazy8", "code": "ABC"}, "client": client}


def _urls(world):
    """(url with plain values, [urls with NUL in one text parameter each]) for every route."""
    for route in _routes(get_resolver().url_patterns):
        params = re.findall(r"<(?:(\w+):)?(\w+)>", route)

        def fill(nul_in=None):
            def value(match):
                converter, name = match.group(1) or "str", match.group(2)
                if converter == "int":
                    return str(world["int"].get(name, 1))
                if name == nul_in:
                    return "A%00B"
                return world["text"].get(name, "1")
            return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", value, route)

        yield fill(), [fill(name) for converter, name in params if converter != "int"]


@pytest.mark.django_db
def test_the_breakers_requests_answer_400(world, ladder):
    client = world["client"]
    bot_id = world["int"]["bot_id"]
    for method, url, data in (("get", "/deals/%00/", None), ("get", "/deals/A%00B/", None),
                              ("post", "/deals/%00/play/", {}),
                              ("post", f"/bots/{bot_id}/", {"action": "enter", "ladder": "de\x00mo"}),
                              ("post", f"/bots/{bot_id}/", {"action": "leave", "ladder": "de\x00mo"})):
        response = getattr(client, method)(url, data)
        assert response.status_code == 400, (url, data, response.status_code)
        assert "NUL" in response.content.decode() and response["Content-Type"].startswith("text/plain")
        assert "Content-Security-Policy" in response
    api = client.post("/api/bots/", {"name": "Cr\x00zy", "endpoint_url": "http://127.0.0.1:9/"},
                      content_type="application/json")
    assert api.status_code == 400 and api.json()["error"] == "bad_request" and "NUL" in api.json()["detail"]
    for body in ('{"name": "Cr\\u0000zy"}', '{"name": "Cr\x00zy"}'):
        api = client.post("/api/bots/", body, content_type="application/json")
        assert api.status_code == 400 and api.json()["error"] == "bad_request", body
    assert client.get("/api/players/a%00b/").json()["error"] == "bad_request"
    assert client.get("/", HTTP_COOKIE="sessionid=\"\\000abcdefgh\"").status_code == 400


@pytest.mark.django_db
def test_no_url_pattern_answers_5xx_to_nul(world):
    client = world["client"]
    seen = 0
    for url, nul_urls in _urls(world):
        for nul_url in nul_urls:
            for method in ("get", "post"):
                response = getattr(client, method)(nul_url)
                assert response.status_code == 400, (method, nul_url, response.status_code)
        response = client.get(url + "?q=%00&page=1")
        assert response.status_code == 400, (url, response.status_code)
        response = client.post(url, NUL_FORM)
        assert response.status_code == 400, (url, response.status_code)
        response = client.post(url, {"name": "x\x00"}, content_type="application/json")
        assert response.status_code == 400, (url, response.status_code)
        seen += 1
    assert seen > 30  # the pages, the API and the admin's route patterns


@pytest.mark.django_db
def test_text_without_nul_still_reaches_the_views(world):
    client = world["client"]
    assert client.get("/deals/ABC/").status_code in (200, 404)
    assert client.get("/?q=plain").status_code == 200
    ok = client.post("/api/bots/", {"name": "Plain", "endpoint_url": "http://127.0.0.1:9/"},
                     content_type="application/json")
    assert ok.status_code == 201, ok.content
    get_user_model().objects.create_user("bob", password="pw-bob-123")
    token = Client().post("/api/auth/token/", {"username": "bob", "password": "pw-bob-123"})  # multipart
    assert token.status_code == 200 and token.json()["token"], token.content
    token = Client().post("/api/auth/token/", "username=bob&password=pw-bob-123",
                          content_type="application/x-www-form-urlencoded")
    assert token.status_code == 200 and token.json()["token"], token.content
