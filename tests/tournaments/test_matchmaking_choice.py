"""The ladder's choice of matches as a pure function (tournaments.matchmaking.choose_matches): close ratings,
spread opponents, the cap per entry, fewer recent matches first, seats rotated fairly, nobody starves."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.matchmaking import Candidate, choose_matches


def _c(i, mu=25.0, **kw):
    return Candidate(id=i, name=f"p{i:02d}", mu=mu, sigma=kw.pop("sigma", 1.0), **kw)


def test_it_seats_the_nearest_ratings_together():
    pool = [_c(1, 30), _c(2, 29), _c(3, 2), _c(4, 1)]
    matches = choose_matches(pool, seats=2, room=2, cap=1)
    assert sorted(sorted(m) for m in matches) == [[1, 2], [3, 4]]


def test_a_pair_that_met_often_gives_way_to_a_slightly_wider_gap():
    pool = [_c(1, 20), _c(2, 19), _c(3, 18)]
    assert sorted(choose_matches(pool, seats=2, room=1, cap=1)[0]) in ([1, 2], [2, 3])
    met = Counter({(1, 2): 3, (2, 3): 3})
    assert sorted(choose_matches(pool, seats=2, room=1, cap=1, met=met)[0]) == [1, 3]


def test_it_prefers_entries_with_fewer_recent_matches_and_respects_the_cap():
    pool = [_c(1, 10, recent=5), _c(2, 10, recent=0), _c(3, 10, recent=1, running=1), _c(4, 10, recent=9)]
    (match,) = choose_matches(pool, seats=2, room=5, cap=1)  # 3 is busy; one match of the three free
    assert 2 in match and 3 not in match
    more = choose_matches(pool, seats=2, room=5, cap=2)  # seat slots left: 2 + 2 + 1 + 2 = 7, three matches
    assert len(more) == 3 and Counter(i for m in more for i in m) == {1: 2, 2: 2, 3: 1, 4: 1}


def test_it_never_seats_two_entries_of_one_owner_and_passes_over_one_it_cannot_seat():
    pool = [_c(1, 10, owner=7), _c(2, 10, owner=7), _c(3, 10, owner=7, recent=0), _c(4, 10, recent=3)]
    matches = choose_matches(pool, seats=2, room=3, cap=1)
    assert len(matches) == 1 and 4 in matches[0]
    three = [_c(1, owner=7), _c(2, owner=7), _c(3), _c(4)]
    assert choose_matches(three, seats=3, room=1, cap=1)[0].count(1) + choose_matches(
        three, seats=3, room=1, cap=1)[0].count(2) == 1


def test_seat_zero_goes_to_the_entry_furthest_below_its_share_of_it():
    pool = [_c(1, 10, seat_counts=(6, 0)), _c(2, 10, seat_counts=(0, 6))]
    assert choose_matches(pool, seats=2, room=1, cap=1) == [[2, 1]]
    pool = [_c(1, 10, seat_counts=(0, 6)), _c(2, 10, seat_counts=(6, 0))]
    assert choose_matches(pool, seats=2, room=1, cap=1) == [[1, 2]]


def test_it_rejects_a_nonsense_call():
    with pytest.raises(ValueError, match="at least 2 seats"):
        choose_matches([], seats=1, room=1, cap=1)
    with pytest.raises(ValueError, match="at least 1"):
        choose_matches([], seats=2, room=1, cap=0)


def _simulate(ordinals, owners, seats, room, cap, rounds):
    """``rounds`` scheduling rounds; every chosen match finishes before the next round (ratings stay put).
    Returns (matches per id, seat counts per id)."""
    ids = list(range(1, len(ordinals) + 1))
    played = Counter()
    seat_counts = {i: Counter() for i in ids}
    met = Counter()
    history: list[list[int]] = []
    for _ in range(rounds):
        window = history[-20:]  # the recent matches, as the scheduler counts them
        recent = Counter(i for m in window for i in m)
        pool = [Candidate(id=i, name=f"p{i:02d}", mu=ordinals[i - 1], sigma=1.0, owner=owners[i - 1], recent=recent[i],
                          seat_counts=tuple(seat_counts[i][k] for k in range(seats))) for i in ids]
        met = Counter()
        for m in window:
            for a in m:
                for b in m:
                    if a < b:
                        met[(a, b)] += 1
        for match in choose_matches(pool, seats=seats, room=room, cap=cap, met=met):
            assert len(match) == seats and len(set(match)) == seats
            taken = [owners[i - 1] for i in match if owners[i - 1] is not None]
            assert len(taken) == len(set(taken)), "two entries of one owner in a match"
            history.append(match)
            for index, i in enumerate(match):
                played[i] += 1
                seat_counts[i][index] += 1
    return played, seat_counts


def _seatable(i, owners, seats):
    """Whether entry ``i`` (1-based) can be seated at all: enough others of distinct other owners."""
    mine = owners[i - 1]
    classes = {("house", j) if o is None else ("owner", o)
               for j, o in enumerate(owners, start=1) if j != i and (o is None or o != mine)}
    return len(classes) >= seats - 1


@settings(max_examples=80, deadline=None)
@given(data=st.data(), seats=st.integers(2, 8), room=st.integers(1, 4), cap=st.integers(1, 2))
def test_over_many_rounds_every_seatable_entry_plays_and_seats_balance(data, seats, room, cap):
    n = data.draw(st.integers(seats, 12), label="entries")
    ordinals = data.draw(st.lists(st.floats(0, 50, allow_nan=False), min_size=n, max_size=n), label="ordinals")
    owners = data.draw(st.lists(st.one_of(st.none(), st.integers(1, 3)), min_size=n, max_size=n), label="owners")
    rounds = 12 * n
    played, seat_counts = _simulate(ordinals, owners, seats, room, cap, rounds)
    for i in range(1, n + 1):
        if not _seatable(i, owners, seats):
            continue
        assert played[i] > 0, f"entry {i} never played in {rounds} rounds"
        share = played[i] / seats
        for index in range(seats):  # seat 0 leads the first deal, the last seat deals it
            assert abs(seat_counts[i][index] - share) <= 1.5, (i, index, dict(seat_counts[i]), played[i])


def test_uncertain_ratings_weigh_a_gap_less_than_settled_ones():
    """A gap of 4 mu between settled ratings (sigma 1) is wide; between newcomers' (sigma 8) it is noise."""
    settled = [_c(1, 30), _c(2, 26), _c(3, 22)]
    met = Counter({(1, 2): 1, (2, 3): 1})
    assert sorted(choose_matches(settled, seats=2, room=1, cap=1, met=met)[0]) in ([1, 2], [2, 3])
    fresh = [_c(1, 30, sigma=8), _c(2, 26, sigma=8), _c(3, 22, sigma=8)]
    assert sorted(choose_matches(fresh, seats=2, room=1, cap=1, met=met)[0]) == [1, 3]
