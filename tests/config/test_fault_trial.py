"""Issue 21: the fault trial, shortened (benchmarks/fault_trial.py). People and the house play on the production
stack (gunicorn + uvicorn, the three Celery workers, beat) on its own Redis and database while each kind of fault
strikes once: Redis SIGKILLed and started again empty, every database connection terminated, a web worker
SIGKILLed, a graceful web reload, a Celery worker SIGKILLed, one stopped warmly. Every check must pass: no move
lost, no ply twice, no match aborted or left running, every match replays, no 500, no process exited on its own,
no address locked out of live streams."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.worker
@pytest.mark.timeout(900)
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server: the trial kills its own")
def test_the_shortened_fault_trial_passes_every_check():
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL",
                                                           "CELERY_BROKER_URL", "CACHE_URL", "CELERY_QUEUE")}
    env["FAULT_DATABASE"] = f"eights_fault_test{os.getpid()}"
    try:
        result = subprocess.run([sys.executable, "benchmarks/fault_trial.py", "--schedule", "all", "--people", "3",
                                 "--seconds", "70", "--drain-seconds", "150", "--redis-outage-max", "8"],
                                cwd=ROOT, env=env, capture_output=True, text=True, timeout=840)
    finally:
        import psycopg

        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{env["FAULT_DATABASE"]}" WITH (FORCE)')
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    checks = [line for line in output.splitlines() if line.startswith(("  PASS", "  FAIL"))]
    assert len(checks) == 8 and all(line.startswith("  PASS") for line in checks), "\n".join(checks)
    for fault in ("Redis SIGKILLed", "database connections terminated", "a web worker SIGKILLed",
                  "web reloaded gracefully", "SIGKILLed", "stopped warmly"):
        assert fault in output, fault
