"""The test run's own cache keys: several runs may share one Redis database, so a run clears only its keys."""

from __future__ import annotations


def clear_this_runs_cache() -> int:
    """Delete this run's keys from the default cache (all of them when it is not Redis); returns how many."""
    from django.conf import settings
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    config = settings.CACHES["default"]
    cache = caches["default"]
    if not isinstance(cache, RedisCache):  # RedisCache or the service's ResilientRedisCache
        cache.clear()
        return 0
    prefix = config.get("KEY_PREFIX") or ""
    assert prefix, "the test settings give each run its own cache KEY_PREFIX"
    client = cache._cache.get_client(write=True)  # redis.Redis
    deleted = 0
    batch = []
    for key in client.scan_iter(match=f"{prefix}:*", count=500):
        batch.append(key)
        if len(batch) == 500:
            deleted += client.delete(*batch)
            batch = []
    if batch:
        deleted += client.delete(*batch)
    return deleted
