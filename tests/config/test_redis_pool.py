"""The cache's Redis connections are pooled per process (config/redis_pool.py): Django's cache objects are per thread,
and under the ASGI server every request runs in a thread of its own, so a pool per cache object meant a new Redis
connection on every API request. Real Redis (the test settings' cache)."""

from __future__ import annotations

import threading

import redis
from django.conf import settings
from django.core.cache import cache


def _pool_and_connections(results: list, barrier: threading.Barrier) -> None:
    barrier.wait()  # all threads alive at once: none can reuse another's thread-local cache object
    cache.get("eights-pool-probe")
    results.append(cache._cache.get_client().connection_pool)


def test_threads_share_one_pool_and_reuse_its_connections():
    threads, results = 20, []
    barrier = threading.Barrier(threads)
    workers = [threading.Thread(target=_pool_and_connections, args=(results, barrier)) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    pools = {id(pool) for pool in results}
    assert len(pools) == 1, f"{len(pools)} pools for {threads} threads' cache objects"
    before = len(results[0]._available_connections) + len(results[0]._in_use_connections)
    for _ in range(5):  # more requests in fresh threads, one after another: no new connection each time
        worker = threading.Thread(target=_pool_and_connections, args=(results, threading.Barrier(1)))
        worker.start()
        worker.join()
    after = len(results[0]._available_connections) + len(results[0]._in_use_connections)
    assert after == before <= threads


def test_the_pool_is_configured_for_a_redis_cache():
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")  # the tests' cache is Redis
    assert settings.CACHES["default"]["OPTIONS"]["pool_class"] == "config.redis_pool.SharedConnectionPool"
    assert isinstance(cache._cache._get_connection_pool(False), redis.ConnectionPool)
