"""The shared cache, riding through a Redis outage.

Throttle counts, open-stream leases and short-lived read caches live in the shared cache (Redis in production). While
Redis is unreachable, Django's ``RedisCache`` raises on every call, and every API request that counts a throttle
answered 500 (a trial: 295 of 295 seat views during a 30 s outage). ``ResilientRedisCache`` answers from a cache
local to the process instead (Django's ``LocMemCache``): each limit then counts per process, a safe local decision
(a client gets at most one budget per web process for the outage's length, never an error), and nothing the service
keeps for good lives in the cache (PostgreSQL is the truth), so losing the local counts when Redis returns costs
nothing. After a failure the process stays on its local cache for ``RETRY_SECONDS`` before it tries Redis again, so
an outage costs one failed connection per process every few seconds, not one per call. ``/healthz`` reports since
when this process has been on its local cache.

Configure as ``CACHES["default"]["BACKEND"] = "config.cache.ResilientRedisCache"`` (config/settings.py does when the
cache is Redis); set ``socket_connect_timeout`` / ``socket_timeout`` in ``OPTIONS`` so an unanswering Redis costs
at most that long.
"""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

#: After Redis failed, seconds this process answers from its local cache before trying Redis again.
RETRY_SECONDS = 2.0
_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)

class _Fallback:
    """One Redis location's state in this process (shared by every thread's cache object: Django makes one per
    thread): until when to skip Redis, since when, and the local cache that answers meanwhile."""

    def __init__(self, location: str, params: dict):
        self.location = location
        self.lock = threading.Lock()
        self.down_until = 0.0  # time.monotonic() until which this process skips Redis
        self.down_since: float | None = None  # time.time() of the current outage's first failure
        self.local = LocMemCache(f"eights-fallback-{location}", {
            "TIMEOUT": params.get("TIMEOUT", 300), "KEY_PREFIX": params.get("KEY_PREFIX", ""),
            "VERSION": params.get("VERSION", 1), "OPTIONS": {"MAX_ENTRIES": 10_000, "CULL_FREQUENCY": 3}})

    def failed(self, exc: Exception) -> None:
        with self.lock:
            first = self.down_since is None
            self.down_until = time.monotonic() + RETRY_SECONDS
            if first:
                self.down_since = time.time()
        if first:
            log.warning("cache: Redis unreachable (%s): counting in this process until it is back",
                        type(exc).__name__)

    def answered(self) -> None:
        if self.down_since is not None:
            with self.lock:
                was, self.down_since = self.down_since, None
            if was is not None:
                log.warning("cache: Redis is back after %.0f s: counting in Redis again", time.time() - was)


_fallbacks: dict[str, _Fallback] = {}
_fallbacks_lock = threading.Lock()


def _fallback_for(location: str, params: dict) -> _Fallback:
    with _fallbacks_lock:
        fallback = _fallbacks.get(location)
        if fallback is None:
            fallback = _fallbacks[location] = _Fallback(location, params)
        return fallback


def _resilient(name: str):
    redis_method = getattr(RedisCache, name)

    def method(self, *args, **kwargs):
        fallback = self._fallback
        if time.monotonic() >= fallback.down_until:
            try:
                result = redis_method(self, *args, **kwargs)
            except _UNREACHABLE as exc:
                fallback.failed(exc)
            else:
                fallback.answered()
                return result
        return getattr(fallback.local, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``RedisCache.{name}``, or this process's local cache while Redis is unreachable."
    return method


class ResilientRedisCache(RedisCache):
    """Django's ``RedisCache`` that answers from a process-local ``LocMemCache`` while Redis is unreachable (module
    docstring). Same keys, timeouts and errors otherwise (``incr`` of a missing key raises ``ValueError`` in both)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._fallback = _fallback_for(server if isinstance(server, str) else ",".join(server), params)

    add = _resilient("add")
    get = _resilient("get")
    set = _resilient("set")
    touch = _resilient("touch")
    delete = _resilient("delete")
    get_many = _resilient("get_many")
    set_many = _resilient("set_many")
    delete_many = _resilient("delete_many")
    has_key = _resilient("has_key")
    incr = _resilient("incr")
    decr = _resilient("decr")
    clear = _resilient("clear")
