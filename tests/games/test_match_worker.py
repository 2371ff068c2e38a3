"""Who plays a match on. A web request creates the match, or stores a person's move with the house strategies'
answers that follow it (microseconds, no outbound call: issue 25); it never asks a bot (issue 8, finding 1: the bots
used to be played inside the person's request). With ``TASKS = "in_process"`` (zero-setup: no broker) the ladder loop
process finds the match among ``matches_runnable`` and plays the bots' turns."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Match, Move, Player
from personas import api_client
from games.services import match_advance, matches_runnable


@pytest.mark.django_db(transaction=True)  # on-commit hooks run, as in a real request
def test_without_a_broker_a_request_plays_only_the_houses_answers_the_loop_the_rest(settings, as_person, ladder):
    settings.TASKS = "in_process"  # zero-setup: no broker; the ladder loop plays matches
    reply = as_person.post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"}, format="json")
    assert reply.status_code == 201, reply.content
    match_id, seat = reply.json()["match_id"], reply.json()["seat"]
    assert Match.objects.get(pk=match_id).ply_count == 0, "Play now played the bots inside the request"
    assert match_id in matches_runnable()
    match_advance(match_id=match_id)  # what the ladder loop does with a runnable match

    for _ in range(6):
        assert match_id not in matches_runnable(), "a match waiting for a person's move is not runnable"
        view = as_person.get(f"/api/matches/{match_id}/seats/{seat}/").json()
        assert view["your_turn"]
        moved = as_person.post(f"/api/matches/{match_id}/seats/{seat}/actions/",
                               {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
        assert moved.status_code == 200, moved.content
        match = Match.objects.get(pk=match_id)
        after = list(Move.objects.filter(deal__match_id=match_id).order_by("deal__number", "ply")
                     .values_list("seat", "source"))[view["ply"]:]
        assert after[0] == (seat, "agent") and all(s != seat for s, _ in after[1:]), after
        assert match.ply_count == view["ply"] + len(after), "every ply stored was answered in this request"
        assert moved.json()["seat_view"]["your_turn"] and match.awaiting_human, (
            "the house answered inside the request: the person is to play again, with no worker's trip")


@pytest.mark.django_db(transaction=True)
def test_a_persons_move_never_asks_a_bot_the_match_task_does(settings, person, house_bots):
    from eights_engine import Ruleset
    from games.services import match_create, player_for_user

    settings.TASKS = "in_process"
    owner = get_user_model().objects.create_user("owner", password="pw-owner-12345")
    bot = Player.objects.create(name="Their bot", kind=Player.Kind.BOT, user=owner)  # no endpoint: never asked here
    match = match_create(players=[player_for_user(user=person), house_bots[0], bot], ruleset=Ruleset.preset("pagat"),
                         seed=7)
    client = api_client(person)
    for _ in range(40):  # until the person's move hands the turn on through the house to the bot
        view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
        if not view["your_turn"]:
            break
        moved = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                            {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
        assert moved.status_code == 200, moved.content
    view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
    assert view["view"]["to_play"] == 2 and not view["your_turn"], "the bot's turn came"
    assert Move.objects.filter(deal__match=match, seat=1).exists(), "the house answered the person in the request"
    assert not Move.objects.filter(deal__match=match, seat=2).exists(), "a web request asked a bot"
    assert match.pk in matches_runnable(), "the bot's turn is left to the match task"


@pytest.mark.django_db
def test_a_match_under_a_live_lease_is_not_runnable_an_expired_lease_is(ladder, house_bots):
    from eights_engine import Ruleset
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
    from eights_engine import Ruleset
    from games.services import match_create, player_for_user

    bots_only = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    person = player_for_user(user=get_user_model().objects.create_user("pat", password="pw-pat-12345"))
    with_person = match_create(players=[person, house_bots[2]], ruleset=Ruleset.preset("pagat"))
    Match.objects.filter(pk=bots_only.pk).update(last_progress_at=timezone.now() - timedelta(seconds=30))
    assert matches_runnable() == [with_person.pk, bots_only.pk]  # the person is watching: their bots answer first
