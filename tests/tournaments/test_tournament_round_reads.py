"""Tournament pages of a long tournament: a round's page reads that round only, and every page groups matches by
round once (they were rounds x matches: each round scanned every match of the tournament)."""

import time

import pytest
from django.test import Client
from django.utils import timezone

from eights_engine import Ruleset
from games.models import Match, Seat
from games.services import player_house_create
from tournaments.models import Tournament, TournamentMatch, TournamentRound
from tournaments.tournament_selectors import tournament_rounds
from tournaments.tournament_services import tournament_create


def _long(rounds: int, players) -> Tournament:
    """A finished round robin of ``rounds`` rounds of one 2-seat match each, stored in bulk."""
    t = tournament_create(name=f"Long {rounds}", format="round_robin", target=30)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED, rounds=rounds,
                                              started_at=timezone.now(), finished_at=timezone.now())
    rs = Ruleset.preset("pagat").to_dict()
    ms = Match.objects.bulk_create([Match(ruleset=rs, preset="pagat", seat_count=2, seed=i, engine_version="x",
                                          status=Match.Status.FINISHED) for i in range(rounds)])
    rds = TournamentRound.objects.bulk_create([TournamentRound(tournament=t, number=i + 1, finished_at=timezone.now())
                                               for i in range(rounds)])
    TournamentMatch.objects.bulk_create([TournamentMatch(round=r, match=m, pod=0) for r, m in zip(rds, ms)])
    Seat.objects.bulk_create([Seat(match=m, index=i, player=p, total=10 * i, place=i + 1)
                              for m in ms for i, p in enumerate(players)])
    return Tournament.objects.get(pk=t.pk)


def _median_ms(path: str, runs: int = 5) -> float:
    c = Client()
    c.get(path)
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        assert c.get(path).status_code == 200
        times.append((time.perf_counter() - began) * 1000)
    return sorted(times)[runs // 2]


@pytest.fixture
def players(db):
    return player_house_create(name="LongA", strategy="random"), player_house_create(name="LongB", strategy="random")


@pytest.mark.django_db
def test_a_round_page_of_a_long_tournament_does_not_read_the_whole_tournament(players):
    small, big = _long(250, players), _long(2000, players)
    small_ms = _median_ms(f"/tournaments/{small.pk}/rounds/1/")
    big_ms = _median_ms(f"/tournaments/{big.pk}/rounds/1/")
    # reading one round costs the same at any length; reading all of them linearly would be ~8x, quadratically ~64x
    assert big_ms / small_ms < 20, f"{small_ms:.0f} ms -> {big_ms:.0f} ms for 8x the rounds"


@pytest.mark.django_db
def test_rounds_group_their_matches_and_one_round_reads_alone(players, django_assert_max_num_queries):
    t = _long(30, players)
    everything = tournament_rounds(tournament=t)
    assert [r.number for r in everything] == list(range(1, 31))
    assert all(len(r.matches) == 1 and r.matches[0].match.seed == r.number - 1 for r in everything)
    with django_assert_max_num_queries(6):  # a fixed few, whatever the length
        one = tournament_rounds(tournament=t, number=17)
    assert [(r.number, r.matches[0].match.seed) for r in one] == [(17, 16)]
    assert tournament_rounds(tournament=t, number=31) == [] and tournament_rounds(tournament=t, number=10 ** 25) == []
    assert Client().get(f"/tournaments/{t.pk}/rounds/{'9' * 25}/").status_code == 404
