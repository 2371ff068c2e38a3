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
