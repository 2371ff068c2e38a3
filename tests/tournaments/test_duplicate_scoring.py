"""tournaments.duplicate: seatings, swings and the combined result of a duplicate set (pure functions)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.duplicate import (SetMatch, check_set, combined_places, common_deals, deal_swings, rotations,
                                   swing_totals)

players_st = st.integers(min_value=2, max_value=8).map(lambda n: [f"p{i}" for i in range(n)])


@st.composite
def duplicate_sets(draw, max_deals: int = 6):
    """A set of rotations with random points per deal and seat and random lengths (matches end after different
    numbers of deals)."""
    players = draw(players_st)
    n = len(players)
    matches = []
    for seating in rotations(players):
        deals = draw(st.integers(min_value=0, max_value=max_deals))
        points = [draw(st.lists(st.integers(min_value=0, max_value=120), min_size=n, max_size=n)) for _ in range(deals)]
        matches.append(SetMatch.of(seating, points))
    return matches


def test_two_players_rotate_into_the_mirror():
    assert rotations(["X", "Y"]) == [["X", "Y"], ["Y", "X"]]


@given(players_st)
def test_rotations_seat_every_player_in_every_seat_once(players):
    seatings = rotations(players)
    assert len(seatings) == len(players) and seatings[0] == players
    for seat in range(len(players)):
        assert sorted(s[seat] for s in seatings) == sorted(players)
    for seating in seatings:
        assert sorted(seating) == sorted(players)


def test_rotations_keep_partners_together():
    for seating in rotations(["a", "b", "c", "d"]):
        assert {seating[0], seating[2]} in ({"a", "c"}, {"b", "d"})


@pytest.mark.parametrize("players", [[], ["solo"], ["x", "x"]])
def test_rotations_refuse_a_set_that_is_not_one(players):
    with pytest.raises(ValueError):
        rotations(players)


def test_a_set_must_be_the_rotations_of_one_seating():
    with pytest.raises(ValueError, match="rotations"):
        check_set([SetMatch.of(["X", "Y"], []), SetMatch.of(["X", "Y"], [])])
    with pytest.raises(ValueError, match="deal 1 has points for 3 seats"):
        SetMatch.of(["X", "Y"], [[1, 2, 3]])


def test_the_mirror_swing_compares_each_seat_with_the_other_holder_of_its_cards():
    # penalty scoring: lower is better. Deal 1: seat 0's cards gave X 0 (in A) and Y 10 (in B): X +10;
    # seat 1's cards gave Y 20 (in A) and X 5 (in B): X +15. X's swing +25, Y's -25.
    a = SetMatch.of(["X", "Y"], [[0, 20]])
    b = SetMatch.of(["Y", "X"], [[10, 5]])
    assert deal_swings([a, b], lower_is_better=True) == [{"X": 25, "Y": -25}]
    assert deal_swings([a, b], lower_is_better=False) == [{"X": -25, "Y": 25}]
    assert combined_places([a, b], lower_is_better=True) == {"X": 1, "Y": 2}


def test_only_deals_every_match_finished_are_compared():
    a = SetMatch.of(["X", "Y"], [[0, 20], [0, 50], [0, 70]])  # A went on for two more deals: not compared
    b = SetMatch.of(["Y", "X"], [[0, 20]])
    assert common_deals([a, b]) == 1
    assert swing_totals([a, b], lower_is_better=True) == {"X": 0, "Y": 0}
    assert combined_places([a, b], lower_is_better=True) == {"X": 1, "Y": 1}  # a tie: the same result, same cards


def test_three_players_are_compared_with_the_mean_of_the_others_who_held_the_cards():
    players = ["A", "B", "C"]
    seatings = rotations(players)
    # every seat's cards score 0 for A, 6 for B and 9 for C, whoever sits where (penalty: A best)
    matches = [SetMatch.of(s, [[{"A": 0, "B": 6, "C": 9}[p] for p in s]]) for s in seatings]
    totals = swing_totals(matches, lower_is_better=True)
    # per seat: A: (6 + 9) / 2 - 0 = 7.5; B: (0 + 9) / 2 - 6 = -1.5; C: 3 - 9 = -6; times three seats
    assert totals == {"A": Fraction(45, 2), "B": Fraction(-9, 2), "C": -18}
    assert combined_places(matches, lower_is_better=True) == {"A": 1, "B": 2, "C": 3}


def test_a_forfeit_places_the_player_last_whatever_the_swings():
    a = SetMatch.of(["X", "Y", "Z"], [[0, 30, 30]], forfeited="X")
    others = [SetMatch.of(s, [[0, 30, 30]]) for s in rotations(["X", "Y", "Z"])[1:]]
    places = combined_places([a, *others], lower_is_better=True)
    assert places["X"] == 3 and places["Y"] == places["Z"] == 1


def test_partners_share_their_side_score_and_place():
    seatings = rotations(["a", "b", "c", "d"])
    good = {"a": 0, "c": 10, "b": 20, "d": 40}  # side a+c beats side b+d from any seats
    matches = [SetMatch.of(s, [[good[p] for p in s]]) for s in seatings]
    totals = swing_totals(matches, lower_is_better=True, partnership=True)
    assert totals["a"] == totals["c"] > 0 > totals["b"] == totals["d"]
    places = combined_places(matches, lower_is_better=True, partnership=True)
    assert places == {"a": 1, "c": 1, "b": 3, "d": 3}


@given(duplicate_sets(), st.booleans())
def test_swings_sum_to_zero_on_every_deal(matches, lower):
    for swings in deal_swings(matches, lower_is_better=lower):
        assert sum(swings.values()) == 0


@given(duplicate_sets(), st.booleans(), st.randoms())
def test_the_order_of_the_matches_in_a_set_does_not_matter(matches, lower, rng):
    shuffled = list(matches)
    rng.shuffle(shuffled)
    assert swing_totals(shuffled, lower_is_better=lower) == swing_totals(matches, lower_is_better=lower)


@given(duplicate_sets(), st.booleans())
def test_places_follow_the_scores_and_ties_share_a_place(matches, lower):
    totals = swing_totals(matches, lower_is_better=lower)
    places = combined_places(matches, lower_is_better=lower)
    assert min(places.values()) == 1
    for p in totals:
        for q in totals:
            assert (totals[p] > totals[q]) == (places[p] < places[q])
            assert (totals[p] == totals[q]) == (places[p] == places[q])


@given(duplicate_sets(), st.booleans())
def test_when_the_cards_decide_everything_nobody_swings(matches, lower):
    """Every holder of a seat's cards scoring the same (the first match's points copied into every match, by seat):
    the luck of the deal is all there is, and duplicate scoring cancels it."""
    first = matches[0]
    same = [SetMatch.of(m.seating, first.deal_points) for m in matches]
    assert set(swing_totals(same, lower_is_better=lower).values()) <= {0}
    assert set(combined_places(same, lower_is_better=lower).values()) <= {1}


@given(players_st, st.integers(min_value=1, max_value=5), st.booleans(), st.randoms())
def test_a_player_who_does_best_with_every_hand_is_first(players, deals, lower, rng):
    best = players[0]
    matches = []
    for seating in rotations(players):
        points = []
        for _ in range(deals):
            row = [rng.randint(10, 100) for _ in seating]
            row[seating.index(best)] = 0 if lower else 200
            points.append(row)
        matches.append(SetMatch.of(seating, points))
    places = combined_places(matches, lower_is_better=lower)
    assert places[best] == 1 and list(places.values()).count(1) == 1
