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
