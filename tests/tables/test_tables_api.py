"""Tables over the API (issue 23, part 1): a person opens a table, others take its seats by its code, the match
starts when the last seat is taken (or the creator starts it with house bots), and every refusal answers the one
error shape with its status."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from games.models import Match, Player
from personas import api_client, bot_of, user
from tables.models import Table

pytestmark = pytest.mark.django_db


def _create(client, *seats, preset="web-table", **extra):
    return client.post("/api/tables/", {"preset": preset, "seats": list(seats), **extra}, format="json")


def _open_table(client, *seats, **extra) -> dict:
    response = _create(client, *seats, **extra)
    assert response.status_code == 201, response.content
    return response.json()


def test_a_person_opens_a_table_a_stranger_takes_the_open_seat_and_the_match_starts(as_person, as_stranger,
                                                                                     house_bots):
    table = _open_table(as_person, {"kind": "house", "strategy": "eager"}, {"kind": "open"})
    assert table["status"] == "waiting" and table["your_seat"] == 0 and table["free_seats"] == 1
    assert [s["kind"] for s in table["seats"]] == ["creator", "house", "open"]
    assert table["invite_url"] == f"/tables/{table['code']}/" and len(table["code"]) == 12
    seen = as_stranger.get(f"/api/tables/{table['code'].lower()}/").json()  # codes read in any case
    assert seen["can_join"] and not seen["can_start"] and seen["your_seat"] is None
    assert [t["code"] for t in api_client().get("/api/tables/?open=1").json()] == [table["code"]]

    joined = as_stranger.post(f"/api/tables/{table['code']}/join/")
    assert joined.status_code == 200, joined.content
    started = joined.json()
    assert started["status"] == "started" and started["your_seat"] == 2 and started["match_id"]
    match = Match.objects.get(pk=started["match_id"])
    seats = list(match.seats.select_related("player").order_by("index"))
    assert [s.player.name for s in seats] == ["lin", seats[1].player.name, "bob"]
    assert seats[1].player.kind == Player.Kind.HOUSE and seats[1].player.strategy == "eager"
    assert match.preset == "web-table" and not hasattr(match, "ladder_match")
    assert api_client().get("/api/tables/").json() == []  # the lobby lists waiting tables only
    assert as_stranger.get(f"/api/matches/{match.pk}/seats/2/").status_code == 200  # the seat is theirs
    assert as_stranger.get(f"/api/matches/{match.pk}/seats/0/").status_code == 403  # and only theirs


def test_the_creator_starts_with_house_bots_in_the_free_seats(as_person, house_bots):
    table = _open_table(as_person, {"kind": "open"}, {"kind": "open"})
    started = as_person.post(f"/api/tables/{table['code']}/start/").json()
    assert started["status"] == "started"
    kinds = list(Match.objects.get(pk=started["match_id"]).seats.order_by("index").values_list("player__kind",
                                                                                              flat=True))
    assert kinds == ["human", "house", "house"]


def test_a_seat_kept_for_an_invited_person_is_theirs_alone(as_person, as_stranger, house_bots):
    ada = user("ada")
    Player.objects.create(name="ada", kind=Player.Kind.HUMAN, user=ada)
    table = _open_table(as_person, {"kind": "invited", "name": "ada"})
    assert table["seats"][1]["invited"] == "ada"
    refused = as_stranger.post(f"/api/tables/{table['code']}/join/")
    assert refused.status_code == 409 and refused.json()["error"] == "full"
    taken = api_client(ada).post(f"/api/tables/{table['code']}/join/").json()
    assert taken["status"] == "started" and taken["your_seat"] == 1


def test_one_of_my_bots_takes_a_seat_and_another_owners_bot_is_refused(as_person, person, owner, servers,
                                                                       house_bots):
    mine = bot_of(person, servers(), "LinBot", active=True)
    theirs = bot_of(owner, servers(), "AdaBot", active=True)
    refused = _create(as_person, {"kind": "bot", "bot": theirs.pk})
    assert refused.status_code == 400 and "not one of your bots" in refused.json()["detail"]
    with_people = _create(as_person, {"kind": "bot", "bot": mine.pk}, {"kind": "open"})
    assert with_people.status_code == 400 and "could tell you their cards" in with_people.json()["detail"]
    table = _open_table(as_person, {"kind": "bot", "bot": mine.pk}, {"kind": "house"})
    assert table["status"] == "started"  # no seat left to fill: it starts at once
    assert Match.objects.get(pk=table["match_id"]).seats.get(index=1).player == mine.player


def test_another_owners_bot_that_accepts_challenges_takes_a_seat_beside_people(as_person, as_stranger, owner,
                                                                               stranger, servers, house_bots):
    """Issue 23, 1: a seat for another owner's bot that accepts challenges (off by default). It may sit with other
    people (its owner is not at the table); its owner may not join that table (they would see its cards), and two
    bots of one owner are not seated together."""
    from bots_api.models import Bot

    shy = bot_of(owner, servers(), "ShyBot", active=True)
    refused = _create(as_person, {"kind": "challenge", "name": "ShyBot"}, {"kind": "open"})
    assert refused.status_code == 400 and "is not a bot that accepts challenges" in refused.json()["detail"]
    Bot.objects.filter(pk=shy.pk).update(accepts_challenges=True)
    table = _open_table(as_person, {"kind": "challenge", "name": "ShyBot"}, {"kind": "open"})
    assert [s["kind"] for s in table["seats"]] == ["creator", "challenge", "open"]
    assert table["seats"][1]["player"] == "ShyBot" and table["status"] == "waiting"
    owners_try = api_client(owner).post(f"/api/tables/{table['code']}/join/")
    assert owners_try.status_code == 409 and owners_try.json()["error"] == "already_seated"
    assert "your bot sits at this table" in owners_try.json()["detail"]
    started = as_stranger.post(f"/api/tables/{table['code']}/join/").json()
    assert started["status"] == "started"
    match = Match.objects.get(pk=started["match_id"])
    assert match.seats.get(index=1).player == shy.player and match.seats.get(index=2).player.user == stranger
    other = bot_of(owner, servers(), "ShyTwin", active=True)
    Bot.objects.filter(pk=other.pk).update(accepts_challenges=True)
    twins = _create(as_person, {"kind": "challenge", "name": "ShyBot"}, {"kind": "challenge", "name": "ShyTwin"})
    assert twins.status_code == 400 and "has a player at this table already" in twins.json()["detail"]
    Player.objects.get_or_create(name="ada", kind=Player.Kind.HUMAN, user=owner)
    invited_owner = _create(as_person, {"kind": "challenge", "name": "ShyBot"}, {"kind": "invited", "name": "ada"})
    assert invited_owner.status_code == 400 and "a bot of ada sits at this table" in invited_owner.json()["detail"]
    nobody = _create(as_person, {"kind": "challenge", "name": "NoSuchBot"})
    assert nobody.status_code == 400 and "accepts_challenges" in nobody.json()["detail"]


@pytest.mark.parametrize("body, words", [
    ({"preset": "nope", "seats": [{"kind": "open"}]}, "is not a valid choice"),
    ({"preset": "web-table", "seats": []}, "seats 2 to"),
    ({"preset": "web-table", "seats": [{"kind": "open"}] * 9}, "no more than 7"),
    ({"preset": "crazy-eights", "seats": [{"kind": "open"}] * 5}, "seats 2 to 4"),
    ({"preset": "web-table", "seats": [{"kind": "sofa"}]}, "is not a valid choice"),
    ({"preset": "web-table", "seats": [{"kind": "invited", "name": "nobody"}]}, "is not a person's name"),
    ({"preset": "web-table", "seats": [{"kind": "house", "strategy": "psychic"}]}, "unknown house strategy"),
    ({"preset": "web-table", "seats": [{"kind": "open"}], "colour": "red"}, "is not a field of a table"),
])
def test_a_bad_table_is_refused_saying_what_would_be_right(as_person, house_bots, body, words):
    response = as_person.post("/api/tables/", body, format="json")
    assert response.status_code == 400, response.content
    assert words in str(response.json()["detail"]) and Table.objects.count() == 0


def test_refusals_of_seats_and_changes(as_person, as_stranger, house_bots):
    assert api_client().post("/api/tables/", {"seats": []}, format="json").status_code == 401
    missing = as_stranger.post("/api/tables/ZZZZZZZZZZZZ/join/")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    table = _open_table(as_person, {"kind": "open"}, {"kind": "open"})
    code = table["code"]
    again = as_person.post(f"/api/tables/{code}/join/")
    assert again.status_code == 409 and again.json()["error"] == "already_seated"
    assert as_stranger.post(f"/api/tables/{code}/start/").json()["error"] == "not_yours"
    assert as_stranger.post(f"/api/tables/{code}/cancel/").status_code == 403
    assert as_stranger.post(f"/api/tables/{code}/leave/").status_code == 403  # no seat of theirs
    assert as_stranger.post(f"/api/tables/{code}/join/").json()["free_seats"] == 1
    assert as_stranger.post(f"/api/tables/{code}/leave/").json()["free_seats"] == 2
    assert as_person.post(f"/api/tables/{code}/cancel/").status_code == 200
    gone = as_stranger.post(f"/api/tables/{code}/join/")
    assert gone.status_code == 410 and gone.json()["error"] == "gone"


def test_a_private_table_is_not_in_the_lobby_and_waiting_tables_are_limited(as_person, settings, house_bots):
    settings.TABLES_WAITING_PER_PLAYER = 2
    private = _open_table(as_person, {"kind": "open"}, listed=False)
    assert api_client().get("/api/tables/").json() == []
    assert api_client().get(f"/api/tables/{private['code']}/").status_code == 200  # the link still finds it
    _open_table(as_person, {"kind": "open"})
    third = _create(as_person, {"kind": "open"})
    assert third.status_code == 429 and third.json()["error"] == "too_many_tables" and third["Retry-After"]


@pytest.mark.django_db(transaction=True)
def test_two_people_pressing_join_for_the_last_seat_at_once_get_it_once(house_bots):
    if connection.vendor != "postgresql":
        pytest.skip("NOWAIT row locks: PostgreSQL")
    lin, bob, ada = user("lin"), user("bob"), user("ada")
    code = _open_table(api_client(lin), {"kind": "open"})["code"]
    barrier, answers = threading.Barrier(2), {}

    def join(name, account):
        try:
            barrier.wait(10)
            answers[name] = api_client(account).post(f"/api/tables/{code}/join/")
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(n, a)) for n, a in (("bob", bob), ("ada", ada))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    codes = sorted(a.status_code for a in answers.values())
    assert codes in ([200, 409], [200, 410]), codes  # one seat; the other: busy, full, or the match started
    assert Match.objects.count() == 1 and Match.objects.get().seats.count() == 2


def test_a_rematch_moves_every_seat_on_by_one_and_starts_when_everyone_has_accepted(as_person, as_stranger,
                                                                                    house_bots):
    table = _open_table(as_person, {"kind": "house", "strategy": "eager"}, {"kind": "open"})
    started = as_stranger.post(f"/api/tables/{table['code']}/join/").json()
    early = as_person.post(f"/api/tables/{table['code']}/rematch/")
    assert early.status_code == 410 and early.json()["error"] == "gone"  # the match is still running
    Match.objects.filter(pk=started["match_id"]).update(status=Match.Status.FINISHED)
    outsider = api_client(user("ada")).post(f"/api/tables/{table['code']}/rematch/")
    assert outsider.status_code == 403 and outsider.json()["error"] == "not_yours"

    offered = as_person.post(f"/api/tables/{table['code']}/rematch/").json()
    assert offered["rematch_of"] == table["code"] and offered["status"] == "waiting" and not offered["listed"]
    assert [(s["kind"], s["player"], s["invited"]) for s in offered["seats"]] == [
        ("invited", None, "bob"), ("invited", "lin", "lin"), ("house", house_name(offered), None)]
    assert offered["your_seat"] == 1
    assert as_person.get(f"/api/tables/{table['code']}/").json()["rematch"] == offered["code"]
    accepted = as_stranger.post(f"/api/tables/{table['code']}/rematch/").json()  # the same rematch, accepted
    assert accepted["code"] == offered["code"] and accepted["status"] == "started" and accepted["your_seat"] == 0
    names = list(Match.objects.get(pk=accepted["match_id"]).seats.order_by("index").values_list("player__name",
                                                                                                flat=True))
    assert names[:2] == ["bob", "lin"]


def house_name(view: dict) -> str:
    return view["seats"][2]["player"]


def test_a_challenge_is_shown_to_the_challenged_person_who_accepts_or_declines(as_person, as_stranger, stranger,
                                                                               house_bots, settings):
    Player.objects.create(name="bob", kind=Player.Kind.HUMAN, user=stranger)
    made = as_person.post("/api/challenges/", {"player": "bob", "preset": "pagat"}, format="json")
    assert made.status_code == 201, made.content
    challenge = made.json()
    assert challenge["challenge"] and not challenge["listed"] and challenge["seats"][1]["invited"] == "bob"
    assert api_client().get("/api/tables/").json() == []  # never in the lobby
    waiting = as_stranger.get("/api/challenges/").json()
    assert [t["code"] for t in waiting] == [challenge["code"]] and waiting[0]["can_join"]
    assert as_person.get("/api/challenges/").json() == []  # the challenger's own challenge is not an invitation
    page = Client()
    page.force_login(stranger)
    assert "challenges you to a" in page.get("/").content.decode()  # on every page
    accepted = as_stranger.post(f"/api/tables/{challenge['code']}/join/").json()
    assert accepted["status"] == "started" and accepted["your_seat"] == 1
    assert as_stranger.get("/api/challenges/").json() == []

    declined = as_person.post("/api/challenges/", {"player": "bob"}, format="json").json()
    assert as_stranger.post(f"/api/tables/{declined['code']}/decline/").json()["status"] == "cancelled"
    assert as_person.post(f"/api/tables/{declined['code']}/join/").status_code == 410
    refused = as_person.post("/api/challenges/", {"player": "lin"}, format="json")
    assert refused.status_code == 400 and "already" in refused.json()["detail"]  # not oneself
    assert as_person.post("/api/challenges/", {"player": "bob", "rated": True}, format="json").status_code == 400

    settings.CHALLENGE_MINUTES = 1
    stale = as_person.post("/api/challenges/", {"player": "bob"}, format="json").json()
    Table.objects.filter(code=stale["code"]).update(expires_at=timezone.now())
    assert as_stranger.get("/api/challenges/").json() == []
    assert as_stranger.post(f"/api/tables/{stale['code']}/join/").json()["error"] == "gone"


def test_the_lobby_takes_the_same_few_queries_for_any_number_of_tables(as_person, django_assert_max_num_queries,
                                                                      house_bots, settings):
    settings.TABLES_WAITING_PER_PLAYER = 20
    for _ in range(12):
        _open_table(as_person, {"kind": "open"}, {"kind": "house", "strategy": "eager"})
    with django_assert_max_num_queries(4):  # the person's player, the tables, their seats (and a session)
        assert len(as_person.get("/api/tables/").json()) == 12


def test_a_table_is_one_more_casual_match_under_the_casual_limits(as_person, as_stranger, settings, house_bots):
    settings.CASUAL_RUNNING_PER_PERSON = 1
    first = _open_table(as_person, {"kind": "open"})
    as_stranger.post(f"/api/tables/{first['code']}/join/")  # both now have one running casual match
    second = _open_table(api_client(user("ada")), {"kind": "open"})
    refused = as_stranger.post(f"/api/tables/{second['code']}/join/")
    assert refused.status_code == 429 and refused.json()["error"] == "too_many_tables" and refused["Retry-After"]
    assert "limit 1" in refused.json()["detail"]
    assert _create(as_person, {"kind": "open"}).status_code == 429
