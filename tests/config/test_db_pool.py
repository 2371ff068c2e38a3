"""DB_POOL_MAX: a process's PostgreSQL connections come from its own pool (psycopg_pool through Django's "pool"
option), so many request or task threads share a bounded number of connections instead of each opening one (the load
trial at 200 people ran PostgreSQL out of connections: "too many clients")."""

import os
import subprocess
import sys

import pytest
from django.db import connection

SCRIPT = r"""
import os, threading
import django
django.setup()
from django.db import connection, connections
from concurrent.futures import ThreadPoolExecutor

def query(_):
    with connection.cursor() as c:
        c.execute("SELECT pg_sleep(0.05), count(*) FROM pg_stat_activity WHERE application_name = %s",
                  [os.environ["APP"]])
        row = c.fetchone()
    connections.close_all()  # back to the pool, as a request's end does
    return row[1]

with ThreadPoolExecutor(24) as pool:
    seen = list(pool.map(query, range(96)))
print(max(seen), connection.settings_dict["CONN_MAX_AGE"], connection.settings_dict["OPTIONS"]["pool"]["max_size"])
"""


@pytest.mark.django_db
def test_threads_share_at_most_db_pool_max_connections():
    name = connection.settings_dict["NAME"]
    app = f"eights-pool-test-{os.getpid()}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DB_POOL_MAX": "4", "APP": app,
           "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}?application_name={app}",
           "SECRET_KEY": "pool-test", "CELERY_BROKER_URL": ""}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr[-2000:]
    most, conn_max_age, max_size = out.stdout.split()
    assert (int(conn_max_age), int(max_size)) == (0, 4)
    assert 1 <= int(most) <= 4, f"24 threads opened {most} connections with DB_POOL_MAX=4"
