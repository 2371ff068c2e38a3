"""One Redis connection pool per process for Django's cache (``CACHES["default"]`` ``OPTIONS["pool_class"]``).

Django keeps a cache object per thread (``django.core.cache.caches`` is thread-local), and its Redis backend gives
each cache object its own connection pool. Under the ASGI server every request runs in a thread of its own, so each
request opened a new TCP connection to Redis for its throttle counts (measured: new connections on most API
requests, with redis-py's connection set-up cost on each). ``SharedConnectionPool.from_url`` hands every cache object
of a process the same pool for the same URL and options. redis-py's pool is thread-safe and resets itself in a
forked child (it checks its pid), so a pool made before a fork is never shared across processes.
"""

from __future__ import annotations

import threading

from redis import ConnectionPool


class SharedConnectionPool(ConnectionPool):
    """``redis.ConnectionPool`` whose ``from_url`` returns one pool per (URL, options) in this process."""

    _pools: dict[tuple, "SharedConnectionPool"] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs) -> "SharedConnectionPool":
        key = (url, tuple(sorted((name, repr(value)) for name, value in kwargs.items())))
        with cls._lock:
            pool = cls._pools.get(key)
            if pool is None:
                pool = cls._pools[key] = super().from_url(url, **kwargs)
            return pool
