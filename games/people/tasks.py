"""People's periodic tasks: guest housekeeping (Celery beat's ``guest-housekeeping``) and the fair-play scan
(``fairplay-scan``); ``games.apps`` imports this module so every worker knows them."""

from celery import shared_task

from games.people.guests import guest_housekeeping as housekeeping


@shared_task(name="games.tasks.guest_housekeeping", ignore_result=True)
def guest_housekeeping() -> dict:
    """End abandoned guest matches and delete old ones (``games.people.guests.guest_housekeeping``); on Celery beat
    every ``GUEST_HOUSEKEEPING_SECONDS`` (the zero-setup ladder loop runs the same function without a broker)."""
    return housekeeping()


@shared_task(name="games.tasks.fairplay_scan", ignore_result=True)
def fairplay_scan() -> int:
    """Flag for staff what the fair-play signals see (``games.people.fairplay.fairplay_scan``): how many new flags.
    On Celery beat every ``FAIRPLAY_SCAN_SECONDS``; ``manage.py fairplay_scan`` runs it by hand."""
    from games.people.fairplay import fairplay_scan as scan

    return len(scan())
