"""Issue 27 item 1: ladders in seasons. A season closes at its end with its final standings kept (a page and
``GET /api/ladders/<slug>/seasons/``), the ratings are softened (sigma widened toward a newcomer's, mu kept), the
next season opens by itself, rated matches belong to the season they started in, and a player's page lists their
seasons. The rollover is driven by the ladder's scheduling tick: a real Celery worker runs it here."""

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Match
from tournaments.models import Ladder, LadderEntry, LadderMatch, Season, SeasonStanding
from tournaments.seasons import SIGMA_START, season_open, seasons_roll
from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches


@pytest.fixture
def seasonal(db, house_bots):
    ladder = ladder_create(name="Seasonal", slug="seasonal", preset="pagat", seats_per_match=2, target=15,
                           max_running_matches=2)
    Ladder.objects.filter(pk=ladder.pk).update(season_length=timedelta(hours=1))
    ladder.refresh_from_db()
    for bot in house_bots[:4]:
        ladder_entry_create(ladder=ladder, player=bot)
    return ladder


def _play_all(ladder):
    from games.services import match_advance

    for link in LadderMatch.objects.filter(ladder=ladder, match__status=Match.Status.RUNNING):
        assert match_advance(match_id=link.match_id) == "finished"


def test_the_first_tick_opens_season_one_and_its_matches_belong_to_it(seasonal):
    assert season_open(ladder=seasonal) is None
    matches = ladder_schedule_matches(ladder=seasonal)
    season = season_open(ladder=seasonal)
    assert season is not None and season.number == 1 and season.closed_at is None
    assert season.ends_at - season.started_at == timedelta(hours=1)
    assert matches and {m.ladder_match.season_id for m in matches} == {season.pk}


def test_a_season_closes_with_its_standings_softens_ratings_and_opens_the_next(seasonal, house_bots):
    ladder_schedule_matches(ladder=seasonal)
    _play_all(seasonal)
    first = season_open(ladder=seasonal)
    in_first = LadderMatch.objects.filter(season=first).count()
    running = ladder_schedule_matches(ladder=seasonal)  # started in season 1, finished after it closed
    before = {e.player_id: (e.mu, e.sigma) for e in LadderEntry.objects.filter(ladder=seasonal)}
    closed = seasons_roll(ladder=seasonal, now=first.ends_at + timedelta(seconds=1))
    assert [s.pk for s in closed] == [first.pk]
    first.refresh_from_db()
    assert first.closed_at is not None
    second = season_open(ladder=seasonal)
    assert second.number == 2 and second.started_at == first.ends_at  # no gap, no overlap
    rows = list(SeasonStanding.objects.filter(season=first).order_by("position"))
    assert {r.player_id for r in rows} == set(before)
    assert sum(r.season_matches for r in rows) == 2 * (in_first + len(running)) - 2 * len(running)
    for row in rows:
        mu, sigma = before[row.player_id]
        assert (row.mu, row.sigma) == (mu, sigma)  # the standings are the board as it closed
        entry = LadderEntry.objects.get(ladder=seasonal, player_id=row.player_id)
        assert entry.mu == mu and entry.sigma == pytest.approx(sigma + 0.5 * (SIGMA_START - sigma))
        assert entry.ordinal == pytest.approx(entry.mu - 3 * entry.sigma)
    assert {m.ladder_match.season_id for m in running} == {first.pk}
    _play_all(seasonal)  # rated after the close: on the softened ratings, still season 1's matches
    assert LadderMatch.objects.filter(season=second).count() == 0
    assert not seasons_roll(ladder=seasonal, now=second.ends_at - timedelta(seconds=1))


def test_after_a_long_stop_the_next_season_starts_now_not_in_the_past(seasonal):
    ladder_schedule_matches(ladder=seasonal)
    first = season_open(ladder=seasonal)
    later = first.ends_at + timedelta(days=3)
    seasons_roll(ladder=seasonal, now=later)
    second = season_open(ladder=seasonal)
    assert second.number == 2 and second.started_at == later and Season.objects.filter(ladder=seasonal).count() == 2


def test_the_season_pages_and_api_show_the_podium_and_the_board_as_it_closed(seasonal, house_bots):
    ladder_schedule_matches(ladder=seasonal)
    _play_all(seasonal)
    first = season_open(ladder=seasonal)
    # a few established entries: rank needs LADDER_PROVISIONAL_MATCHES, so pretend they played enough
    LadderEntry.objects.filter(ladder=seasonal).update(matches_played=50)
    seasons_roll(ladder=seasonal, now=first.ends_at)
    rows = list(SeasonStanding.objects.filter(season=first).select_related("player").order_by("position"))
    client = Client()
    listing = client.get("/api/ladders/seasonal/seasons/").json()
    assert [s["number"] for s in listing["results"]] == [2, 1]
    assert listing["results"][0]["status"] == "open" and listing["results"][1]["status"] == "closed"
    podium = [r.player.name for r in rows if r.rank is not None and r.rank <= 3]  # ties share a step
    assert [p["player"] for p in listing["results"][1]["podium"]] == podium and len(podium) >= 3
    detail = client.get("/api/ladders/seasonal/seasons/1/").json()
    assert [s["player"] for s in detail["standings"]] == [r.player.name for r in rows]
    assert [s["rank"] for s in detail["standings"]][:1] == [1]
    assert client.get("/api/ladders/seasonal/seasons/9/").status_code == 404
    assert client.get("/api/ladders/nope/seasons/").status_code == 404
    page = client.get("/ladders/seasonal/seasons/1/").content.decode()
    assert 'class="podium"' in page and all(r.player.name in page for r in rows)
    assert "as it closed" in page
    assert "Season 2, until" in client.get("/ladders/seasonal/").content.decode()
    assert "/ladders/seasonal/seasons/1/" in client.get("/ladders/seasonal/seasons/").content.decode()
    profile = client.get(f"/players/{rows[0].player.name}/").content.decode()
    assert "/ladders/seasonal/seasons/1/" in profile


def test_a_season_length_outside_a_minute_to_a_year_is_refused(seasonal):
    from django.core.exceptions import ValidationError

    seasonal.season_length = timedelta(seconds=5)
    with pytest.raises(ValidationError, match="season_length"):
        seasonal.full_clean()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_rolls_the_season_over(house_bots):
    from celery.contrib.testing.worker import start_worker

    from config.celery import app
    from tournaments.tasks import schedule_ladder_matches

    ladder = ladder_create(name="Quick seasons", slug="quick", preset="pagat", seats_per_match=2, target=15,
                           max_running_matches=1)
    for bot in house_bots[:2]:
        ladder_entry_create(ladder=ladder, player=bot)
    Ladder.objects.filter(pk=ladder.pk).update(season_length=timedelta(minutes=1))
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        schedule_ladder_matches.delay()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not Season.objects.filter(ladder=ladder).exists():
            time.sleep(0.2)
        first = Season.objects.get(ladder=ladder, number=1)
        Season.objects.filter(pk=first.pk).update(ends_at=timezone.now())  # its minute is up
        schedule_ladder_matches.delay()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not Season.objects.filter(ladder=ladder, number=2).exists():
            time.sleep(0.2)
    first.refresh_from_db()
    assert first.closed_at is not None and Season.objects.get(ladder=ladder, number=2).closed_at is None
    assert SeasonStanding.objects.filter(season=first).count() == 2
    page = Client().get("/ladders/quick/seasons/1/")
    assert page.status_code == 200 and house_bots[0].name in page.content.decode()
