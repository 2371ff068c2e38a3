"""People's periodic task: guest housekeeping (Celery beat's ``guest-housekeeping``; ``games.apps`` imports this
module so every worker knows the task)."""

from celery import shared_task

from games.people.guests import guest_housekeeping as housekeeping


@shared_task(name="games.tasks.guest_housekeeping", ignore_result=True)
def guest_housekeeping() -> dict:
    """End abandoned guest matches and delete old ones (``games.people.guests.guest_housekeeping``); on Celery beat
    every ``GUEST_HOUSEKEEPING_SECONDS`` (the zero-setup ladder loop runs the same function without a broker)."""
    return housekeeping()
