"""Celery tasks for ladders: thin adapters over ``tournaments.services``."""

from __future__ import annotations

import logging

from celery import shared_task

from games.services import match_wake
from tournaments import services
from tournaments.models import Ladder

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def schedule_ladder_matches() -> list[int]:
    """Periodic (beat): start matches on every active ladder and queue them."""
    started = []
    for ladder in Ladder.objects.filter(is_active=True):
        try:
            matches = services.ladder_schedule_matches(ladder=ladder)
        except ValueError as exc:  # a ladder saved with bad rules (e.g. by hand): skip it, keep the others going
            log.error("ladder %s cannot schedule matches: %s", ladder.slug, exc)
            continue
        for match in matches:
            match_wake(match_id=match.pk)
            started.append(match.pk)
    return started


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, max_retries=5)
def advance_tournament(self, tournament_id: int) -> str:
    """Create a tournament's next round once its last one has ended, or finish it
    (``tournament_services.tournament_advance``: idempotent, so a duplicate or redelivered message is harmless)."""
    from tournaments.tournament_services import tournament_advance

    return tournament_advance(tournament_id=tournament_id)


@shared_task(ignore_result=True)
def tournaments_tick() -> list[str]:
    """Periodic (beat): start tournaments whose start time has come and advance every running one; the safety net
    behind the match-finished signal (a lost message, a killed worker, an aborted match)."""
    from tournaments.tournament_services import tournaments_tick as tick

    return tick()
