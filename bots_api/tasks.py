"""Celery tasks for bots, and ``run_soon``: the one way bot work leaves a web request."""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from django.conf import settings
from django.db import connections, transaction

from bots_api import services

log = logging.getLogger(__name__)


@shared_task(ignore_result=True, acks_late=True)
def notify_match_end(match_id: int) -> int:
    """Tell every bot of a finished match how it ended (failures are logged and ignored)."""
    return services.match_end_notify(match_id=match_id)


@shared_task(ignore_result=True, acks_late=True)
def check_bot(check_id: int) -> str | None:
    """Run a bot check (``services.bot_check_run``); its state, or None when it was not this task's to run."""
    check = services.bot_check_run(check_id=check_id)
    return check.state if check is not None else None


def run_soon(task, *args) -> None:
    """Run ``task(*args)`` once the current transaction commits (at once outside one), never in the caller's
    thread: with a broker a Celery worker takes it (``delay_on_commit``). Without one (zero-setup mode, where
    Celery would run it eagerly, inside the web request; or an in-memory broker) it runs in a short-lived daemon
    thread of this process, which closes its database connection when done; a process that exits meanwhile loses
    it (a lost check is replaced by the next Verify, a lost ``match_end`` is ignored like a failed one)."""
    # an in-memory broker is this process's own: no worker elsewhere would ever take the task from it
    if not settings.CELERY_TASK_ALWAYS_EAGER and not settings.CELERY_BROKER_URL.startswith("memory://"):
        task.delay_on_commit(*args)
        return
    transaction.on_commit(lambda: threading.Thread(target=_run_in_thread, args=(task, args), daemon=True,
                                                   name=f"{task.name}{args}").start())


def _run_in_thread(task, args: tuple) -> None:
    try:
        task(*args)
    except Exception:  # a thread has no one to raise to: say it in the log
        log.exception("%s%s failed", task.name, args)
    finally:
        connections.close_all()


@shared_task(ignore_result=True)
def prune_turn_logs() -> int:
    """Delete turn logs older than ``TURN_LOG_DAYS`` (Celery beat, hourly: ``turn-log-prune``); how many went."""
    from bots_api.turnlog import turn_log_prune

    return turn_log_prune()
