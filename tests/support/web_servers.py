"""The production web server for tests: Procfile's web line (gunicorn with uvicorn workers, ``config.asgi``), one
worker on a free port, on this run's database, cache and broker (``production_web_server``)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
#: the server's PostgreSQL application_name: a test counts its connections by it
APP_NAME = "eights-asgi-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, seconds: float, alive=lambda: True, log=lambda: "") -> None:
    """Wait until ``url``/healthz answers 200 (it is not rate limited), at most ``seconds``, while ``alive()``;
    else fail with ``log()`` (what the server wrote)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert alive() and time.monotonic() < deadline, f"{url} did not start:\n{log()}"
        time.sleep(0.2)


@contextlib.contextmanager
def production_web_server(tmp_path, **extra_env):
    """Start Procfile's web line with ``extra_env`` over the test settings' environment (logs in
    ``tmp_path``/web.log); yields ``(url, log path)`` once /healthz answers, and stops it after."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", EIGHTS_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1",
               DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
               CACHE_URL=settings.CACHES["default"]["LOCATION"],
               CACHE_KEY_PREFIX=settings.CACHES["default"]["KEY_PREFIX"],  # the same pub/sub channels as this run
               CELERY_BROKER_URL=os.environ.get("TEST_CELERY_BROKER_URL", "redis://127.0.0.1:6379/15"),
               EIGHTS_BIND=f"127.0.0.1:{port}", WEB_WORKERS="1", PGAPPNAME=APP_NAME,
               # no connection pool here: the test counts the connections a stream holds, and a pool keeps idle ones
               # of its own (the pool's bound is tests/config/test_db_pool.py)
               WEB_DB_POOL_MAX="0",
               LIVE_KEEPALIVE_SECONDS="1", PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.update(extra_env)
    line = next(line.split(":", 1)[1].strip() for line in (ROOT / "Procfile").read_text().splitlines()
                if line.startswith("web:"))
    log = open(tmp_path / "web.log", "wb")
    proc = subprocess.Popen(["/bin/sh", "-c", line], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, 30, lambda: proc.poll() is None, lambda: (tmp_path / "web.log").read_text())
        yield url, tmp_path / "web.log"
    finally:
        try:
            os.killpg(proc.pid, 15)
        except ProcessLookupError:  # a test killed it already
            pass
        proc.wait(20)
        log.close()
