"""The rule-system ladders played by a real Celery worker (celery.contrib.testing.worker) through Redis: the beat
task schedules a partnership match and a multi-seat match; the worker plays them to the end and they are rated (the
partners as a team), with the seats rotated by the scheduler."""

import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from games.models import Match
from tournaments.models import RatingChange
from tournaments.services import ladder_create, ladder_entry_create
from tournaments.tasks import schedule_ladder_matches


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_partnership_and_points_game_ladders_and_rates_them(house_bots):
    from games.services import player_house_create

    bots = [*house_bots, player_house_create(name="Tactician", strategy="tactician")]
    partners = ladder_create(name="Partners", slug="partners", preset="eights-classic", seats_per_match=4,
                             overrides={"partnership": True}, max_running_matches=1)
    points = ladder_create(name="Points", slug="points", preset="points-game", seats_per_match=4,
                           max_running_matches=1)
    for lad in (partners, points):
        for bot in bots:
            ladder_entry_create(ladder=lad, player=bot)
    assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        schedule_ladder_matches.delay()  # the beat task, through the broker
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            matches = Match.objects.filter(ladder_match__ladder__in=[partners, points])
            if matches.count() == 2 and not matches.filter(status=Match.Status.RUNNING).exists():
                break
            time.sleep(0.3)
    for lad in (partners, points):
        (match,) = Match.objects.filter(ladder_match__ladder=lad)
        assert match.status == Match.Status.FINISHED
        assert RatingChange.objects.filter(match=match).count() == 4
    match = Match.objects.get(ladder_match__ladder=partners)
    seats = list(match.seats.order_by("index"))
    assert seats[0].place == seats[2].place != seats[1].place == seats[3].place
    changes = {c.entry.player_id: c for c in RatingChange.objects.filter(match=match).select_related("entry")}
    for s in seats:  # partners move together: both up (the winning side) or both down
        assert (changes[s.player_id].mu_after > changes[s.player_id].mu_before) == (s.place == 1)
    assert not Match.objects.filter(status=Match.Status.RUNNING).exists()
