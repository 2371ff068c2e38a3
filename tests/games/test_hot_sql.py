"""The person's hot path reads and writes some rows with SQL written once per process instead of compiled by the ORM
on every request (issue 25: the compile cost more CPU than the statements). These tests hold them to what the ORM
gives: every field of every loaded object, converted as the ORM converts it (JSON, datetimes, booleans), and the
compare-and-set's refusal."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from eights_engine import Ruleset
from games.matches.lifecycle import _seats_loaded
from games.matches.plies import _insert, _update
from games.models import Deal, Match, Move, Seat
from games.services import match_create, player_for_user


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.fixture
def match(db, house_bots):
    ruth = get_user_model().objects.create_user("ruth", password="pw-ruth-12345", email="ruth@example.org")
    made = match_create(players=[house_bots[0], player_for_user(user=ruth), house_bots[2]],
                        ruleset=Ruleset.preset("pagat"))
    Seat.objects.filter(match=made, index=2).update(left_at=timezone.now(), stand_in="greedy", total=17)
    return made


def test_the_seats_read_once_written_equal_the_orms_select_related(match):
    orm = list(Seat.objects.filter(match_id=match.pk).select_related("match", "player__user").order_by("index"))
    mine = _seats_loaded(match.pk)
    assert [s.index for s in mine] == [0, 1, 2]
    assert len({id(s.match) for s in mine}) == 1  # one match object for all the seats
    for a, b in zip(orm, mine):
        assert _fields(a) == _fields(b)
        assert _fields(a.match) == _fields(b.match)
        assert _fields(a.player) == _fields(b.player)
        assert (a.player.user and _fields(a.player.user)) == (b.player.user and _fields(b.player.user))
    assert isinstance(mine[0].match.ruleset, dict) and isinstance(mine[0].match.totals, list)
    assert mine[1].player.user.username == "ruth" and mine[0].player.user is None
    assert mine[2].left_at is not None and mine[2].left_at.tzinfo is not None and mine[2].total == 17
    assert _seats_loaded(match.pk + 1000) == []


def test_the_written_update_sets_fields_as_the_orm_would_and_refuses_a_stale_count(match):
    now = timezone.now()
    where = {"id": match.pk, "status": Match.Status.RUNNING, "ply_count": match.ply_count}
    assert _update(Match, {"ply_count": match.ply_count + 2, "totals": [5, 0, 3], "last_progress_at": now,
                           "awaiting_human": True}, where=where) == 1
    match.refresh_from_db()
    assert (match.ply_count, match.totals, match.last_progress_at, match.awaiting_human) == (2, [5, 0, 3], now, True)
    assert _update(Match, {"ply_count": 99}, where=where) == 0  # the count moved on: nothing changes
    match.refresh_from_db()
    assert match.ply_count == 2


def test_the_seats_updates_go_in_one_statement_and_leave_what_a_seat_did_not_set(match, django_assert_num_queries):
    from games.matches.plies import _seats_update

    seats = {s.index: s for s in Seat.objects.filter(match=match)}
    Seat.objects.filter(pk=seats[2].pk).update(time_bank_ms=4321, consecutive_faults=1)
    with django_assert_num_queries(1):
        _seats_update({seats[0].pk: {"consecutive_faults": 2, "last_latency_ms": 17},
                       seats[2].pk: {"last_latency_ms": 250, "time_bank_ms": 4000}})
    after = {s.index: s for s in Seat.objects.filter(match=match)}
    assert (after[0].consecutive_faults, after[0].last_latency_ms, after[0].time_bank_ms) == (
        2, 17, seats[0].time_bank_ms)
    assert (after[2].consecutive_faults, after[2].last_latency_ms, after[2].time_bank_ms) == (1, 250, 4000)
    assert (after[1].consecutive_faults, after[1].last_latency_ms) == (0, None)  # not named: untouched


def test_the_written_insert_stores_what_bulk_create_stores(match, django_assert_num_queries):
    deal = Deal.objects.filter(match=match).first()

    def moves(first_ply):
        return [Move(deal=deal, ply=first_ply, seat=0, action={"type": "play", "card": "8H", "suit": "S"}),
                Move(deal=deal, ply=first_ply + 1, seat=1, action={"type": "draw"}, source=Move.Source.FALLBACK,
                     fault="timeout: no reply within 250 ms", fault_kind="timeout", think_ms=250,
                     contribution="ab" * 32)]

    before = timezone.now()
    Move.objects.bulk_create(moves(0))
    with django_assert_num_queries(1):
        _insert(moves(2))
    orm, mine = (list(Move.objects.filter(deal=deal, ply__in=plies).order_by("ply")) for plies in ((0, 1), (2, 3)))
    for a, b in zip(orm, mine):
        fa, fb = _fields(a), _fields(b)
        assert (fa.pop("id"), fa.pop("ply")) != (fb.pop("id"), fb.pop("ply"))
        assert before <= fb.pop("created_at") and before <= fa.pop("created_at")  # auto_now_add, as the ORM sets it
        assert fa == fb
    assert mine[0].action == {"type": "play", "card": "8H", "suit": "S"} and mine[1].source == "fallback"


def test_the_seats_plan_is_worked_out_once_per_connection(match, django_assert_num_queries):
    from django.db import connection

    _seats_loaded(match.pk)
    plan = connection._eights_seats_plan
    with django_assert_num_queries(1):
        _seats_loaded(match.pk)
    assert connection._eights_seats_plan is plan
    assert plan.parts[1][1].converters  # the match's JSON fields at least are converted as the ORM converts them
