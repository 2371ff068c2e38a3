"""The test run's own PostgreSQL database (``test_eights_<pid>``, config/test_settings.py): dropping what earlier
runs left behind, and making sure this run can drop its own.

A run's database is dropped by pytest-django at the end of the run, which PostgreSQL refuses while another
session uses it ("being accessed by other users"). A run killed before its end (a timeout, Ctrl-C, a stopped
session) cannot drop it at all: ``sweep_stale_test_databases`` drops those of runs whose process is gone.
"""

from __future__ import annotations

import os
import re

#: the names config/test_settings.py gives test databases
TEST_DATABASE = re.compile(r"^test_eights_(\d+)$")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def sweep_stale_test_databases(connection) -> list[str]:
    """Drop every ``test_eights_<pid>`` database whose pid is not a live process on this machine and that no
    session uses (a database in use is never touched: it may belong to a run in another process namespace).
    ``connection`` is a Django connection to the same server; returns the names dropped."""
    dropped = []
    with connection._nodb_cursor() as cursor:  # on the "postgres" database: the same route Django uses to create
        cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE 'test\\_eights\\_%'")
        names = [row[0] for row in cursor.fetchall()]
        for name in names:
            match = TEST_DATABASE.match(name)
            if match is None or _pid_alive(int(match.group(1))):
                continue
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name])
            if cursor.fetchone()[0]:
                continue
            try:
                cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')  # the name matched ^test_eights_\d+$
            except Exception:  # noqa: BLE001 - a session came in meanwhile: leave it for a later sweep
                continue
            dropped.append(name)
    return dropped


def other_sessions(connection) -> list[tuple[int, str, str]]:
    """Sessions other than ``connection``'s own on its database: (pid, application name, last query)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, application_name, left(query, 120) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return list(cursor.fetchall())
