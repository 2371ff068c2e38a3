"""Celery tasks for matches: thin adapters over ``games.services``."""

from __future__ import annotations

import logging

from celery import shared_task

from games import services

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def advance_match(match_id: int) -> str:
    """Play a match on from its stored log (idempotent and resumable; see ``services.match_advance``)."""
    return services.match_advance(match_id=match_id)


@shared_task(ignore_result=True)
def watchdog() -> list[int]:
    """Re-queue running matches that stopped making progress (a killed worker, a lost message)."""
    stalled = services.matches_stalled()
    for match_id in stalled:
        if services.match_note_resume(match_id=match_id):
            log.warning("watchdog: match %s stalled, re-queued", match_id)
            advance_match.delay(match_id)
        else:
            log.error("watchdog: match %s aborted after too many restarts", match_id)
    for match_id in services.matches_clock_expired():  # a person's clock ran out: play their fallback
        advance_match.delay(match_id)
    return stalled
