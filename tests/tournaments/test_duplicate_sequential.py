"""A duplicate set's (ladder) or pod's (tournament) rotations are dealt the same cards: they are played one after
another (``Match.after``), never at once, checked from the stored plies of both rotations through the ladder loop and
through a real Celery worker; the set and the pod are still rated or scored once from the combined result; people
cannot enter a duplicate tournament."""

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from config.celery import app
from games.models import Deal, Match, Move
from games.services import player_for_user, player_house_create
from tournaments.models import DuplicateSet, LadderEntry, RatingChange, Tournament, TournamentMatch
from tournaments.services import ladder_create, ladder_entry_create
from tournaments.tournament_selectors import tournament_standings
from tournaments.tournament_rounds import pod_results
from tournaments.tournament_services import (TournamentError, tournament_create, tournament_register,
                                             tournament_start)


def _one_after_another(matches: list[Match]) -> None:
    """Each rotation's plies were all stored after every ply of the one before (move ids come from one sequence,
    taken at insert), and its first deal ended after the one before had ended."""
    for before, after in zip(matches, matches[1:]):
        before.refresh_from_db()
        assert after.after_id == before.pk
        last = Move.objects.filter(deal__match=before).order_by("-id").values_list("id", flat=True).first()
        first = Move.objects.filter(deal__match=after).order_by("id").values_list("id", flat=True).first()
        assert last is not None and first is not None
        assert first > last, f"match {after.pk} stored a ply while match {before.pk} was still being played"
        assert Deal.objects.get(match=after, number=1).finished_at >= before.finished_at


@pytest.mark.django_db
def test_the_ladder_loop_plays_a_duplicate_sets_rotations_one_after_another_and_rates_the_set_once(house_bots,
                                                                                                  settings):
    settings.TASKS = "eager"
    ladder = ladder_create(name="Duplicate", slug="dup", preset="pagat", seats_per_match=2, duplicate=True,
                           max_running_matches=8, target=30)
    for p in house_bots:
        ladder_entry_create(ladder=ladder, player=p)
    call_command("ladder_run", "--ladder", "dup", "--matches", "4")
    rated = 0
    for dup in DuplicateSet.objects.filter(ladder=ladder):
        matches = [sm.match for sm in dup.set_matches.order_by("rotation")]
        if all(m.status == Match.Status.FINISHED for m in matches):
            _one_after_another(matches)
            assert dup.rated_at is not None
            assert set(RatingChange.objects.filter(match__in=matches).values_list("match_id", flat=True)) == \
                {matches[0].pk}  # once, against the first match
            rated += 1
    assert rated >= 1
    assert sum(LadderEntry.objects.values_list("matches_played", flat=True)) == 2 * rated


@pytest.mark.django_db
def test_a_person_cannot_enter_a_duplicate_tournament(house_bots):
    ruth = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    t = tournament_create(name="Mirror", format="round_robin", duplicate=True, target=30)
    with pytest.raises(TournamentError) as refused:
        tournament_register(tournament=t, player=player_for_user(user=ruth))
    assert refused.value.code == "not_admitted" and "bots only" in refused.value.detail
    api = APIClient()
    api.force_authenticate(ruth)
    resp = api.post(f"/api/tournaments/{t.pk}/entries/", {}, format="json")
    assert resp.status_code == 409 and "a person would remember" in resp.json()["detail"]
    assert not t.entries.exists()
    resp = api.post("/api/tournaments/", {"name": "People mirror", "format": "round_robin", "duplicate": True,
                                          "entrants": "people"}, format="json")
    assert resp.status_code == 400 and "bots only" in resp.json()["detail"]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_a_duplicate_pods_rotations_one_after_another_and_scores_the_pod_once():
    assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
    houses = [player_house_create(name=f"D{i}", strategy=s) for i, s in enumerate(["greedy", "heuristic", "eager"])]
    t = tournament_create(name="Mirror cup", format="round_robin", duplicate=True, target=30)
    for p in houses:
        tournament_register(tournament=t, player=p)
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        tournament_start(tournament=t)  # the first rotation of every pod is queued; the second waits for it
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            t.refresh_from_db()
            if t.status == Tournament.Status.FINISHED:
                break
            time.sleep(0.2)
    assert t.status == Tournament.Status.FINISHED
    pods = {}
    for tm in TournamentMatch.objects.filter(round__tournament=t).select_related("match").order_by("game"):
        pods.setdefault((tm.round_id, tm.pod), []).append(tm.match)
    assert len(pods) == 3 and all(len(ms) == 2 for ms in pods.values())
    for matches in pods.values():
        assert all(m.status == Match.Status.FINISHED for m in matches)
        _one_after_another(matches)
    assert len(pod_results(t)) == 3  # one combined result per pod
    # each entrant met each other once: two pods each, however many rotations a pod had
    assert [r.played for r in tournament_standings(tournament=t)] == [2, 2, 2]
