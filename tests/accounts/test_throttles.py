"""Request limits that hold: a forged X-Forwarded-For buys no new budget, and every process counts in one shared
cache (Redis here; the database cache in the zero-setup configuration).

Rates (config/settings.py): anonymous API callers 30/min per address, accounts created 10/hour per address.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.utils.module_loading import import_string
from rest_framework.test import APIClient

from run_cache import clear_this_runs_cache
from web_servers import wait_healthy

ROOT = Path(__file__).resolve().parents[2]
ANON_PER_MINUTE = 30
SIGNUPS_PER_HOUR = 10


def _token_post(client: APIClient, **extra) -> int:
    """An anonymous call that touches no table: an empty token request (400 until the limit, then 429)."""
    return client.post("/api/auth/token/", {}, format="json", **extra).status_code


@pytest.mark.django_db
def test_rotating_x_forwarded_for_does_not_escape_the_anonymous_limit():
    client = APIClient()
    codes = [_token_post(client, HTTP_X_FORWARDED_FOR=f"203.0.113.{i}") for i in range(ANON_PER_MINUTE + 3)]
    assert codes[:ANON_PER_MINUTE] == [400] * ANON_PER_MINUTE
    assert codes[ANON_PER_MINUTE:] == [429] * 3


@pytest.mark.django_db
def test_rotating_x_forwarded_for_does_not_escape_the_signup_limit(client):
    codes = [client.post("/accounts/signup/", {"username": f"u{i}", "password1": "a-long-pass-9876",
                                               "password2": "a-long-pass-9876"},
                         HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
             for i in range(SIGNUPS_PER_HOUR + 2)]
    assert codes[:SIGNUPS_PER_HOUR] == [302] * SIGNUPS_PER_HOUR  # accounts created (each logs in and moves on)
    assert codes[SIGNUPS_PER_HOUR:] == [429, 429]


@pytest.mark.django_db
def test_rotating_ipv6_addresses_within_one_64_prefix_share_one_budget():
    """One IPv6 network (a /64) is one client: a host picks any of its 2**64 addresses at no cost."""
    client = APIClient()
    codes = [_token_post(client, REMOTE_ADDR=f"2001:db8:1:2::{i:x}") for i in range(ANON_PER_MINUTE + 1)]
    assert codes[-1] == 429 and codes[:-1] == [400] * ANON_PER_MINUTE
    assert _token_post(client, REMOTE_ADDR="2001:db8:1:3::1") == 400  # the next /64 is someone else
    assert _token_post(client, REMOTE_ADDR="192.0.2.1") == 400


@pytest.mark.django_db
def test_behind_one_configured_proxy_the_address_the_proxy_saw_is_the_client(settings):
    """NUM_PROXIES=1: the right-most X-Forwarded-For entry (added by our proxy) counts; a forged left part does not."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = APIClient()
    codes = [_token_post(client, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}, 198.51.100.7")
             for i in range(ANON_PER_MINUTE + 1)]
    assert codes[-1] == 429 and codes[:-1] == [400] * ANON_PER_MINUTE
    # another client behind the same proxy has its own budget
    assert _token_post(client, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.8") == 400


@pytest.mark.parametrize("meta, num_proxies, client", [
    ({"REMOTE_ADDR": "192.0.2.1", "HTTP_X_FORWARDED_FOR": "203.0.113.9"}, 0, "192.0.2.1"),
    ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "203.0.113.9, 198.51.100.7"}, 1, "198.51.100.7"),
    ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "203.0.113.9, 198.51.100.7"}, 2, "203.0.113.9"),
    ({"REMOTE_ADDR": "10.0.0.1"}, 1, "10.0.0.1"),  # no header: the connection
    ({"REMOTE_ADDR": "2001:db8:1:2:aaaa:bbbb:cccc:dddd"}, 0, "2001:db8:1:2::"),
    ({"REMOTE_ADDR": "::ffff:192.0.2.1"}, 0, "192.0.2.1"),
])
def test_client_address(settings, rf, meta, num_proxies, client):
    from sitekit.limits import client_address

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}
    assert client_address(rf.get("/", **meta)) == client


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _test_env(settings) -> dict[str, str]:
    """The environment for a server process of this test run: the same database, broker and cache keys."""
    db = settings.DATABASES["default"]
    cache = settings.CACHES["default"]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "TEST_DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "TEST_CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "TEST_CACHE_URL": str(cache.get("LOCATION", "")),
        "TEST_CACHE_KEY_PREFIX": str(cache.get("KEY_PREFIX", "")),
        "TEST_CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
    })
    return env


@pytest.mark.django_db(transaction=True)
def test_two_server_processes_share_one_budget(settings):
    """Two real gunicorn processes on loopback: the second one sees what the first one counted."""
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    ports = [_free_port(), _free_port()]
    procs = [subprocess.Popen([gunicorn, "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
                              cwd=ROOT, env=_test_env(settings), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for port in ports]
    try:
        for port in ports:  # wait until both servers answer
            wait_healthy(f"http://127.0.0.1:{port}", 60, lambda: all(p.poll() is None for p in procs),
                         lambda: [p.stderr.read1().decode() for p in procs if p.poll() is not None])
        urls = [f"http://127.0.0.1:{port}/api/auth/token/" for port in ports]
        first = [httpx.post(urls[0], json={}, timeout=5).status_code for _ in range(ANON_PER_MINUTE // 2)]
        second = [httpx.post(urls[1], json={}, timeout=5).status_code for _ in range(ANON_PER_MINUTE // 2 + 3)]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=20)
    assert first == [400] * (ANON_PER_MINUTE // 2)
    assert second == [400] * (ANON_PER_MINUTE // 2) + [429] * 3  # the second half, then the shared limit


@pytest.mark.parametrize("cache_url, backend", [
    ("", "django.core.cache.backends.filebased.FileBasedCache"),  # the zero-setup default: files in var/cache
    ("db", "django.core.cache.backends.db.DatabaseCache"),  # its table made by `migrate` alone
])
def test_without_redis_two_processes_share_counts(tmp_path, cache_url, backend):
    """No broker, SQLite: two separate processes count sign-ups from one address in one budget."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"EIGHTS_VAR_DIR": str(tmp_path), "CACHE_URL": cache_url})

    def manage(*args: str) -> str:
        proc = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=240)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout

    manage("migrate", "--noinput", "-v", "0")
    count = ("from django.conf import settings; from django.test import RequestFactory;"
             "from games.people.accounts import SignupThrottle;"
             "print(settings.CACHES['default']['BACKEND']);"
             "request = RequestFactory().post('/accounts/signup/');"
             "print([SignupThrottle().allow_request(request, None) for _ in range(6)])")
    first = manage("shell", "-v", "0", "-c", count).split("\n")
    second = manage("shell", "-v", "0", "-c", count).split("\n")
    assert first[0] == backend
    assert first[1] == str([True] * 6)
    assert second[1] == str([True] * (SIGNUPS_PER_HOUR - 6) + [False] * (12 - SIGNUPS_PER_HOUR))


def test_clearing_the_cache_between_tests_leaves_other_runs_keys_alone(settings):
    """Two test runs (a developer's and CI's) may share one Redis database: each clears only its own keys."""
    cache_settings = settings.CACHES["default"]
    assert issubclass(import_string(cache_settings["BACKEND"]), RedisCache)  # a shared Redis, not a local cache
    other_run = {**cache_settings, "KEY_PREFIX": "another-test-run"}
    settings.CACHES = {**settings.CACHES, "other_run": other_run}
    caches["default"].set("ours", 1, 60)
    caches["other_run"].set("theirs", 2, 60)
    try:
        clear_this_runs_cache()
        assert caches["default"].get("ours") is None
        assert caches["other_run"].get("theirs") == 2
    finally:
        caches["other_run"].delete("theirs")


@pytest.mark.django_db
def test_every_api_429_names_the_limit_it_hit():
    """The seat view's own 600/min, the anonymous 30/min: the 429 says which limit, not "see the API docs"."""
    from django.contrib.auth import get_user_model
    from rest_framework.throttling import ScopedRateThrottle

    user = get_user_model().objects.create_user("ada", password="pw-ada-123")
    client = APIClient()
    client.force_authenticate(user)
    key = ScopedRateThrottle.cache_format % {"scope": "seat_view", "ident": user.pk}
    caches["default"].set(key, [time.time()] * 600, 60)  # this account's 600 views of the last minute
    response = client.get("/api/matches/1/seats/0/")
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert response.json()["error"] == "throttled"
    assert "Limit reached: 600/min (seat views per player)." in response.json()["detail"], response.json()
    anonymous = APIClient()
    codes = [_token_post(anonymous) for _ in range(ANON_PER_MINUTE + 1)]
    assert codes[-1] == 429
    detail = anonymous.post("/api/auth/token/", {}, format="json").json()["detail"]
    assert "Limit reached: 30/min (API calls per address without an account)." in detail, detail
