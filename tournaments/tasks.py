"""Celery tasks for ladders: thin adapters over ``tournaments.services``."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from games.tasks import advance_match
from tournaments import services
from tournaments.models import Ladder


@shared_task(ignore_result=True)
def schedule_ladder_matches() -> list[int]:
    """Periodic (beat): start matches on every active ladder and queue them."""
    started = []
    for ladder in Ladder.objects.filter(is_active=True):
        for match in services.ladder_schedule_matches(ladder=ladder):
            transaction.on_commit(lambda mid=match.pk: advance_match.delay(mid))
            started.append(match.pk)
    return started
