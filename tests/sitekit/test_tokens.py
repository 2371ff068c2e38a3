"""API tokens from the per-process cache (``sitekit.tokens``): no query for a token seen before, and every way a token
stops being good (logout, deletion, rotation, a deactivated account, another process's change, the time limit)
reaches the next request. Real HTTP through Django's test client, the real shared cache (Redis)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from sitekit import tokens
from tests.support.personas import user

pytestmark = pytest.mark.django_db

ME = "/api/bots/"  # any endpoint for a logged-in caller: the caller's bots (an empty list)


@pytest.fixture
def lin_token():
    tokens._entries.clear()
    person = user("lin")
    return person, Token.objects.create(user=person).key


def _get(key: str, path: str = ME):
    return Client().get(path, HTTP_AUTHORIZATION=f"Token {key}")


def _token_queries(key: str) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        answer = _get(key)
    return answer.status_code, [q["sql"] for q in captured.captured_queries if "authtoken_token" in q["sql"]]


def test_a_token_seen_before_costs_no_query_and_answers_the_same(lin_token):
    _person, key = lin_token
    first = _get(key)
    assert first.status_code == 200
    status, looked_up = _token_queries(key)
    assert status == 200 and looked_up == []
    assert _get(key).content == first.content
    tokens._entries.clear()  # a new process: looked up once more
    status, looked_up = _token_queries(key)
    assert status == 200 and len(looked_up) == 1


def test_logout_deletes_the_token_and_the_next_request_is_refused(lin_token):
    _person, key = lin_token
    assert _get(key).status_code == 200  # cached now
    out = Client().delete("/api/auth/token/", HTTP_AUTHORIZATION=f"Token {key}")
    assert out.status_code == 204 and not Token.objects.filter(key=key).exists()
    refused = _get(key)
    assert refused.status_code == 401 and refused.json() == {"error": "authentication_failed",
                                                            "detail": "Invalid token."}
    assert Client().delete("/api/auth/token/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401
    assert Client().delete("/api/auth/token/").status_code == 401  # nothing to log out
    again = Client().post("/api/auth/token/", {"username": "lin", "password": "pw-lin-12345"},
                          content_type="application/json")
    assert again.status_code == 200 and again.json()["token"] != key
    assert _get(again.json()["token"]).status_code == 200


def test_a_deactivated_account_and_a_deleted_token_are_refused_at_once(lin_token):
    person, key = lin_token
    assert _get(key).status_code == 200
    person.is_active = False
    person.save()
    refused = _get(key)
    assert refused.status_code == 401 and refused.json()["detail"] == "User inactive or deleted."
    person.is_active = True
    person.save()
    assert _get(key).status_code == 200
    Token.objects.filter(key=key).delete()  # the admin's or a shell's deletion: signals still fire
    assert _get(key).status_code == 401


def test_a_log_in_elsewhere_keeps_the_cached_tokens(lin_token):
    person, key = lin_token
    assert _get(key).status_code == 200
    generation = cache.get(tokens.GENERATION_KEY)
    page = Client().post("/accounts/login/", {"username": "lin", "password": "pw-lin-12345"})  # saves last_login
    assert page.status_code == 302
    assert cache.get(tokens.GENERATION_KEY) == generation
    assert _token_queries(key) == (200, [])


def test_another_processs_change_reaches_this_process_through_the_shared_generation(lin_token):
    _person, key = lin_token
    assert _get(key).status_code == 200
    with connection.cursor() as cursor:  # deleted where this process's signals do not run
        cursor.execute("DELETE FROM authtoken_token WHERE key = %s", [key])
    assert _get(key).status_code == 200  # this process alone cannot know
    cache.set(tokens.GENERATION_KEY, "set by another process", timeout=None)  # what its bump() does
    assert _get(key).status_code == 401


def test_what_bypasses_the_signals_is_seen_after_token_cache_seconds(lin_token, settings):
    person, key = lin_token
    settings.TOKEN_CACHE_SECONDS = 0  # nothing kept: every request looked up
    assert _get(key).status_code == 200
    get_user_model().objects.filter(pk=person.pk).update(is_active=False)  # no signal
    assert _get(key).status_code == 401
    settings.TOKEN_CACHE_SECONDS = 60
    get_user_model().objects.filter(pk=person.pk).update(is_active=True)
    assert _get(key).status_code == 200
    tokens._entries[key] = tokens._entries[key].__class__(  # its time is up
        tokens._entries[key].generation, 0.0, tokens._entries[key].user_fields, tokens._entries[key].token_fields)
    get_user_model().objects.filter(pk=person.pk).update(is_active=False)
    assert _get(key).status_code == 401


def test_with_the_shared_cache_away_every_request_is_looked_up(lin_token, monkeypatch):
    _person, key = lin_token

    class Away:
        def get(self, *_args, **_kwargs):
            raise ConnectionError("cache away")

        add = set = get

    monkeypatch.setattr(tokens, "cache", Away())  # the one stand-in: an unreadable cache, for this module only
    assert _get(key).status_code == 200 and tokens._entries == {}
    Token.objects.filter(key=key).delete()
    assert _get(key).status_code == 401


def test_a_request_never_sees_another_requests_changes_to_the_user(lin_token):
    _person, key = lin_token
    from sitekit.tokens import CachedTokenAuthentication

    first, _token = CachedTokenAuthentication().authenticate_credentials(key)
    first.username = "changed in one request"
    second, _token = CachedTokenAuthentication().authenticate_credentials(key)
    assert second.username == "lin" and second is not first
