"""People at the table over the REST API: views, moves, every error answer, double submits, the move clock."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Match, Move
from games.services import match_advance, matches_clock_expired
from tournaments.models import RatingChange


def _play_now(client, ladder):
    response = client.post(f"/api/ladders/{ladder.slug}/play/")
    assert response.status_code == 201, response.content
    body = response.json()
    match_advance(match_id=body["match_id"])  # the task the on-commit hook queues: bots move until it is our turn
    return body["match_id"], body["seat"]


def _view(client, match_id, seat):
    response = client.get(f"/api/matches/{match_id}/seats/{seat}/")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.django_db
def test_a_person_plays_a_whole_rated_match_through_the_api(as_person, ladder, person):
    match_id, seat = _play_now(as_person, ladder)
    assert as_person.post(f"/api/ladders/{ladder.slug}/play/").json()["match_id"] == match_id  # no second match
    for _ in range(3000):
        view = _view(as_person, match_id, seat)
        if view["status"] != "running":
            break
        assert view["your_turn"] and view["legal_actions"] and view["move_deadline"]
        assert view["view"]["hand"] and view["view"]["seat"] == seat
        action = view["legal_actions"][0]
        response = as_person.post(f"/api/matches/{match_id}/seats/{seat}/actions/", {"ply": view["ply"],
                                                                                     "action": action}, format="json")
        assert response.status_code == 200, response.content
        match_advance(match_id=match_id)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    assert RatingChange.objects.filter(match=match, entry__player__user=person).count() == 1
    assert not Move.objects.filter(deal__match=match).exclude(source="agent").exists()


@pytest.mark.django_db
def test_every_error_says_what_is_wrong(as_person, as_stranger, ladder):
    match_id, seat = _play_now(as_person, ladder)
    view = _view(as_person, match_id, seat)
    url = f"/api/matches/{match_id}/seats/{seat}/actions/"
    hand = set(view["view"]["hand"])
    missing = next(c for c in ("AS", "2S", "3H", "4D", "KC", "QD") if c not in hand)
    cases = [
        (as_person, url, {"ply": view["ply"], "action": {"type": "play", "card": missing}}, 400, "illegal_action",
         "does not hold"),
        (as_person, url, {"ply": view["ply"], "action": {"type": "fly"}}, 400, "illegal_action", "unknown action"),
        (as_person, url, {"ply": view["ply"]}, 400, "invalid", "action"),
        (as_person, url, {"ply": view["ply"] + 5, "action": view["legal_actions"][0]}, 409, "stale_ply",
         "not the current position"),
        (as_stranger, url, {"ply": view["ply"], "action": view["legal_actions"][0]}, 403, "permission_denied",
         "not yours"),
        (as_person, f"/api/matches/{match_id}/seats/{1 - seat}/actions/", {"ply": view["ply"], "action":
         view["legal_actions"][0]}, 403, "permission_denied", "not yours"),
        (as_person, "/api/matches/999999/seats/0/actions/", {"ply": 0, "action": {"type": "draw"}}, 404, "not_found",
         "no match"),
    ]
    for client, target, payload, code, error, words in cases:
        response = client.post(target, payload, format="json")
        assert response.status_code == code, (payload, response.content)
        body = response.json()
        assert body["error"] == error and words in str(body["detail"]), body
    assert as_stranger.get(f"/api/matches/{match_id}/seats/{seat}/").status_code == 403
    assert APIClient().get(f"/api/matches/{match_id}/seats/{seat}/").status_code in (401, 403)
    assert Match.objects.get(pk=match_id).ply_count == view["ply"]  # nothing was stored


@pytest.mark.django_db(transaction=True)
def test_the_same_move_sent_twice_at_once_is_stored_once(person, ladder):
    from django.db import connection

    client = APIClient()
    client.force_authenticate(person)
    match_id, seat = _play_now(client, ladder)
    view = _view(client, match_id, seat)
    before = Move.objects.filter(deal__match_id=match_id).count()
    answers = []

    def send():
        c = APIClient()
        c.force_authenticate(person)
        answers.append(c.post(f"/api/matches/{match_id}/seats/{seat}/actions/",
                              {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json"))
        connection.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(a.status_code for a in answers) == [200, 409]
    stored = next(a.json() for a in answers if a.status_code == 200)
    mine = list(Move.objects.filter(deal__match_id=match_id).order_by("deal__number", "ply")
                .values_list("seat", flat=True))[before:]
    assert mine[0] == seat and seat not in mine[1:], mine  # once, then only the house's answers
    assert Move.objects.filter(deal__match_id=match_id).count() == stored["ply"]


@pytest.mark.django_db
def test_an_expired_move_clock_plays_the_fallback_and_three_forfeit(as_person, ladder, settings):
    ladder.move_seconds = 5  # the ladder's own move clock
    ladder.save()
    match_id, seat = _play_now(as_person, ladder)
    assert Match.objects.get(pk=match_id).move_clock_seconds == 5
    for round_ in range(3):
        Match.objects.filter(pk=match_id).update(last_progress_at=timezone.now() - timezone.timedelta(seconds=6))
        assert match_id in matches_clock_expired()
        match_advance(match_id=match_id)
    match = Match.objects.get(pk=match_id)
    faults = list(Move.objects.filter(deal__match=match, seat=seat).values_list("fault_kind", flat=True))
    assert faults == ["clock"] * 3
    assert match.status == Match.Status.FINISHED and match.seats.get(index=seat).forfeited
    assert match.seats.get(index=seat).place == 2


@pytest.mark.django_db
def test_a_casual_match_against_chosen_house_bots_is_unrated(as_person, house_bots):
    response = as_person.post("/api/matches/casual/", {"opponents": ["Professor", "Greedy"]}, format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["match_id"])
    assert [s.player.name for s in match.seats.order_by("index")][1:] == ["Professor", "Greedy"]
    assert not hasattr(match, "ladder_match")
    bad = as_person.post("/api/matches/casual/", {"opponents": ["Nobody"]}, format="json")
    assert bad.status_code == 400 and "not a house bot" in str(bad.json()["detail"])
    assert as_person.post("/api/matches/casual/", {"opponents": ["Professor"], "preset": "no-draw"},
                          format="json").status_code == 400


@pytest.mark.django_db
def test_people_who_want_people_wait_and_are_matched_with_each_other(ladder):
    users = [get_user_model().objects.create_user(n, password="pw-12345-abc") for n in ("ann", "bob", "cy")]
    clients = []
    for user in users:
        c = APIClient()
        c.force_authenticate(user)
        clients.append(c)
    first = clients[0].post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "people"}, format="json")
    assert first.status_code == 202 and first.json()["queued"]
    assert clients[0].post(f"/api/ladders/{ladder.slug}/play/", {}, format="json").status_code == 202  # still waiting
    second = clients[1].post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "both"}, format="json")
    assert second.status_code == 201
    match = Match.objects.get(pk=second.json()["match_id"])
    assert {s.player.name for s in match.seats.all()} == {"ann", "bob"}
    again = clients[0].post(f"/api/ladders/{ladder.slug}/play/", {}, format="json")
    assert again.status_code == 201 and again.json()["match_id"] == match.pk and again.json()["seat"] == 1
    bots_only = clients[2].post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"}, format="json")
    assert bots_only.status_code == 201
    seats = Match.objects.get(pk=bots_only.json()["match_id"]).seats.all()
    assert sorted(s.player.kind for s in seats) == ["house", "human"]
    bad = clients[2].post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "aliens"}, format="json")
    assert bad.status_code == 400
