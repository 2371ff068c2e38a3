"""Settings for the test suite: real PostgreSQL and Redis on this machine unless the environment says otherwise."""

import os

# TEST_* only: a shell that exported DATABASE_URL / CELERY_BROKER_URL for `make run` must not send the tests
# to the development database or queue (where a running worker would take the tests' tasks).
os.environ["DATABASE_URL"] = os.environ.get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights")
os.environ["CELERY_BROKER_URL"] = os.environ.get("TEST_CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
# the cache (throttle counts) in its own Redis database, and under this run's own key prefix: tests/conftest.py
# clears only this run's keys before each test, so two runs sharing the database do not wipe each other's counts
os.environ["CACHE_URL"] = os.environ.get("TEST_CACHE_URL", "redis://127.0.0.1:6379/14")
os.environ["CACHE_KEY_PREFIX"] = os.environ.get("TEST_CACHE_KEY_PREFIX", f"test{os.getpid()}")
# the run's own Celery queue: two runs (or a run and a worker of `make run` on that Redis database) sharing the
# broker database never take each other's tasks (e.g. advance_match against the other run's test database). The
# run id is kept in the environment, so a process this run starts (a Celery worker loading these settings) takes
# tasks from the same queue.
RUN_ID = os.environ.setdefault("TEST_RUN_ID", str(os.getpid()))
os.environ["CELERY_QUEUE"] = os.environ.get("TEST_CELERY_QUEUE", f"eights.test{RUN_ID}")

from config.settings import *  # noqa: E402,F403

# read now; a process a test starts (e.g. the zero-setup configuration) must not inherit this run's cache
os.environ.pop("CACHE_URL", None)
os.environ.pop("CACHE_KEY_PREFIX", None)
os.environ.pop("CELERY_QUEUE", None)  # TEST_RUN_ID stays: a process loading these settings again finds the queue

DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
BOTS_ALLOW_LOOPBACK = True  # the tests' bot servers listen on 127.0.0.1
# each test run gets its own database, so two runs on one machine (a developer and CI, or parallel sessions)
# cannot trample each other's tables; pytest-django drops it at the end of the run
DATABASES["default"]["TEST"] = {"NAME": f"test_eights_{os.getpid()}"}  # noqa: F405
# the table and the watch page hold an events stream open; under the live server (WSGI) a
# stream notices its closed page only at its next write, so a short keep-alive ends it (and its connection) soon
LIVE_KEEPALIVE_SECONDS = 1
# browser tests play deal after deal: the table draws the next deal at once (tests/e2e/test_table_look.py sets a pause)
TABLE_NEXT_DEAL_SECONDS = 0
WATCH_PACE_MS = 0  # the watch page shows each ply as it comes (a test that wants the pacing sets it)
