"""Celery tasks for bots."""

from celery import shared_task

from bots_api import services


@shared_task(ignore_result=True, acks_late=True)
def notify_match_end(match_id: int) -> int:
    """Tell every bot of a finished match how it ended (failures are logged and ignored)."""
    return services.match_end_notify(match_id=match_id)
