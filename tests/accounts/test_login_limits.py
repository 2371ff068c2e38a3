"""Failed logins are limited per account and per address, on the login page, the admin login and the token
endpoint: after the limit the answer is a plain 429 with Retry-After (the API's {"error", "detail"}; a readable
message on the page), a right password is refused too until the cool-off ends, and a successful login forgets the
account's failures.

The limit and cool-off are made small here (LOGIN_FAILURE_LIMIT, LOGIN_COOLOFF_SECONDS in production).
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

LIMIT = 4
COOLOFF = 2  # seconds
PASSWORD = "pw-ada-12345"


@pytest.fixture
def ada(db, settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(seconds=COOLOFF)
    return get_user_model().objects.create_user("ada", password=PASSWORD)


def _page_login(username: str, password: str, address: str):
    return Client().post("/accounts/login/", {"username": username, "password": password, "next": "/bots/"},
                         REMOTE_ADDR=address)


def _token(username: str, password: str, address: str):
    return APIClient().post("/api/auth/token/", {"username": username, "password": password}, format="json",
                            REMOTE_ADDR=address)


def _assert_page_locked(response) -> int:
    assert response.status_code == 429, response.status_code
    wait = int(response["Retry-After"])
    assert 1 <= wait <= COOLOFF
    html = response.content.decode()
    assert "Too many failed logins" in html and f"try again in {wait} s" in html, html
    assert '<form method="post"' in html  # the login page itself, with the message on it
    return wait


def _assert_api_locked(response) -> int:
    assert response.status_code == 429, response.content
    wait = int(response["Retry-After"])
    assert 1 <= wait <= COOLOFF
    body = response.json()
    assert body["error"] == "throttled", body
    assert body["detail"].startswith("too many failed logins") and body["detail"].endswith(f"try again in {wait} s")
    return wait


def test_page_locks_an_account_tried_from_many_addresses_and_opens_after_the_cool_off(ada):
    answers = [_page_login("ada", f"wrong-{i}", f"198.51.100.{i}") for i in range(LIMIT)]
    assert [r.status_code for r in answers[:-1]] == [200] * (LIMIT - 1)  # the form again: wrong password
    _assert_page_locked(answers[-1])
    wait = _assert_page_locked(_page_login("ada", PASSWORD, "192.0.2.1"))  # the right password is refused too
    time.sleep(wait + 0.2)
    response = _page_login("ada", PASSWORD, "192.0.2.1")
    assert response.status_code == 302 and response["Location"] == "/bots/"


def test_page_locks_an_address_that_tries_many_accounts(ada):
    answers = [_page_login(f"user{i}", "guess", "198.51.100.9") for i in range(LIMIT)]
    assert [r.status_code for r in answers[:-1]] == [200] * (LIMIT - 1)
    _assert_page_locked(answers[-1])
    _assert_page_locked(_page_login("ada", PASSWORD, "198.51.100.9"))
    assert _page_login("ada", PASSWORD, "198.51.100.10").status_code == 302  # another address: ada is fine


def test_a_forged_x_forwarded_for_does_not_escape_the_address_limit(ada):
    for i in range(LIMIT - 1):
        response = Client().post("/accounts/login/", {"username": f"user{i}", "password": "guess"},
                                 REMOTE_ADDR="198.51.100.9", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}")
        assert response.status_code == 200
    _assert_page_locked(Client().post("/accounts/login/", {"username": "ada", "password": "guess"},
                                      REMOTE_ADDR="198.51.100.9", HTTP_X_FORWARDED_FOR="203.0.113.99"))


def test_rotating_ipv6_addresses_within_one_64_prefix_are_one_address(ada):
    answers = [_token(f"user{i}", "guess", f"2001:db8:1:2::{i + 1:x}") for i in range(LIMIT)]
    _assert_api_locked(answers[-1])
    assert _token("ada", PASSWORD, "2001:db8:1:3::1").status_code == 200


def test_token_endpoint_locks_an_account_tried_from_many_addresses(ada):
    answers = [_token("ada", f"wrong-{i}", f"198.51.100.{i}") for i in range(LIMIT)]
    assert [r.status_code for r in answers[:-1]] == [400] * (LIMIT - 1)
    _assert_api_locked(answers[-1])
    wait = _assert_api_locked(_token("ada", PASSWORD, "192.0.2.1"))
    time.sleep(wait + 0.2)
    response = _token("ada", PASSWORD, "192.0.2.1")
    assert response.status_code == 200 and response.json()["token"]


def test_token_endpoint_locks_an_address_that_tries_many_accounts(ada):
    answers = [_token(f"user{i}", "guess", "198.51.100.9") for i in range(LIMIT)]
    assert [r.status_code for r in answers[:-1]] == [400] * (LIMIT - 1)
    _assert_api_locked(answers[-1])
    _assert_api_locked(_token("ada", PASSWORD, "198.51.100.9"))
    assert _token("ada", PASSWORD, "198.51.100.10").status_code == 200


def test_page_and_api_count_together(ada):
    for i in range(LIMIT - 1):
        assert _page_login("ada", "wrong", f"198.51.100.{i}").status_code == 200
    _assert_api_locked(_token("ada", "wrong", "198.51.100.50"))


def test_a_successful_login_forgets_the_accounts_failures(ada):
    for round_ in range(4):
        for i in range(LIMIT - 1):
            assert _token("ada", "wrong", f"198.51.100.{i}").status_code == 400
        if round_ % 2:
            assert _token("ada", PASSWORD, "192.0.2.1").status_code == 200
        else:
            assert _page_login("ada", PASSWORD, "192.0.2.1").status_code == 302


def test_a_successful_login_does_not_forget_the_addresss_failures_against_other_accounts(ada):
    """Else one attacker with an account of their own could reset their address's count between guesses."""
    for i in range(LIMIT - 1):
        assert _token(f"user{i}", "guess", "198.51.100.9").status_code == 400
    assert _token("ada", PASSWORD, "198.51.100.9").status_code == 200
    _assert_api_locked(_token("user9", "guess", "198.51.100.9"))


def test_admin_login_is_limited_with_a_readable_page(ada):
    answers = [Client().post("/admin/login/?next=/admin/", {"username": "ada", "password": "wrong"},
                             REMOTE_ADDR=f"198.51.100.{i}") for i in range(LIMIT)]
    assert [r.status_code for r in answers[:-1]] == [200] * (LIMIT - 1)
    locked = answers[-1]
    assert locked.status_code == 429 and 1 <= int(locked["Retry-After"]) <= COOLOFF
    html = locked.content.decode()
    assert "Too many failed logins" in html and 'id="login-form"' in html
