"""Who plays a match on. With ``TASKS = "in_process"`` (zero-setup: no broker) a web request only stores a
person's move or creates the match; the ladder loop process finds it among ``matches_runnable`` and plays the
bots' turns (issue 8, finding 1: the bots used to be played inside the person's request)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Match
from games.services import match_advance, matches_runnable


@pytest.mark.django_db(transaction=True)  # on-commit hooks run, as in a real request
def test_without_a_broker_no_request_plays_the_bots_the_loop_does(settings, as_person, ladder):
    settings.TASKS = "in_process"  # zero-setup: no broker; the ladder loop plays matches
    reply = as_person.post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"}, format="json")
    assert reply.status_code == 201, reply.content
    match_id, seat = reply.json()["match_id"], reply.json()["seat"]
    assert Match.objects.get(pk=match_id).ply_count == 0, "Play now played the bots inside the request"
    assert match_id in matches_runnable()

    for _ in range(3):  # the loop's turn, then the person's move, three times
        match_advance(match_id=match_id)  # what the ladder loop does with a runnable match
        assert match_id not in matches_runnable(), "a match waiting for a person's move is not runnable"
        view = as_person.get(f"/api/matches/{match_id}/seats/{seat}/").json()
        assert view["your_turn"]
        moved = as_person.post(f"/api/matches/{match_id}/seats/{seat}/actions/",
                               {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
        assert moved.status_code == 200, moved.content
        match = Match.objects.get(pk=match_id)
        assert match.ply_count == view["ply"] + 1, "the bots answered inside the person's request"
        assert match_id in matches_runnable(), "a person's move makes the match runnable again"


@pytest.mark.django_db
def test_a_match_under_a_live_lease_is_not_runnable_an_expired_lease_is(ladder, house_bots):
    from games.engine import Ruleset
    from games.services import match_create

    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    assert matches_runnable() == [match.pk]
    Match.objects.filter(pk=match.pk).update(lease_owner="another worker",
                                             lease_until=timezone.now() + timedelta(seconds=60))
    assert matches_runnable() == []
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))  # that worker died
    assert matches_runnable() == [match.pk]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert matches_runnable() == []


@pytest.mark.django_db
def test_matches_with_a_person_seated_come_first(ladder, house_bots):
    from games.engine import Ruleset
    from games.services import match_create, player_for_user

    bots_only = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    person = player_for_user(user=get_user_model().objects.create_user("pat", password="pw-pat-12345"))
    with_person = match_create(players=[person, house_bots[2]], ruleset=Ruleset.preset("pagat"))
    Match.objects.filter(pk=bots_only.pk).update(last_progress_at=timezone.now() - timedelta(seconds=30))
    assert matches_runnable() == [with_person.pk, bots_only.pk]  # the person is watching: their bots answer first
