"""Issue 21: the shared cache rides through a Redis outage (config/cache.py). While Redis is unreachable each process
counts its limits locally, so API requests answer (never 500) and /healthz says what is degraded; when Redis returns
the process goes back to it within ``RETRY_SECONDS``."""

import shutil
import socket
import subprocess
import time

import pytest
from django.test import override_settings
from django.urls import reverse

from config.cache import ResilientRedisCache


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cache_at(port: int, prefix: str = "fallback-test") -> ResilientRedisCache:
    return ResilientRedisCache(f"redis://127.0.0.1:{port}/0", {
        "KEY_PREFIX": prefix, "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}})


def test_an_unreachable_redis_answers_from_the_process_cache():
    cache = _cache_at(_free_port())  # nobody listens: every Redis call is refused
    started = time.monotonic()
    assert cache.add("count", 0, 60) is True
    assert cache.incr("count") == 1 and cache.incr("count", 2) == 3
    assert cache.get("count") == 3
    cache.set("history", [1.0, 2.0], 60)
    assert cache.get_many(["history", "missing"]) == {"history": [1.0, 2.0]}
    assert cache.touch("history", 30) is True
    with pytest.raises(ValueError):  # as Redis: incr of a missing key
        cache.incr("missing")
    cache.delete("history")
    assert cache.get("history", "gone") == "gone"
    assert time.monotonic() - started < 3  # one refused connection, then the local cache until RETRY_SECONDS
    assert cache._fallback.down_since is not None


@pytest.mark.django_db
def test_api_requests_and_healthz_while_the_cache_is_down(client):
    port = _free_port()
    caches = {"default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": f"redis://127.0.0.1:{port}/0",
                          "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
    with override_settings(CACHES=caches):
        statuses = [client.get("/api/ladders/").status_code for _ in range(5)]  # throttled (anon): counted locally
        health = client.get(reverse("healthz"))
    assert statuses == [200] * 5
    assert health.status_code == 503
    body = health.json()
    assert body["status"] == "degraded" and body["checks"]["database"]["ok"] is True
    assert body["checks"]["cache"]["ok"] is False and "limits count in each process" in body["degraded"]["cache"]
    assert str(port) not in health.content.decode()


@pytest.mark.django_db
def test_the_local_limit_still_refuses_past_its_rate(client):
    """A safe local decision: the anonymous rate (30/min) still holds in the process while Redis is down."""
    caches = {"default": {"BACKEND": "config.cache.ResilientRedisCache",
                          "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
                          "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
    with override_settings(CACHES=caches):
        statuses = [client.get("/api/ladders/").status_code for _ in range(35)]
    assert statuses.count(429) >= 1 and 500 not in statuses


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server to stop and start one")
def test_a_restarted_redis_is_used_again(tmp_path):
    port = _free_port()
    start = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(tmp_path)]
    server = subprocess.Popen(start, stdout=subprocess.DEVNULL)
    try:
        cache = _cache_at(port, prefix="restart-test")
        for _ in range(50):
            try:
                cache._cache.get_client(write=True).ping()
                break
            except Exception:
                time.sleep(0.1)
        cache.set("where", "redis", 60)
        server.kill()
        server.wait()
        assert cache.get("where") is None  # the local cache: Redis's value is out of reach, never an error
        cache.set("where", "local", 60)
        assert cache.get("where") == "local"
        server = subprocess.Popen(start, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while cache.get("where") == "local" and time.monotonic() < deadline:
            time.sleep(0.2)  # back to Redis within RETRY_SECONDS (a fresh Redis: the key is gone)
        assert cache.get("where") is None
        cache.set("where", "redis again", 60)
        assert cache._cache.get(cache.make_key("where"), None) == "redis again"  # stored in Redis itself
        assert cache._fallback.down_since is None
    finally:
        server.kill()
        server.wait()
