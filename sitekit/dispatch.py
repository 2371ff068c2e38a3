"""Where a task runs: the one setting (``TASKS``) and the one function that sends a task (``send_task``).

``TASKS`` is one of:

- ``"celery"``: a broker is configured (``CELERY_BROKER_URL``); Celery workers elsewhere take the tasks.
- ``"in_process"``: no broker (``make run``'s zero-setup mode). Tasks run in this process; matches are not sent at
  all: the ``ladder_run --forever`` process polls for runnable matches and plays them, so a web request never plays
  bots' turns (``games.services.match_wake``).
- ``"eager"``: tasks run in this process at once, matches included (tests that play a match inside one call).

Everything that queues work reads ``tasks_mode()`` or calls ``send_task``; nothing else looks at the broker's URL or
Celery's eager flag to decide.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections, transaction

log = logging.getLogger(__name__)

MODES = ("celery", "in_process", "eager")


def tasks_mode() -> str:
    """``settings.TASKS``: ``"celery"``, ``"in_process"`` or ``"eager"`` (module docstring).
    ``ImproperlyConfigured`` for anything else."""
    mode = settings.TASKS
    if mode not in MODES:
        raise ImproperlyConfigured(f"TASKS={mode!r}: one of {', '.join(MODES)}")
    return mode


def send_task(task, *args, thread: bool = False, **options) -> None:
    """Run the Celery ``task`` with ``args`` now: queued on the broker under ``"celery"`` (``apply_async`` with
    ``options``: ``queue``, ``priority``, ``retry_policy``; a broker that cannot be reached raises kombu's
    ``OperationalError`` for the caller to handle), else in this process: in the caller's thread, or with ``thread``
    in a short-lived daemon thread that closes its database connection when done (a process that exits meanwhile
    loses the task: use it only for work whose loss the next attempt repairs). Exceptions of a task run in the caller's
    thread propagate (``CELERY_TASK_EAGER_PROPAGATES``)."""
    if tasks_mode() == "celery":
        task.apply_async(args, **options)
    elif thread:
        threading.Thread(target=_run_in_thread, args=(task, args), daemon=True, name=f"{task.name}{args}"[:120]).start()
    else:
        task.apply(args, throw=True)


def send_task_on_commit(task, *args, thread: bool = False, **options) -> None:
    """``send_task`` once the current transaction commits (at once outside one): a task never reads a row its
    sender has not committed."""
    transaction.on_commit(lambda: send_task(task, *args, thread=thread, **options))


def _run_in_thread(task, args: tuple) -> None:
    try:
        task.apply(args, throw=True)
    except Exception:  # a thread has nobody to raise to: the log says what failed
        log.exception("task %s%s failed in its thread", task.name, args)
    finally:
        connections.close_all()  # this thread's own connections
