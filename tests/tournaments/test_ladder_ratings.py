"""Ladder ratings: partnerships rated as teams, provisional entries, the rating history, and how sure the order is."""

import pytest
from openskill.models import PlackettLuce

from games.services import match_advance, player_house_create
from tournaments.models import LadderEntry, RatingChange
from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches


def _bots(n):
    strategies = ["random", "eager", "greedy", "heuristic", "tactician"]
    return [player_house_create(name=f"Bot {i}", strategy=strategies[i % len(strategies)]) for i in range(n)]


@pytest.mark.django_db
def test_partners_share_their_sides_result_and_are_rated_as_a_team():
    """eights-classic with ``partnership``: seats 0+2 against 1+3 (RULES.md, system A). The rating is openskill
    Plackett-Luce over two teams of two, so each partner moves by its own share of the team's update."""
    lad = ladder_create(name="Partners", slug="partners", preset="eights-classic", seats_per_match=4,
                        overrides={"partnership": True}, max_running_matches=1)
    for i, bot in enumerate(_bots(4)):
        ladder_entry_create(ladder=lad, player=bot)
        # unequal ratings before the match: team rating and four separate ratings give different updates
        LadderEntry.objects.filter(ladder=lad, player=bot).update(mu=20.0 + 3 * i, sigma=4.0 + i)
    (match,) = ladder_schedule_matches(ladder=lad)
    assert match_advance(match_id=match.pk) == "finished"
    seats = list(match.seats.order_by("index"))
    assert seats[0].place == seats[2].place and seats[1].place == seats[3].place != seats[0].place
    changes = {c.entry.player_id: c for c in RatingChange.objects.filter(match=match).select_related("entry")}
    model = PlackettLuce()
    teams = [[model.rating(mu=changes[s.player_id].mu_before, sigma=changes[s.player_id].sigma_before)
              for s in (seats[a], seats[a + 2])] for a in (0, 1)]
    expected = model.rate(teams, ranks=[seats[0].place, seats[1].place])
    for side in (0, 1):
        for member, seat in enumerate((seats[side], seats[side + 2])):
            change = changes[seat.player_id]
            assert change.mu_after == pytest.approx(expected[side][member].mu)
            assert change.sigma_after == pytest.approx(expected[side][member].sigma)
    winners = [s for s in seats if s.place == 1]
    for s in winners:
        assert changes[s.player_id].mu_after > changes[s.player_id].mu_before
        assert LadderEntry.objects.get(ladder=lad, player_id=s.player_id).wins == 1


def test_order_confidence_is_the_chance_the_higher_skill_is_really_higher():
    from tournaments.ratings import order_confidence

    assert order_confidence(25, 8, 25, 8) == pytest.approx(0.5)
    assert order_confidence(30, 1, 25, 1) == pytest.approx(0.99976, abs=1e-4)  # 5 / sqrt(2) = 3.54 sigma apart
    assert order_confidence(26, 8, 25, 8) < 0.6  # uncertain ratings: a small gap says little
    assert order_confidence(25, 1, 30, 1) == pytest.approx(1 - order_confidence(30, 1, 25, 1))


def test_the_trust_statement_says_plainly_how_sure_the_order_is():
    from tournaments.ratings import trust_statement

    assert trust_statement("Ada", "Bob", 0.991) == "Ada is ahead of Bob with 99 % confidence."
    assert trust_statement("Ada", "Bob", 0.95) == "Ada is ahead of Bob with 95 % confidence."
    assert trust_statement("Ada", "Bob", 0.8) == "Ada is probably ahead of Bob (80 % confidence)."
    assert trust_statement("Ada", "Bob", 0.6) == "Ada and Bob cannot yet be told apart (60 %)."
    assert trust_statement("Ada", "Bob", 0.3) == "Ada and Bob cannot yet be told apart (30 %)."


def _entry(ladder, name, mu, sigma, played):
    bot = player_house_create(name=name, strategy="random")
    entry = ladder_entry_create(ladder=ladder, player=bot)
    LadderEntry.objects.filter(pk=entry.pk).update(mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, matches_played=played)
    return entry


@pytest.mark.django_db
def test_provisional_entries_are_listed_below_established_ones_and_marked(settings):
    from tournaments.selectors import ladder_leaderboard, ladder_trust

    settings.LADDER_PROVISIONAL_MATCHES = 10
    lad = ladder_create(name="Board", slug="board")
    _entry(lad, "Veteran", 24.0, 2.0, 40)       # ordinal 18
    _entry(lad, "Lucky newcomer", 40.0, 5.0, 3)  # ordinal 25, but only 3 matches
    _entry(lad, "Steady", 23.5, 2.0, 30)        # ordinal 17.5: hard to tell from Veteran
    _entry(lad, "Weak", 10.0, 1.0, 50)          # ordinal 7: clearly below Steady
    board = ladder_leaderboard(ladder=lad)
    assert [e.player.name for e in board] == ["Veteran", "Steady", "Weak", "Lucky newcomer"]
    assert [e.rank for e in board] == [1, 2, 3, None]
    assert [e.provisional for e in board] == [False, False, False, True]
    said = ladder_trust(board=board)
    assert said["pairs"][0] == "Veteran and Steady cannot yet be told apart (57 %)."
    assert said["pairs"][1] == "Steady is ahead of Weak with 99 % confidence."
    assert len(said["pairs"]) == 2
    assert "Lucky newcomer" in said["provisional"] and "10 matches" in said["provisional"]
