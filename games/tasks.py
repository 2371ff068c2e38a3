"""Celery tasks for matches: thin adapters over ``games.services``.

A match is played in slices of ``MATCH_SLICE_MS``: when a slice is used up the task queues the match again, at the
back of the queue, so a few matches whose bots answer slowly (but within their timeout) never hold every worker.
Tasks of matches with a person seated go out with ``PEOPLE_PRIORITY`` and the others with ``BOTS_PRIORITY``: with
the Redis broker a worker takes every queued people's task before any bots-only one (kombu's Redis transport keeps
one list per priority step, 0 3 6 9, and pops them in that order; 0 comes first). A person waits for at most the
slices already running, never for the queue of bots' slices.

Three queues (config/settings.py): matches with a bot or a person seated go to ``MATCH_QUEUE_BOTS`` (a threads pool
that waits on many bots at once), house-only matches to ``MATCH_QUEUE_HOUSE`` (prefork: CPU bound), housekeeping
(the watchdog, guest housekeeping, the ladders' and tournaments' ticks) to ``HOUSEKEEPING_QUEUE``
(``CELERY_TASK_ROUTES``), so a slow bot never delays other matches and a queue of matches never delays the watchdog.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from games import services
from games.models import Player
from games.selectors import match_seat_kinds

log = logging.getLogger(__name__)

#: Redis broker priorities (lower is served first): a match with a person seated, a match of bots only.
PEOPLE_PRIORITY = 0
BOTS_PRIORITY = 6


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def advance_match(self, match_id: int) -> str:
    """Play a match on for one slice of ``MATCH_SLICE_MS`` from its stored log (idempotent and resumable; see
    ``services.match_advance``); when the slice is used up, queue the match again (``match_queue``). Run in place
    (``CELERY_TASK_ALWAYS_EAGER``) it plays on without slices: there is no queue to go back to."""
    budget = None if self.request.is_eager else settings.MATCH_SLICE_MS
    outcome = services.match_advance(match_id=match_id, time_budget_ms=budget)
    if outcome == "budget":  # the lease is released already: whoever takes the new message plays on
        match_queue(match_id=match_id)
    return outcome


def match_queue(*, match_id: int, kinds: set[str] | None = None) -> None:
    """Queue ``advance_match`` for ``match_id`` now, with ``PEOPLE_PRIORITY`` when a person sits in the match and
    ``BOTS_PRIORITY`` otherwise, on ``MATCH_QUEUE_BOTS`` when a bot or a person sits in it (its slices wait on HTTP
    calls and people: a pool that waits on many at once) and on ``MATCH_QUEUE_HOUSE`` when only house strategies
    do (CPU bound), so a slow bot never holds up a house-only match. A duplicate message is harmless: the match's
    lease lets one task play at a time and the others return "busy". ``kinds``: the seated players' kinds when the
    caller has them (else one query)."""
    kinds = match_seat_kinds(match_id=match_id) if kinds is None else kinds
    priority = PEOPLE_PRIORITY if Player.Kind.HUMAN in kinds else BOTS_PRIORITY
    queue = settings.MATCH_QUEUE_HOUSE if kinds <= {Player.Kind.HOUSE} else settings.MATCH_QUEUE_BOTS
    advance_match.apply_async((match_id,), priority=priority, queue=queue)


@shared_task(ignore_result=True)
def watchdog() -> list[int]:
    """Re-queue running matches that stopped making progress (a killed worker, a lost message)."""
    stalled = services.matches_stalled()
    for match_id in stalled:
        if services.match_note_resume(match_id=match_id):
            log.warning("watchdog: match %s stalled, re-queued", match_id)
            match_queue(match_id=match_id)
        else:
            log.error("watchdog: match %s aborted after too many restarts", match_id)
    for match_id in services.matches_clock_expired():  # a person's clock ran out: play their fallback
        match_queue(match_id=match_id)
    return stalled


@shared_task(ignore_result=True)
def guest_housekeeping() -> dict:
    """End abandoned guest matches and delete old ones (``games.guests.guest_housekeeping``); on Celery beat every
    ``GUEST_HOUSEKEEPING_SECONDS`` (the zero-setup ladder loop runs the same function without a broker)."""
    from games.guests import guest_housekeeping as housekeeping

    return housekeeping()
