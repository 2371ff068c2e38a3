"""The seat view from a cached state (issue 13): each process keeps a match's engine state and brings it up to date
with the plies stored since (games.state_cache, selectors.match_state_snapshot). After every ply the cached answer
equals a fresh replay's, for every seat; a state that does not stand where the log does is never shown."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient
from run_cache import clear_this_runs_cache

from games import state_cache
from eights_engine import Ruleset, replay
from games.models import Match
from games.selectors import match_record, match_state_snapshot
from games.services import match_advance, match_create, player_for_user


def _fresh(match):
    """The engine state a replay of the whole stored log gives (no cache)."""
    return replay(match_record(match=match))


def _same(state, fresh, seats):
    assert state.deal_number == fresh.deal_number and state.totals == fresh.totals
    assert state.is_over == fresh.is_over and state.to_play == fresh.to_play
    assert state.legal_actions() == fresh.legal_actions()
    assert [state.view(s) for s in range(seats)] == [fresh.view(s) for s in range(seats)]
    assert state.record() == fresh.record()


@pytest.mark.django_db
def test_after_every_ply_the_cached_view_equals_a_fresh_replay_for_every_seat(house_bots):
    person = get_user_model().objects.create_user("lin", password="pw-lin-12345")
    client = APIClient()
    client.force_authenticate(person)
    match = match_create(players=[player_for_user(user=person), house_bots[3], house_bots[1]],
                         ruleset=Ruleset.preset("eights-classic", target=150), preset="eights-classic", seed=1)
    state_cache.clear()
    plies, deals_seen = 0, set()
    while True:
        outcome = match_advance(match_id=match.pk, ply_budget=1)  # the worker keeps its state in this cache too
        row = Match.objects.get(pk=match.pk)
        clear_this_runs_cache()  # the table's poll budget is per minute: this test reads far faster
        cached_view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
        state_cache.clear()
        assert client.get(f"/api/matches/{match.pk}/seats/0/").json() == cached_view  # replayed from the log
        snapshot = match_state_snapshot(match=row)  # from the state the fresh GET kept
        assert snapshot.match.ply_count == row.ply_count == cached_view["ply"]
        _same(snapshot.state, _fresh(row), 3)
        snapshot.keep()
        deals_seen.add(snapshot.state.deal_number)
        plies += 1
        if outcome in ("finished", "not_running"):  # not_running: the person's move (below) ended the match
            break
        if outcome == "waiting":  # the person's move, through the API (cached state: applied, stored, kept)
            assert cached_view["your_turn"]
            moved = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                                {"ply": cached_view["ply"], "action": cached_view["legal_actions"][-1]}, format="json")
            assert moved.status_code == 200, moved.content
            row = Match.objects.get(pk=match.pk)
            snapshot = match_state_snapshot(match=row)
            _same(snapshot.state, _fresh(row), 3)
            snapshot.keep()
    final = Match.objects.get(pk=match.pk)
    assert final.status == Match.Status.FINISHED  # checked after every step (a move also stores the house's answers)
    assert len(deals_seen) > 1 and plies > 10 and final.ply_count > 30, (deals_seen, plies, final.ply_count)


@pytest.mark.django_db
def test_a_state_brought_forward_over_many_plies_and_deal_ends_equals_a_replay(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=77)
    assert match_advance(match_id=match.pk, ply_budget=3) == "budget"
    state_cache.clear()
    match_state_snapshot(match=match).keep()  # cached at ply 3
    state_cache.put(("elsewhere",), match_state_snapshot(match=match).state)  # the worker below starts cold
    assert match_advance(match_id=match.pk) == "finished"
    state_cache.put(state_cache.key_of(match), state_cache.take(("elsewhere",)))  # stale by the whole match
    row = Match.objects.get(pk=match.pk)
    snapshot = match_state_snapshot(match=row)
    _same(snapshot.state, _fresh(row), 2)
    assert snapshot.state.is_over and row.deal_number > 1


@pytest.mark.django_db
def test_a_cached_state_ahead_of_the_log_is_never_shown(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=78)
    assert match_advance(match_id=match.pk, ply_budget=5) == "budget"
    state_cache.clear()
    ahead = match_state_snapshot(match=match).state
    ahead.apply(ahead.legal_actions()[0])  # a ply that was never stored
    state_cache.put(state_cache.key_of(match), ahead)
    row = Match.objects.get(pk=match.pk)
    snapshot = match_state_snapshot(match=row)
    assert snapshot.state is not ahead and snapshot.match.ply_count == 5
    _same(snapshot.state, _fresh(row), 2)


@pytest.mark.django_db
def test_another_match_with_the_same_id_never_meets_the_cached_state(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=79)
    assert match_advance(match_id=match.pk, ply_budget=5) == "budget"
    match_state_snapshot(match=match).keep()
    other = Match.objects.get(pk=match.pk)
    other.seed = 80  # what a restored database could give the same id: another match
    assert state_cache.take(state_cache.key_of(other)) is None
