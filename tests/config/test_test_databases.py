"""A test run drops its database: stale ``test_eights_<pid>`` databases of dead runs are swept, live runs' and
other databases are never touched, and the browser fixture leaves no session on the test database."""

import os
import shutil
import subprocess
import sys

import pytest
from django.db import connection

from testdb import other_sessions, sweep_stale_test_databases


def _databases() -> set[str]:
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT datname FROM pg_database")
        return {row[0] for row in cursor.fetchall()}


def _create(name: str) -> None:
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')


def _drop(name: str) -> None:
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')


@pytest.mark.django_db
def test_the_sweep_drops_only_databases_of_dead_runs_that_nobody_uses():
    if connection.vendor != "postgresql":
        pytest.skip("test databases are swept on PostgreSQL")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    names = {"dead": f"test_eights_{dead.pid}", "alive": f"test_eights_{alive.pid}",
             "other": f"test_eights_{dead.pid}_keep", "mine": connection.settings_dict["NAME"]}
    try:
        for key in ("dead", "alive", "other"):
            _create(names[key])
        dropped = sweep_stale_test_databases(connection)
        present = _databases()
        assert names["dead"] in dropped and names["dead"] not in present
        assert {names["alive"], names["other"], names["mine"]} <= present
        assert names["mine"] == f"test_eights_{os.getpid()}"
    finally:
        alive.kill()
        alive.wait()
        for key in ("dead", "alive", "other"):
            _drop(names[key])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not shutil.which(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
                    and not os.path.exists(os.environ.get("CHROMIUM", "/usr/bin/chromium")),
                    reason="Debian's chromium is not installed")
def test_database_work_inside_the_browser_block_leaves_no_session_behind(monkeypatch):
    """The cause of a left-behind test database: ORM calls while Playwright's event loop runs use a connection
    of their own, which nothing closed."""
    pytest.importorskip("playwright.sync_api")
    from browsers import chromium
    from games.models import Player

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    before = _settled_sessions()  # an earlier test's thread may still be closing its connection
    with chromium():
        Player.objects.count()
        assert len(other_sessions(connection)) == before + 1  # the block's own connection
    assert _settled_sessions() == before  # one left behind stays: waiting for it to go cannot hide it


def _settled_sessions(seconds: float = 5.0) -> int:
    """The other sessions on the test database, once the count has held for half a second (or after ``seconds``)."""
    import time

    deadline, last, since = time.monotonic() + seconds, None, time.monotonic()
    while True:
        count = len(other_sessions(connection))
        if count != last:
            last, since = count, time.monotonic()
        if time.monotonic() - since >= 0.5 or time.monotonic() > deadline:
            return count
        time.sleep(0.05)
