"""The person's hot path reads and writes some rows with SQL written once per process instead of compiled by the ORM
on every request (issue 25: the compile cost more CPU than the statements). These tests hold them to what the ORM
gives: every field of every loaded object, converted as the ORM converts it (JSON, datetimes, booleans), and the
compare-and-set's refusal."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.engine import Ruleset
from games.matches.lifecycle import _seats_loaded
from games.matches.plies import _update
from games.models import Match, Seat
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
