"""``Match.after``: a match that waits for another to end (a duplicate set's later rotation) is not played, takes no
move, shows no hand and is left alone by the watchdog while its predecessor runs; the predecessor's end (finish or
abort) wakes it and starts its stall clock."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from eights_engine import Ruleset
from eights_engine.deal import Deal as EngineDeal
from games.models import Deal, Match, Move
from games.services import (match_abort, match_advance, match_create, matches_runnable, matches_stalled,
                            player_for_user)
from games.tasks import watchdog


@pytest.fixture
def mirror(house_bots):
    """Ruth against Greedy, then the mirror (Greedy against Ruth) from the same seed, waiting for the first."""
    ruth = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    me = player_for_user(user=ruth)
    bot = house_bots[2]
    ruleset = Ruleset.preset("pagat", target=30)
    first = match_create(players=[me, bot], ruleset=ruleset, preset="pagat", seed=1234, reveal_group="g")
    second = match_create(players=[bot, me], ruleset=ruleset, preset="pagat", seed=1234, reveal_group="g",
                          after=first)
    api = APIClient()
    api.force_authenticate(ruth)
    return ruth, me, bot, first, second, api


def _hidden_hand(match: Match, seat: int) -> list[str]:
    deal = Deal.objects.get(match=match, number=1)
    engine = EngineDeal.start(Ruleset.from_dict(match.ruleset), match.seat_count, bytes.fromhex(deal.key),
                              dealer=deal.dealer)
    return sorted(str(c) for c in engine.view(seat)["hand"])


@pytest.mark.django_db
def test_a_person_cannot_read_the_opponents_hand_from_another_running_match_of_theirs(mirror):
    """The breaker's finding: with both rotations running at once, Ruth's own hand in the mirror is the bot's hidden
    hand in the first match. The mirror now waits: its seat view shows no hand and takes no move."""
    _ruth, me, bot, first, second, api = mirror
    seen = []
    for m in (first, second):
        seat = next(s.index for s in m.seats.all() if s.player_id == me.pk)
        resp = api.get(f"/api/matches/{m.pk}/seats/{seat}/")
        assert resp.status_code == 200
        seen.append(sorted(resp.json()["view"]["hand"]))
    assert seen[0], "Ruth sees her own hand in the match she plays"
    # the match being played: its opponent's hand is Ruth's hand in the mirror, which shows none while it waits
    hidden = _hidden_hand(first, next(s.index for s in first.seats.all() if s.player_id == bot.pk))
    assert hidden not in seen, f"match {first.pk}: the opponent's hand {hidden} is readable from Ruth's seats"

    view = api.get(f"/api/matches/{second.pk}/seats/1/").json()
    assert view["waits_for"] == first.pk and view["your_turn"] is False and view["legal_actions"] == []
    assert api.get(f"/api/matches/{first.pk}/seats/0/").json()["waits_for"] is None


@pytest.mark.django_db
def test_a_waiting_match_is_not_played_and_refuses_a_move_until_its_predecessor_ends(mirror):
    _ruth, me, _bot, first, second, api = mirror
    assert match_advance(match_id=second.pk) == "waiting"  # no ply, no bot asked
    assert not Move.objects.filter(deal__match=second).exists()
    assert second.pk not in matches_runnable() and first.pk in matches_runnable()
    resp = api.post(f"/api/matches/{second.pk}/seats/1/actions/", {"ply": 0, "action": {"type": "draw"}},
                    format="json")
    assert resp.status_code == 409
    assert f"waits for match {first.pk} to end" in resp.json()["detail"]
    assert not Move.objects.filter(deal__match=second).exists()

    assert match_abort(match_id=first.pk, reason="test")  # an end of any kind ends the wait
    assert second.pk in matches_runnable()
    view = api.get(f"/api/matches/{second.pk}/seats/1/").json()
    assert view["waits_for"] is None and view["view"]["hand"]
    match_advance(match_id=second.pk)  # the bot (seat 0) plays; then it is Ruth's turn
    assert Move.objects.filter(deal__match=second).exists()


@pytest.mark.django_db
def test_the_watchdog_leaves_a_waiting_match_alone_and_its_predecessors_end_wakes_it(
        house_bots, settings, django_capture_on_commit_callbacks):
    settings.TASKS = "eager"  # a queued task is played in place
    ruleset = Ruleset.preset("pagat", target=30)
    first = match_create(players=house_bots[2:], ruleset=ruleset, seed=7)
    second = match_create(players=house_bots[:1:-1], ruleset=ruleset, seed=7, after=first)
    long_ago = timezone.now() - timedelta(seconds=settings.MATCH_STALL_SECONDS * 10)
    Match.objects.filter(pk=second.pk).update(last_progress_at=long_ago)
    # the predecessor is leased by a live worker: it is not stalled, and its follower waits
    Match.objects.filter(pk=first.pk).update(lease_owner="w", lease_until=timezone.now() + timedelta(minutes=5))
    assert matches_stalled() == []
    for _ in range(3):
        assert watchdog() == []
    second.refresh_from_db()
    assert second.status == Match.Status.RUNNING and second.resume_count == 0
    assert not Move.objects.filter(deal__match=second).exists()

    before = timezone.now()
    Match.objects.filter(pk=first.pk).update(lease_owner="", lease_until=None)
    with django_capture_on_commit_callbacks(execute=True):
        assert match_advance(match_id=first.pk) == "finished"  # queues the follower once the end commits
    second.refresh_from_db()
    assert second.status == Match.Status.FINISHED and second.resume_count == 0
    first.refresh_from_db()
    assert first.finished_at >= before
    # one after the other: every ply of the follower was stored after every ply of its predecessor
    last_of_first = Move.objects.filter(deal__match=first).order_by("-id").first().id
    assert Move.objects.filter(deal__match=second).order_by("id").first().id > last_of_first
    assert Deal.objects.get(match=second, number=1).finished_at >= first.finished_at


@pytest.mark.django_db
def test_a_follower_starts_its_stall_clock_when_its_predecessor_ends(house_bots):
    ruleset = Ruleset.preset("pagat", target=30)
    first = match_create(players=house_bots[2:], ruleset=ruleset, seed=7)
    second = match_create(players=house_bots[:1:-1], ruleset=ruleset, seed=7, after=first)
    Match.objects.filter(pk=second.pk).update(last_progress_at=timezone.now() - timedelta(hours=1))
    match_abort(match_id=first.pk, reason="test")
    second.refresh_from_db()
    assert timezone.now() - second.last_progress_at < timedelta(seconds=30)
    assert second.pk not in matches_stalled()
