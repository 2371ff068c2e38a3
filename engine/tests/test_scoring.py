"""Scoring options: ``scoring`` (penalty / winner_collects / hollywood), ``blocked`` and ``blocked_tie``
settlements, ``match_tie``, ``first_player``, ``dealer_rotates``, ``target`` / ``target_per_seat``,
``hollywood_games`` / ``hollywood_total_games`` / ``target_reached_wins`` and partnership standings
(RULES.md A A1 B C D E, "Our readings"; eights_engine/scoring.py and match.py docstrings)."""

import pytest

from engine_test_helpers import PASS, play, pos, rules
from eights_engine import MatchState, Ruleset, choose


def blocked_deal(r, hands):
    """Every seat passes (nothing fits the 5H, nothing to draw): the deal is blocked."""
    deal = pos(r, hands, [], ["5H"])
    for _ in range(len(hands)):
        assert not deal.is_over
        deal.apply(PASS)
    assert deal.is_over and deal.result.outcome == "blocked" and deal.result.winner is None
    return deal.result


def eager_actions(deal):
    """The actions the eager house strategy takes to the end of ``deal`` (on a clone) and the result."""
    twin = deal.clone()
    actions = []
    while not twin.is_over:
        action = choose("eager", twin.view(twin.to_play), twin.legal_actions(), twin.seed)
        actions.append(action)
        twin.apply(action)
    return actions, twin.result


def finish_deal(match):
    number = match.deal_number
    actions, _ = eager_actions(match.deal)
    for a in actions:
        match.apply(a)
    assert match.is_over or match.deal_number == number + 1
    return match.results[-1]


# ---- deal scoring ---------------------------------------------------------------------------------------------

OUT_HANDS = [["3H"], ["8C", "QD", "AS", "5C"], ["2D", "TC"]]  # 66 and 12


def test_penalty_out():
    deal = pos(rules(), OUT_HANDS, ["4D"], ["9H"])
    deal.apply(play("3H"))
    assert deal.result.points == [0, 66, 12]


@pytest.mark.parametrize("scoring", ["winner_collects"])
def test_winner_collects_out(scoring):
    deal = pos(rules(scoring=scoring), OUT_HANDS, ["4D"], ["9H"], to_play=0)
    deal.apply(play("3H"))
    assert deal.result.hand_values == [0, 66, 12] and deal.result.points == [78, 0, 0]


def test_hollywood_deal_points_winner_collects_hollywood_values():
    deal = pos(rules("hollywood"), [["3H"], ["8C", "QD", "AS", "5C"]], ["4D"], ["9H"])
    deal.apply(play("3H"))
    assert deal.result.hand_values == [0, 20 + 10 + 15 + 5] and deal.result.points == [50, 0]


BLOCK4 = [["3C"], ["2C", "AC"], ["TC"], ["KC", "3D"]]  # 3, 3, 10, 13


def test_blocked_each_own_penalty():
    assert blocked_deal(rules(), BLOCK4).points == [3, 3, 10, 13]


def test_blocked_penalty_lowest_collects_difference_writes_excess_over_lowest():
    assert blocked_deal(rules(blocked="lowest_collects_difference"), BLOCK4).points == [0, 0, 7, 10]


def test_blocked_winner_collects_each_own_scores_nothing():
    assert blocked_deal(rules(scoring="winner_collects"), BLOCK4).points == [0, 0, 0, 0]


def test_blocked_lowest_collects_difference_single_lowest():
    r = rules(scoring="winner_collects", blocked="lowest_collects_difference")
    assert blocked_deal(r, [["3C"], ["4C"], ["TC"], ["KC", "3D"]]).points == [1 + 7 + 10, 0, 0, 0]


def test_blocked_tie_split_halves_rounded_down():
    r = rules(scoring="winner_collects", blocked="lowest_collects_difference", blocked_tie="split")
    assert blocked_deal(r, BLOCK4).points == [8, 8, 0, 0]  # 17 split in halves, rounded down
    assert blocked_deal(r, [["3C"], ["2C", "AC"], ["3D"], ["KC", "9D"]]).points == [5, 5, 5, 0]  # 16 // 3


def test_blocked_tie_nobody():
    r = rules(scoring="winner_collects", blocked="lowest_collects_difference", blocked_tie="nobody")
    assert blocked_deal(r, BLOCK4).points == [0, 0, 0, 0]
    assert blocked_deal(r, [["3C"], ["4C"], ["TC"], ["KC", "3D"]]).points == [18, 0, 0, 0]


def test_points_game_blocked_tie_scores_nobody():
    r = rules("points-game")
    assert blocked_deal(r, [["3C"], ["2C", "AC"], ["TC"]]).points == [0, 0, 0]
    assert blocked_deal(r, [["3C"], ["4C"], ["TC"]]).points == [8, 0, 0]


# ---- match: targets, ends and places -----------------------------------------------------------------------------

@pytest.mark.parametrize("seats,target", [(2, 100), (3, 150), (5, 250), (7, 350)])
def test_target_per_seat_points_game(seats, target):
    r = rules("points-game")
    assert r.target_for(seats) == target
    assert MatchState.start(r, seats, 1).target == target
    assert MatchState.start(r, seats, 1).view(0)["target"] == target


def test_target_and_target_per_seat_overrides():
    assert MatchState.start(rules(target_per_seat=30), 4, 1).target == 120
    assert MatchState.start(rules("crazy-eights"), 3, 1).target == 300
    assert MatchState.start(rules("crazy-eights", target=500), 3, 1).target == 500


def test_standings_penalty_lowest_first_winner_collects_highest_first():
    m = MatchState.start(rules(), 3, 1)
    m.totals = [10, 30, 10]
    assert m.standings == [1, 3, 1]
    m = MatchState.start(rules(scoring="winner_collects"), 3, 1)
    m.totals = [10, 30, 10]
    assert m.standings == [2, 1, 2]


def _tied_at_target(r, seats=2, seed=3):
    """A match whose first deal ends with every total equal to the target (totals preset before the deal)."""
    m = MatchState.start(r, seats, seed)
    actions, result = eager_actions(m.deal)
    m.points = [m.target - p for p in result.points]
    for a in actions:
        m.apply(a)
    assert m.totals == [m.target] * seats
    return m


def test_match_tie_share_ends_with_a_shared_first_place():
    m = _tied_at_target(rules())
    assert m.is_over and m.standings == [1, 1]
    m = _tied_at_target(rules(scoring="winner_collects"), seats=3)
    assert m.is_over and m.standings == [1, 1, 1]


@pytest.mark.parametrize("scoring", ["penalty", "winner_collects"])
def test_match_tie_play_on_deals_until_one_seat_leads_alone(scoring):
    m = _tied_at_target(rules(scoring=scoring, match_tie="play_on"))
    assert not m.is_over and m.deal_number == 2
    while not m.is_over:
        finish_deal(m)
    assert m.standings.count(1) == 1
    assert max(m.totals) >= m.target


def test_partnership_standings_order_sides_and_partners_share():
    m = MatchState.start(rules(partnership=True), 4, 1)
    m.totals = [10, 50, 20, 0]  # sides 30 and 50: penalty, side 0+2 is first
    s = m.standings
    assert s[0] == s[2] == 1 and s[1] == s[3] > 1
    m = MatchState.start(rules(partnership=True, scoring="winner_collects"), 4, 1)
    m.totals = [10, 50, 20, 0]
    s = m.standings
    assert s[1] == s[3] == 1 and s[0] == s[2] > 1
    m.totals = [10, 50, 60, 20]  # sides level at 70: everybody shares first place
    assert m.standings == [1, 1, 1, 1]


def test_partnership_losing_side_is_second():
    m = MatchState.start(rules(partnership=True), 4, 1)
    m.totals = [10, 50, 20, 0]
    assert m.standings == [1, 2, 1, 2]


def test_partnership_match_ends_on_the_side_total():
    m = MatchState.start(rules(partnership=True), 4, 2)
    actions, result = eager_actions(m.deal)
    want = [60, 10, 50, 10]  # no seat at 100, side 0+2 at 110
    m.points = [w - p for w, p in zip(want, result.points)]
    for a in actions:
        m.apply(a)
    assert m.totals == want
    assert m.is_over
    s = m.standings
    assert s[1] == s[3] == 1 and s[0] == s[2] > 1


def test_partnership_winner_collects_side_scores():
    r = rules(partnership=True, scoring="winner_collects")
    deal = pos(r, [[], ["4H", "KC"], ["6H"], ["QC", "AD"]], ["3C"], ["5H"], to_play=2, out=[True] + [False] * 3)
    deal.apply(play("6H"))
    assert deal.result.points == [0, 0, 14 + 11, 0]


# ---- who deals and who leads --------------------------------------------------------------------------------------

def _first_winner_seed(r, seats, want):
    for seed in range(200):
        m = MatchState.start(r, seats, seed)
        if eager_actions(m.deal)[1].winner == want:
            return seed
    raise AssertionError("no seed")


def test_first_deal_dealer_is_the_last_seat_and_seat_0_leads():
    m = MatchState.start(rules("web-table"), 3, 5)
    assert m.deal.dealer == 2 and m.deal.to_play == 0


@pytest.mark.parametrize("first_player,rotates,dealer,leader", [
    ("previous_winner", True, 0, 2),
    ("left_of_dealer", True, 0, 1),
    ("left_of_dealer", False, 2, 0),
    ("previous_winner", False, 2, 2),
])
def test_first_player_and_dealer_rotates(first_player, rotates, dealer, leader):
    r = rules("web-table", first_player=first_player, dealer_rotates=rotates)
    seed = _first_winner_seed(r, 3, 2)
    m = MatchState.start(r, 3, seed)
    result = finish_deal(m)
    assert result.winner == 2 and m.deal_number == 2
    assert m.deal.dealer == dealer and m.deal.to_play == leader


def test_points_game_dealer_and_first_turn_pass_left():
    m = MatchState.start(rules("points-game", starter_eight="own_suit"), 3, 4)
    seen = []
    for _ in range(3):
        seen.append((m.deal.dealer, m.deal.to_play))
        finish_deal(m)
        if m.is_over:
            break
    assert seen[:3] == [(2, 0), (0, 1), (1, 2)][: len(seen)]


# ---- hollywood ----------------------------------------------------------------------------------------------------

def _hollywood(**kw):
    return MatchState.start(rules("hollywood", **kw), 2, 1).hollywood


def _scores(h):
    return [g["scores"] for g in h.open]


def test_hollywood_first_win_game_1_second_games_1_2_third_all():
    h = _hollywood()
    assert [g["game"] for g in h.open] == [1, 2, 3]
    h.add_deal([30, 0])  # seat 0's first deal won: game 1 only
    assert _scores(h) == [[30, 0], [0, 0], [0, 0]]
    h.add_deal([0, 40])  # seat 1's first: game 1 only
    assert _scores(h) == [[30, 40], [0, 0], [0, 0]]
    h.add_deal([25, 0])  # seat 0's second: games 1 and 2
    assert _scores(h) == [[55, 40], [25, 0], [0, 0]]
    h.add_deal([10, 0])  # third: all three
    assert _scores(h) == [[65, 40], [35, 0], [10, 0]]
    h.add_deal([5, 0])  # fourth and later: all three
    assert _scores(h) == [[70, 40], [40, 0], [15, 0]]
    h.add_deal([0, 0])  # a deal nobody scored counts for nobody
    assert h.deals_won == [4, 1]


def test_hollywood_game_ending_at_the_target_opens_a_new_one():
    h = _hollywood(hollywood_total_games=4)
    h.add_deal([60, 0])
    h.add_deal([30, 0])
    h.add_deal([20, 0])  # game 1 reaches 110
    assert h.games_won == [1, 0]
    assert [g["game"] for g in h.finished] == [1] and h.finished[0]["winner"] == 0
    assert [g["game"] for g in h.open] == [2, 3, 4]
    assert _scores(h) == [[50, 0], [20, 0], [0, 0]]
    h.add_deal([10, 0])  # the fourth win: every open game, the new one too
    assert _scores(h) == [[60, 0], [30, 0], [10, 0]]
    assert not h.is_over


def test_hollywood_no_new_game_past_the_agreed_number_and_the_match_end():
    m = MatchState.start(rules("hollywood"), 2, 1)
    h = m.hollywood
    h.add_deal([100, 0])
    assert [g["game"] for g in h.open] == [2, 3] and h.games_won == [1, 0]
    h.add_deal([0, 50])  # seat 1's first win: the first open game, now game 2
    assert _scores(h) == [[0, 50], [0, 0]]
    h.add_deal([0, 50])  # its second: the first two open games; game 2 ends
    assert h.games_won == [1, 1] and [g["game"] for g in h.open] == [3] and _scores(h) == [[0, 50]]
    assert not h.is_over and not m.is_over
    h.add_deal([100, 0])
    assert h.is_over and h.games_won == [2, 1] and h.open == []


def test_hollywood_target_reached_loses_when_configured():
    h = _hollywood(target_reached_wins=False)
    h.add_deal([100, 0])
    assert h.games_won == [0, 1] and h.finished[0]["winner"] == 1


def test_hollywood_match_plays_through_the_deals():
    m = MatchState.start(rules("hollywood"), 2, 7)
    assert m.target == 100 and m.view(0)["hollywood"]["games_won"] == [0, 0]
    result = finish_deal(m)
    winner = max((0, 1), key=lambda s: result.points[s])
    if result.points[winner] > 0:
        scores = [g["scores"][winner] for g in m.hollywood.open]
        assert scores == [result.points[winner], 0, 0]
    while not m.is_over:
        finish_deal(m)
    h = m.hollywood
    assert len(h.finished) == 3 and h.open == [] and m.totals == h.games_won and sum(m.totals) == 3
    assert m.standings == ([1, 2] if m.totals[0] > m.totals[1] else [2, 1])
    for game in h.finished:
        assert max(game["scores"]) >= 100


def test_hollywood_needs_two_seats():
    with pytest.raises(ValueError, match="hollywood"):
        MatchState.start(rules("hollywood", seats_max=3), 3, 1)



def test_a_forfeit_puts_the_seat_last_and_keeps_the_others_order_and_ties():
    state = MatchState.start(Ruleset.preset("pagat"), 4, 1)
    state.totals = [30, 10, 10, 50]  # penalty scoring: seats 1 and 2 share first place
    assert state.standings == [3, 1, 1, 4]
    assert state.standings_after_forfeit(1) == [2, 4, 1, 3]
    assert state.standings_after_forfeit(3) == [3, 1, 1, 4]
