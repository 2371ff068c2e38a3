"""Where the service keeps its data, from the environment: the database (``databases``) and the shared cache
(``caches``). Read by ``config.settings`` once at start-up; each raises ``ImproperlyConfigured`` saying what a
right value looks like."""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_float, env_int, env_str


def databases(url: str, var_dir: Path) -> dict:
    """Django's ``DATABASES`` for ``url`` (DATABASE_URL: PostgreSQL through psycopg 3), or, when it is empty, the
    zero-setup SQLite file in ``var_dir``.

    PostgreSQL: connections kept ``DB_CONN_MAX_AGE`` s between requests and checked before use (one that died, a
    terminated backend or a restart, is replaced instead of failing the request). ``DB_POOL_MAX`` > 0 gives each
    process its own pool (psycopg_pool through Django's "pool" option: a request or task thread waits up to
    ``DB_POOL_TIMEOUT`` s for a connection instead of opening its own). The ASGI web server runs each request in its
    own thread and the bots' Celery pool runs 32 threads: without a pool their connections add up past PostgreSQL's
    max_connections under load (the load trial at 200 people: "too many clients"). 0 (the default; the tests): no
    pool. The Procfile sets it for web and botworker; docs/SCALING.md.

    SQLite: the file is written by two processes at once (the web server and the ladder loop). WAL lets reads go on
    beside a writer; IMMEDIATE takes the write lock at BEGIN, so a transaction that read first never fails with
    "database is locked" when it comes to write (SQLite cannot wait there, only at BEGIN); ``timeout`` is the busy
    timeout (s) a writer waits for the lock (``SQLITE_TIMEOUT_SECONDS``). synchronous=NORMAL is safe in WAL (a power
    cut may lose the last commits, never the file)."""
    if not url:
        return {"default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": var_dir / "eights.sqlite3",
            "OPTIONS": {"timeout": env_int("SQLITE_TIMEOUT_SECONDS", 20, 1, 600), "transaction_mode": "IMMEDIATE",
                        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"},
        }}
    try:
        default = dj_database_url.parse(url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, 0, 86400))
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL={url!r} is not a database URL ({exc}); use e.g. "
                                   "postgres://user@127.0.0.1:5432/eights") from None
    pool_max = env_int("DB_POOL_MAX", 0, 0, 1000)
    if pool_max and default["ENGINE"].endswith("postgresql"):
        default["CONN_MAX_AGE"] = 0  # the pool keeps the connections; Django refuses both at once
        default.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1, "max_size": pool_max, "timeout": env_float("DB_POOL_TIMEOUT", 10, 0.1, 600)}
    # a pooled connection is checked before it is handed out (psycopg_pool's check_connection, one round trip,
    # ~0.1 ms on loopback), a kept one before its first use in each request or task
    default["CONN_HEALTH_CHECKS"] = True
    return {"default": default}


def cache_url(*, broker_url: str, database_url: str) -> str:
    """CACHE_URL, or its default: the broker when it is Redis, else "db" with a database URL, else (the zero-setup
    SQLite path) "file": a count in SQLite would make every API request a write transaction (~9 ms, and one more
    writer to wait for)."""
    return env_str("CACHE_URL", "") or (
        broker_url if broker_url.startswith(("redis://", "rediss://")) else "db" if database_url else "file")


def caches(url: str, var_dir: Path) -> dict:
    """Django's ``CACHES`` for ``url``: a Redis URL; "db" for Django's database cache (table "eights_cache", created
    by every ``migrate``); "file" for files in ``var_dir``/cache (one machine only).

    Redis: one connection pool per process (``config.redis_pool``: Django's per-thread cache objects would each open
    their own, i.e. one new connection per request under the ASGI server). While Redis is unreachable each process
    counts in a local cache instead of failing (``config.cache``); an unanswering Redis costs at most
    ``CACHE_SOCKET_TIMEOUT`` s per try. Keys are prefixed with ``CACHE_KEY_PREFIX``."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        timeout = env_float("CACHE_SOCKET_TIMEOUT", 2, 0.05, 60)
        return {"default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": url,
                            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "eights"),
                            "OPTIONS": {"pool_class": "config.redis_pool.SharedConnectionPool",
                                        "socket_connect_timeout": timeout, "socket_timeout": timeout}}}
    if url == "db":
        return {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "eights_cache",
                            "OPTIONS": {"MAX_ENTRIES": 100_000}}}
    if url == "file":
        return {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                            "LOCATION": var_dir / "cache", "OPTIONS": {"MAX_ENTRIES": 100_000}}}
    raise ImproperlyConfigured(f"CACHE_URL={url!r}: use a Redis URL (redis://host:6379/1), db or file")
