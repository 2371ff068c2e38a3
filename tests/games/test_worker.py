"""A full ladder match played by a real Celery worker (celery.contrib.testing.worker) through Redis."""

import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from games.models import Match, Move
from tournaments.models import LadderEntry, RatingChange
from tournaments.tasks import schedule_ladder_matches


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_ladder_matches_to_the_end_and_rates_them(ladder):
    assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        started = schedule_ladder_matches.delay()  # the beat task, through the broker
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            matches = Match.objects.filter(ladder_match__ladder=ladder)
            if matches.exists() and not matches.filter(status=Match.Status.RUNNING).exists():
                break
            time.sleep(0.2)
    assert started is not None
    matches = list(Match.objects.filter(ladder_match__ladder=ladder))
    assert len(matches) == 2  # four bots, one match each at a time
    for match in matches:
        assert match.status == Match.Status.FINISHED
        assert max(match.totals) >= 100
        assert match.deals.filter(points__isnull=False).count() == match.deal_number
        assert Move.objects.filter(deal__match=match).count() == match.ply_count > 0
        assert RatingChange.objects.filter(match=match).count() == 2
    assert all(e.matches_played == 1 for e in LadderEntry.objects.filter(ladder=ladder))
