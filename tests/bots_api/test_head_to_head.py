"""Head to head (issue 23, part 5): ``/players/<a>/vs/<b>/`` and its API give two players' public matches against
each other: wins, ties, card points and the rating changes those matches caused; never a running match."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from eights_engine import Ruleset
from games.models import Match
from games.services import match_advance, match_create
from tournaments.models import RatingChange
from tournaments.services import ladder_schedule_matches

pytestmark = pytest.mark.django_db


def _played(a, b, seed, *others):
    match = match_create(players=[a, b, *others], ruleset=Ruleset.preset("pagat"), seed=seed)
    assert match_advance(match_id=match.pk) == "finished"
    return Match.objects.get(pk=match.pk)


def test_two_players_record_against_each_other(house_bots):
    rando, eager, greedy = house_bots[:3]
    played = [_played(rando, eager, seed) for seed in (1, 2, 3)] + [_played(eager, greedy, 4)]
    running = match_create(players=[rando, eager], ruleset=Ruleset.preset("pagat"), seed=5)  # never counted
    record = APIClient().get(f"/api/players/{rando.name}/vs/{eager.name}/").json()
    assert record["players"] == ["Rando", "Eager"] and record["matches"] == 3
    expected = [0, 0]
    for match in played[:3]:
        places = {s.player_id: s.place for s in match.seats.all()}
        expected[0 if places[rando.pk] < places[eager.pk] else 1] += 1
    assert record["wins"] == expected and record["ties"] == 0
    assert record["points"] == [sum(m.totals[0] for m in played[:3]), sum(m.totals[1] for m in played[:3])]
    assert {m["match_id"] for m in record["recent"]} == {m.pk for m in played[:3]}
    assert running.pk not in {m["match_id"] for m in record["recent"]}
    by_id = APIClient().get(f"/api/players/{eager.pk}/vs/{rando.pk}/").json()
    assert by_id["players"] == ["Eager", "Rando"] and by_id["wins"] == expected[::-1]

    page = Client().get(f"/players/{rando.name}/vs/{eager.name}/")
    assert page.status_code == 200 and f"/matches/{played[0].pk}/" in page.content.decode()
    profile = Client().get(f"/players/{eager.name}/").content.decode()  # met most often: Rando 3, Greedy 1
    assert profile.index(f'href="/players/{eager.name}/vs/{rando.name}/"') < profile.index(
        f'href="/players/{eager.name}/vs/{greedy.name}/"')


def test_rating_changes_are_summed_per_ladder(ladder):
    for _ in range(4):
        for match in ladder_schedule_matches(ladder=ladder):
            assert match_advance(match_id=match.pk) == "finished"
    rows = RatingChange.objects.filter(entry__ladder=ladder).select_related("entry__player", "match")
    assert rows, "the ladder played rated matches"
    first = rows[0]
    other = next(r for r in rows if r.match_id == first.match_id and r.pk != first.pk)
    a, b = first.entry.player, other.entry.player
    record = APIClient().get(f"/api/players/{a.name}/vs/{b.name}/").json()
    between = {r.match_id for r in rows.filter(entry__player=a)} & {r.match_id for r in rows.filter(entry__player=b)}
    (rating,) = record["ratings"]
    assert rating["ladder"] == ladder.slug and rating["matches"] == len(between)
    want = sum(r.delta for r in rows.filter(entry__player=a, match_id__in=between))
    assert rating["change"][0] == pytest.approx(want, abs=1e-3)


def test_one_player_twice_or_an_unknown_one_is_refused(house_bots):
    same = APIClient().get(f"/api/players/{house_bots[0].name}/vs/{house_bots[0].name}/")
    assert same.status_code == 400 and same.json()["error"] == "same_player"
    unknown = APIClient().get(f"/api/players/{house_bots[0].name}/vs/Nobody%20Here/")
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"
    assert Client().get(f"/players/{house_bots[0].name}/vs/Nobody%20Here/").status_code == 404
