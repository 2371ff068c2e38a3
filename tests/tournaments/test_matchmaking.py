"""Whom a match seats together: nobody plays their own bot, no rated match seats two entries of one owner, and
Play now never waits for the ladder's lock inside the web request."""

import random
import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test import Client
from rest_framework.test import APIClient

from games.models import Match
from games.services import match_abort, player_for_user
from tournaments.models import LadderEntry
from tournaments.services import _claim_seating, ladder_create, ladder_entry_create, ladder_schedule_matches
from personas import bot_of


def _user(name):
    return get_user_model().objects.create_user(name, password=f"pw-{name}-12345")


def _api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def _owners(match):
    return [s.player.user_id for s in match.seats.select_related("player") if s.player.user_id is not None]


@pytest.mark.django_db
def test_play_now_never_pairs_a_person_with_their_own_bot(ladder):
    ada = _user("ada")
    ladder_entry_create(ladder=ladder, player=bot_of(ada, None, "Ada's bot").player)  # rated like ada: the nearest match
    LadderEntry.objects.filter(ladder=ladder, player__kind="house").update(ordinal=30.0)
    answer = _api(ada).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"}, format="json")
    assert answer.status_code == 201, answer.content
    match = Match.objects.get(pk=answer.json()["match_id"])
    assert sorted(s.player.kind for s in match.seats.all()) == ["house", "human"]


@pytest.mark.django_db
def test_play_now_says_plainly_when_the_only_bots_are_your_own(house_bots):
    lonely = ladder_create(name="Lonely", slug="lonely", seats_per_match=2)
    ada = _user("ada")
    ladder_entry_create(ladder=lonely, player=bot_of(ada, None, "Ada's bot").player)
    answer = _api(ada).post("/api/ladders/lonely/play/", {"match_with": "bots"}, format="json")
    assert answer.status_code == 409, answer.content
    assert answer.json()["error"] == "cannot_play" and "your own" in answer.json()["detail"], answer.content
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_play_now_seats_no_bot_of_anyone_in_the_match(house_bots):
    """Three seats: bob waits for people, ada comes with ``both``; the third seat is neither's bot."""
    trio = ladder_create(name="Trio", slug="trio", seats_per_match=3)
    ada, bob = _user("ada"), _user("bob")
    for owner in (ada, bob):
        ladder_entry_create(ladder=trio, player=bot_of(owner, None, f"{owner.username} bot").player)
    ladder_entry_create(ladder=trio, player=house_bots[3])
    LadderEntry.objects.filter(ladder=trio, player__kind="house").update(ordinal=40.0)
    assert _api(bob).post("/api/ladders/trio/play/", {"match_with": "people"}, format="json").status_code == 202
    answer = _api(ada).post("/api/ladders/trio/play/", {"match_with": "both"}, format="json")
    assert answer.status_code == 201, answer.content
    match = Match.objects.get(pk=answer.json()["match_id"])
    assert sorted(s.player.name for s in match.seats.all()) == ["Professor", "ada", "bob"]


@pytest.mark.django_db
@pytest.mark.parametrize("seats", [2, 3])
def test_the_scheduler_never_seats_two_entries_of_one_owner(house_bots, seats):
    lad = ladder_create(name="Crowd", slug=f"crowd{seats}", seats_per_match=seats, max_running_matches=20)
    owners = [_user(n) for n in ("ann", "ben", "cat")]
    for owner, count in zip(owners, (4, 3, 2)):
        for i in range(count):
            ladder_entry_create(ladder=lad, player=bot_of(owner, None, f"{owner.username} {i}").player)
    for house in house_bots[:2]:
        ladder_entry_create(ladder=lad, player=house)
    person = player_for_user(user=owners[0])  # a person on the ladder too, with bots of their own
    ladder_entry_create(ladder=lad, player=person)
    rng = random.Random(8)
    scheduled = 0
    for tick in range(30):
        for entry in LadderEntry.objects.filter(ladder=lad):  # ratings that put one owner's bots side by side
            LadderEntry.objects.filter(pk=entry.pk).update(ordinal=(entry.player.user_id or 0) * 0.01
                                                           + rng.random() * (tick % 3))
        matches = ladder_schedule_matches(ladder=lad)
        scheduled += len(matches)
        for match in matches:
            owners_seated = _owners(match)
            assert len(owners_seated) == len(set(owners_seated)), [s.player.name for s in match.seats.all()]
            match_abort(match_id=match.pk, reason="test tick over")
    assert scheduled >= 30  # the rule keeps matches coming: owners are plenty apart


def _hold(work):
    """Run ``work()`` in a transaction on another connection and keep it open until the returned ``release``."""
    locked, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                work()
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(10)

    def done():
        release.set()
        holder.join(15)

    return done


def _timed(call):
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


@pytest.fixture
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("row and advisory locks are PostgreSQL's: SQLite has none (its writes queue on one lock)")


@pytest.mark.django_db(transaction=True)
def test_play_now_starts_at_once_while_the_scheduler_holds_the_ladder(ladder, postgresql_only):
    ada = _user("ada")
    release = _hold(lambda: ladder_schedule_matches(ladder=ladder))  # the ladder loop, mid-tick
    try:
        answer, took = _timed(lambda: _api(ada).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"},
                                                     format="json"))
    finally:
        release()
    assert took < 1.0, f"Play now waited {took:.1f} s for the scheduler"
    assert answer.status_code == 201, answer.content


@pytest.mark.django_db(transaction=True)
def test_a_second_play_now_of_one_person_answers_busy_at_once(ladder, postgresql_only):
    ada = _user("ada")
    person = player_for_user(user=ada)
    release = _hold(lambda: _claim_seating([person.pk]))  # their first press, mid-way
    try:
        answer, took = _timed(lambda: _api(ada).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"},
                                                     format="json"))
        page = Client()
        page.force_login(ada)
        pressed, took_page = _timed(lambda: page.post(f"/ladders/{ladder.slug}/play/", {"match_with": "bots"},
                                                      follow=True))
    finally:
        release()
    assert took < 1.0 and took_page < 1.0, f"Play now waited {max(took, took_page):.1f} s"
    assert answer.status_code == 409 and answer.json()["error"] == "busy", answer.content
    assert "try again" in answer.json()["detail"] and answer["Retry-After"] == "1"
    assert "press Play now again in a second" in pressed.content.decode()
    assert not Match.objects.exists()
    again = _api(ada).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"}, format="json")
    assert again.status_code == 201, again.content


@pytest.mark.django_db(transaction=True)
def test_play_now_passes_over_a_bot_another_transaction_is_seating(ladder, postgresql_only):
    ada, bob = _user("ada"), _user("bob")
    bot = bot_of(bob, None, "Bob's bot")
    ladder_entry_create(ladder=ladder, player=bot.player)  # rated like ada: the nearest match
    LadderEntry.objects.filter(ladder=ladder, player__kind="house").update(ordinal=30.0)
    release = _hold(lambda: _claim_seating([bot.player_id]))
    try:
        answer, took = _timed(lambda: _api(ada).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"},
                                                     format="json"))
    finally:
        release()
    assert took < 1.0 and answer.status_code == 201, (took, answer.content)
    match = Match.objects.get(pk=answer.json()["match_id"])
    assert sorted(s.player.kind for s in match.seats.all()) == ["house", "human"]
    later = _api(_user("cy")).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "bots"}, format="json")
    assert "Bob's bot" in [s.player.name for s in Match.objects.get(pk=later.json()["match_id"]).seats.all()]


@pytest.mark.django_db(transaction=True)
def test_the_scheduler_passes_over_a_bot_a_play_now_is_seating(ladder, postgresql_only):
    bot = bot_of(_user("bob"), None, "Bob's bot")
    ladder_entry_create(ladder=ladder, player=bot.player)
    release = _hold(lambda: _claim_seating([bot.player_id]))
    try:
        matches, took = _timed(lambda: ladder_schedule_matches(ladder=ladder))
    finally:
        release()
    assert took < 1.0 and len(matches) == 2, (took, matches)  # the four house bots
    assert bot.player_id not in {s.player_id for m in matches for s in m.seats.all()}
    Match.objects.filter(pk__in=[m.pk for m in matches]).update(status=Match.Status.ABORTED)
    later = ladder_schedule_matches(ladder=ladder)  # the next tick seats it
    assert bot.player_id in {s.player_id for m in later for s in m.seats.all()}


@pytest.mark.django_db(transaction=True)
def test_a_bot_being_seated_keeps_its_owner_edits_waiting_for_nothing(ladder, postgresql_only):
    bob = _user("bob")
    bot = bot_of(bob, None, "Bob's bot")
    release = _hold(lambda: _claim_seating([bot.player_id]))  # the scheduler, mid-tick
    try:
        answer, took = _timed(lambda: _api(bob).patch(f"/api/bots/{bot.pk}/", {"is_enabled": False}, format="json"))
    finally:
        release()
    assert took < 1.0 and answer.status_code == 200, (took, answer.content)


@pytest.mark.django_db(transaction=True)
def test_play_now_passes_over_a_waiting_person_another_request_is_seating(ladder, postgresql_only):
    ada, bob = _user("ada"), _user("bob")
    assert _api(bob).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "people"},
                          format="json").status_code == 202
    release = _hold(lambda: _claim_seating([player_for_user(user=bob).pk]))  # bob's own poll, mid-way
    try:
        answer, took = _timed(lambda: _api(ada).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "both"},
                                                     format="json"))
    finally:
        release()
    assert took < 1.0 and answer.status_code == 201, (took, answer.content)
    assert "bob" not in [s.player.name for s in Match.objects.get(pk=answer.json()["match_id"]).seats.all()]
    cy = _api(_user("cy")).post(f"/api/ladders/{ladder.slug}/play/", {"match_with": "both"}, format="json")
    assert "bob" in [s.player.name for s in Match.objects.get(pk=cy.json()["match_id"]).seats.all()]
