"""Leavers (issue 23, 6): the table knows who is there (a heartbeat, seat views, moves); when a person has been away
on their turn for the wait, another person at the table may end it: a house bot stands in at a casual match, the
leaver forfeits a rated one (an ``abandoned`` fault the exported record proves); every refusal says why."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from eights_engine.record import verify_record
from games.matches.exports import match_export
from games.models import Match, Move, Player
from games.services import match_advance, match_create, player_for_user
from eights_engine import Ruleset
from personas import api_client, user

pytestmark = pytest.mark.django_db


def _people_table(as_person, as_stranger) -> Match:
    """lin, a house bot and bob at a casual web-table match, played on until a person is to play."""
    code = as_person.post("/api/tables/", {"preset": "web-table", "seats": [{"kind": "house", "strategy": "eager"},
                                                                           {"kind": "open"}]},
                          format="json").json()["code"]
    match = Match.objects.get(pk=as_stranger.post(f"/api/tables/{code}/join/").json()["match_id"])
    match_advance(match_id=match.pk)
    return match


def _to_play(client, match: Match, seat: int) -> int:
    return client.post(f"/api/matches/{match.pk}/seats/{seat}/presence/").json()["to_play"]


def _away(match: Match, seat: int, seconds: int = 120) -> None:
    """The seat to play has had the turn, and was last seen, ``seconds`` ago."""
    Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timedelta(seconds=seconds))
    cache.set(f"presence:{match.pk}:{seat}", time.time() - seconds, 3600)


def _end_wait(client, match: Match, seat: int, leaver: int, **extra):
    return client.post(f"/api/matches/{match.pk}/seats/{seat}/end-wait/", {"seat": leaver, **extra}, format="json")


def test_a_house_bot_stands_in_for_a_person_who_left_a_casual_table(as_person, as_stranger, house_bots):
    match = _people_table(as_person, as_stranger)
    clients = {0: as_person, 2: as_stranger}
    leaver = _to_play(as_person, match, 0)
    other = 2 if leaver == 0 else 0
    seen = clients[other].post(f"/api/matches/{match.pk}/seats/{other}/presence/").json()
    assert seen["end_wait"]["seat"] == leaver and seen["end_wait"]["after_s"] > 0 and not seen["end_wait"]["rated"]
    assert [p["index"] for p in seen["people"]] == [0, 2]  # people only: the house seat is never waited for
    early = _end_wait(clients[other], match, other, leaver)
    assert early.status_code == 409 and early.json()["error"] == "not_away" and int(early["Retry-After"]) >= 1

    _away(match, leaver)
    clients[leaver].post(f"/api/matches/{match.pk}/seats/{leaver}/presence/")  # back just in time: a heartbeat
    assert _end_wait(clients[other], match, other, leaver).json()["error"] == "not_away"

    _away(match, leaver)
    assert clients[leaver].post(f"/api/matches/{match.pk}/seats/{leaver}/presence/").json()["end_wait"] is None
    _away(match, leaver)  # that heartbeat said they are back: away again
    ended = _end_wait(clients[other], match, other, leaver)
    assert ended.status_code == 200, ended.content
    assert ended.json() == {"seat": leaver, "outcome": "stand_in"}
    again = _end_wait(clients[other], match, other, leaver)
    assert again.status_code == 409 and "already" in again.json()["detail"]

    before = Match.objects.get(pk=match.pk).ply_count
    match_advance(match_id=match.pk)  # the stand-in plays the leaver's turn, and the match goes on
    stood_in = Move.objects.filter(deal__match=match, seat=leaver).order_by("-id").first()
    assert Match.objects.get(pk=match.pk).ply_count > before and stood_in.fault_kind == ""
    view = clients[leaver].get(f"/api/matches/{match.pk}/seats/{leaver}/").json()
    assert view["seats"][leaver]["stand_in"] == "heuristic" and view["seats"][other]["stand_in"] is None
    move = clients[leaver].post(f"/api/matches/{match.pk}/seats/{leaver}/actions/",
                                {"ply": view["ply"], "action": {"type": "draw"}}, format="json")
    assert move.status_code == 409 and move.json()["error"] == "seat_left"
    assert "house bot plays your seat" in move.json()["detail"]
    presence = clients[other].post(f"/api/matches/{match.pk}/seats/{other}/presence/").json()
    assert next(p for p in presence["people"] if p["index"] == leaver)["left"]


def test_a_person_who_left_a_rated_match_forfeits_and_the_record_proves_it(ladder, house_bots):
    lin, bob = player_for_user(user=user("lin")), player_for_user(user=user("bob"))
    match = match_create(players=[lin, bob], ruleset=Ruleset.preset("pagat"), preset="pagat")
    from tournaments.models import LadderMatch

    LadderMatch.objects.create(ladder=ladder, match=match)
    clients = {0: api_client(lin.user), 1: api_client(bob.user)}
    leaver = _to_play(clients[0], match, 0)
    other = 1 - leaver
    assert clients[other].post(f"/api/matches/{match.pk}/seats/{other}/presence/").json()["end_wait"]["rated"]
    _away(match, leaver, seconds=ladder.leaver_wait_seconds + 5)
    ended = _end_wait(clients[other], match, other, leaver)
    assert ended.json() == {"seat": leaver, "outcome": "forfeit"}
    match_advance(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    seats = list(match.seats.order_by("index"))
    assert seats[leaver].forfeited and seats[leaver].place == 2 and seats[other].place == 1
    assert Move.objects.filter(deal__match=match).order_by("-id").first().fault_kind == "abandoned"
    record = match_export(match=match)
    verify_record(record)  # the forfeit follows from the plies: an abandoned fault forfeits at once
    forged = {**record, "result": {**record["result"], "forfeited": other}}
    with pytest.raises(ValueError):
        verify_record(forged)


def test_refusals_say_what_is_wrong(as_person, as_stranger, house_bots):
    match = _people_table(as_person, as_stranger)
    leaver = _to_play(as_person, match, 0)
    other = 2 if leaver == 0 else 0
    clients = {0: as_person, 2: as_stranger}
    _away(match, leaver)
    own = _end_wait(clients[leaver], match, leaver, leaver)
    assert own.status_code == 403 and "another person" in own.json()["detail"]
    house = _end_wait(clients[other], match, other, 1)
    assert house.status_code == 403
    unknown = _end_wait(clients[other], match, other, leaver, why="gone")
    assert unknown.status_code == 400 and unknown.json()["error"] == "unknown_field"
    bad = clients[other].post(f"/api/matches/{match.pk}/seats/{other}/end-wait/", {"seat": "x"}, format="json")
    assert bad.status_code == 400
    outsider = api_client(user("cy"))
    assert _end_wait(outsider, match, other, leaver).status_code == 403
    assert outsider.post(f"/api/matches/{match.pk}/seats/{other}/presence/").status_code == 403
    assert api_client().post(f"/api/matches/{match.pk}/seats/{other}/presence/").status_code == 401
    assert _end_wait(clients[other], match, other, 7).status_code == 403
    assert Player.objects.filter(kind=Player.Kind.HUMAN, seats__match=match, seats__left_at__isnull=False).count() == 0
