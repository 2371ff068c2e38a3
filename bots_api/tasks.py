"""Celery tasks for bots, and ``run_soon``: the one way bot work leaves a web request."""

from __future__ import annotations

import logging

from celery import shared_task

from bots_api import services
from sitekit.dispatch import send_task_on_commit

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


@shared_task(ignore_result=True, acks_late=True)
def webhook_deliver(bot_id: int, notification_id: int) -> str:
    """POST a bot's notification to its owner's webhook (``bots_api.webhooks.webhook_deliver_now``)."""
    from bots_api.webhooks import webhook_deliver_now

    return webhook_deliver_now(bot_id=bot_id, notification_id=notification_id)


def run_soon(task, *args) -> None:
    """Run ``task(*args)`` once the current transaction commits (at once outside one), never in the caller's
    thread (``sitekit.dispatch.send_task``): a Celery worker takes it, or without a broker a short-lived thread of
    this process does (a process that exits meanwhile loses it: a lost check is replaced by the next Verify, a lost
    ``match_end`` is ignored like a failed one)."""
    send_task_on_commit(task, *args, thread=True)


@shared_task(ignore_result=True)
def prune_turn_logs() -> int:
    """Delete turn logs older than ``TURN_LOG_DAYS`` (Celery beat, hourly: ``turn-log-prune``); how many went."""
    from bots_api.turnlog import turn_log_prune

    return turn_log_prune()
