"""Issue 21: a Celery worker rides out a Redis restart. A real worker (the bots' pool: threads, late acks, a slot free
so its consumer waits in BRPOP) plays matches on its own redis-server; Redis is SIGKILLed mid-play and started again
empty. The worker must not exit (celery 5.7.0 did: pyproject.toml pins below it), must reconnect, and must play a
match queued after Redis is back."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from kombu import Connection

from eights_engine import Ruleset
from games.models import Match
from games.services import match_create
from games.tasks import advance_match

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(predicate, seconds: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"{what} (waited {seconds:.0f} s)" + (
            f"\n{log.read_text()[-4000:]}" if log else "")
        time.sleep(0.2)


def _plies(match_id: int) -> int:
    return Match.objects.get(pk=match_id).ply_count


@pytest.mark.worker
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server to kill and start one")
@pytest.mark.django_db(transaction=True)
def test_a_worker_rides_out_a_redis_restart(house_bots, tmp_path):
    port = _free_port()
    broker = f"redis://127.0.0.1:{port}/0"
    redis_cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", str(tmp_path)]
    redis_proc = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL)
    queue = f"outage{os.getpid()}"
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE",)}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", SECRET_KEY="worker-outage-test", DEBUG="false",
               DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
               CELERY_BROKER_URL=broker, CACHE_URL=f"redis://127.0.0.1:{port}/1", CELERY_QUEUE=queue,
               EIGHTS_VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT), MATCH_SLICE_MS="300")
    log = tmp_path / "worker.log"
    # the Procfile's bots worker: a threads pool with free slots, so its consumer waits in BRPOP when Redis dies
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
                               "-n", f"bots{port}@%h", "-Q", f"{queue}.house", "-P", "threads", "--concurrency", "4"],
                              cwd=ROOT, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    rules = Ruleset.preset("eights-classic", target=3000)  # long matches: still playing when Redis dies
    matches = [match_create(players=house_bots[:2], ruleset=rules, preset="eights-classic", seed=s).pk
               for s in (1, 2, 3)]
    try:
        with Connection(broker) as conn:
            for match_id in matches[:2]:
                advance_match.apply_async((match_id,), connection=conn, queue=f"{queue}.house")
        _wait(lambda: all(_plies(m) > 0 for m in matches[:2]), 60, "the worker never played", log)
        redis_proc.kill()  # mid-play, with late-acked tasks unacked
        redis_proc.wait()
        time.sleep(5)
        assert worker.poll() is None, "the worker exited when Redis went away\n" + log.read_text()[-4000:]
        redis_proc = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL)  # back, empty (nothing on disk)
        _wait(lambda: log.read_text().count("Connected to redis") >= 2, 60, "the worker never reconnected", log)
        time.sleep(2)
        assert worker.poll() is None, "the worker exited after Redis came back\n" + log.read_text()[-4000:]
        with Connection(broker) as conn:
            advance_match.apply_async((matches[2],), connection=conn, queue=f"{queue}.house")
        _wait(lambda: _plies(matches[2]) > 0, 60, "the worker took no task after Redis came back", log)
        assert worker.poll() is None
        assert "Unrecoverable error" not in log.read_text()
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(30)
        redis_proc.kill()
        redis_proc.wait()
        Match.objects.filter(pk__in=matches).update(status=Match.Status.ABORTED, abort_reason="test over")
