"""Action cards and their options on hand-built positions: ``twos`` (stack / winding), ``queen_of_spades_draw``,
``skip_rank``, ``reverse_rank`` with ``reverse_two_seats``, ``last_card_penalty``, ``action_on_going_out`` and
``partnership`` (RULES.md A A2 A3 C D E and "Our readings"), with their IllegalAction messages."""

import random

import pytest

from eights_engine import Deal

from engine_test_helpers import ANNOUNCE, DRAW, PASS, assert_illegal, play, pos, rules, run

STACK = rules(twos="stack")
WIND = rules(twos="winding")
QUEEN = rules(queen_of_spades_draw=5)
STOCK = ["3C", "4C", "5C", "6C", "7C", "9C", "TC", "JC", "KC", "3D", "4D", "5D", "6D", "7D", "9D", "TD",
         "JD", "KD", "QC", "QD", "AC", "AD"]


# ---- twos: stack -------------------------------------------------------------------------------------------

def test_stack_the_victim_answers_with_a_two_and_the_sum_accumulates():
    deal = pos(STACK, [["2C", "9H"], ["2H", "8S", "5C"], ["2S", "KD", "3H"]], list(STOCK), ["7C"])
    deal.apply(play("2C"))
    assert deal.to_play == 1 and deal.pending_draw == 2 and deal.view(1)["pending_draw"] == 2
    assert deal.legal_actions() == [play("2H"), DRAW]  # the 5C would follow suit, the eight is no answer
    deal.apply(play("2H"))
    assert deal.to_play == 2 and deal.pending_draw == 4
    assert deal.legal_actions() == [play("2S"), DRAW]
    deal.apply(play("2S"))
    assert deal.to_play == 0 and deal.pending_draw == 6
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)  # the whole sum, and the turn is missed
    assert len(deal.hand(0)) == 1 + 6
    assert deal.history[-1] == {"seat": 0, "type": "draw", "count": 6, "penalty": True}
    assert deal.to_play == 1 and deal.pending_draw == 0
    assert deal.drawn_this_turn == 0
    # the next seat plays on the two as on any card, no penalty pending
    assert deal.legal_actions()[-1] == DRAW
    assert play("5C") not in deal.legal_actions() and play("8S", "H") in deal.legal_actions()


def test_stack_a_new_two_after_the_penalty_starts_again_at_two():
    deal = pos(STACK, [["2C", "2D", "9H"], ["KH", "5S"]], list(STOCK), ["7C"])
    run(deal, [(0, play("2C")), (1, DRAW), (0, play("2D"))])
    assert deal.pending_draw == 2


def test_stack_an_eight_is_no_answer_messages():
    deal = pos(STACK, [["9H"], ["2H", "8S", "5C"]], list(STOCK), ["7C", "2C"], to_play=1, pending_draw=2)
    assert deal.legal_actions() == [play("2H"), DRAW]
    assert_illegal(deal, play("8S", "C"), "seat 1 must draw the 2 penalty cards or answer with a two",
                   "an eight is no answer to a two")
    msg = assert_illegal(deal, play("5C"), "must draw the 2 penalty cards or answer with a two")
    assert "eight" not in msg
    assert_illegal(deal, PASS, "must draw the 2 penalty cards")
    assert_illegal(deal, ANNOUNCE, "must draw the 2 penalty cards")


def test_stack_an_eight_is_no_answer_under_no_declare_either():
    r = rules(twos="stack", eights="no_declare")
    deal = pos(r, [["9H"], ["8S", "5C"]], list(STOCK), ["7C", "2C"], to_play=1, pending_draw=2)
    assert deal.legal_actions() == [DRAW]
    assert_illegal(deal, play("8S"), "an eight is no answer to a two")


@pytest.mark.parametrize("empty_stock,count", [("reshuffle", 3), ("pass", 1)])
def test_stack_the_stock_cannot_cover_the_sum_draws_what_there_is(empty_stock, count):
    r = rules(twos="stack", empty_stock=empty_stock)
    deal = pos(r, [["9H"], ["KH"]], ["3D"], ["9C", "KC", "2C"], pending_draw=4)
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)
    assert deal.history[-1] == {"seat": 0, "type": "draw", "count": count, "penalty": True}
    assert len(deal.hand(0)) == 1 + count
    assert deal.stock_count == 0 and deal.top_card == "2C"
    assert deal.to_play == 1 and deal.pending_draw == 0


def test_stack_penalty_is_taken_even_with_nothing_to_draw():
    deal = pos(STACK, [["9H"], ["KH"]], [], ["2C"], pending_draw=2)
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)
    assert deal.history[-1]["count"] == 0 and deal.to_play == 1


# ---- twos: winding -----------------------------------------------------------------------------------------

def test_winding_2_4_6_8_and_no_more():
    # the fifth two is a second copy (double deck)
    deal = pos(WIND, [["2C", "2D", "2H", "2S", "2C", "9C"], ["2D", "KH"]], list(STOCK) * 2, ["7C"])
    expected = [2, 4, 6, 8, 8]
    for two, want in zip(["2C", "2D", "2H", "2S", "2C"], expected):
        assert deal.to_play == 0
        deal.apply(play(two))
        assert deal.to_play == 1 and deal.pending_draw == want, two
        assert deal.legal_actions() == [DRAW]  # winding twos cannot be answered
        msg = assert_illegal(deal, play("2D"), f"seat 1 must draw the {want} penalty cards")
        assert "answer" not in msg
        size = len(deal.hand(1))
        deal.apply(DRAW)
        assert len(deal.hand(1)) == size + want
        assert deal.history[-1] == {"seat": 1, "type": "draw", "count": want, "penalty": True}


def test_winding_run_goes_on_across_seats():
    deal = pos(WIND, [["2C", "9C"], ["KH", "4S"], ["2D", "5S"]], list(STOCK), ["7C"])
    run(deal, [(0, play("2C")), (1, DRAW), (2, play("2D"))])
    assert deal.to_play == 0 and deal.pending_draw == 4


def test_winding_run_broken_by_a_non_two_play():
    deal = pos(WIND, [["2C", "5C", "2D", "KS"], ["5D", "QH", "JH"]], list(STOCK), ["7C"])
    run(deal, [(0, play("2C")), (1, DRAW), (0, play("5C")), (1, play("5D")), (0, play("2D"))])
    assert deal.pending_draw == 2


def test_winding_from_position_twos_run():
    deal = pos(WIND, [["9H", "KS"], ["2S", "4D"]], list(STOCK), ["7C", "2H"], pending_draw=4, twos_run=2)
    deal.apply(DRAW)
    assert deal.history[-1]["count"] == 4 and deal.to_play == 1
    deal.apply(play("2S"))
    assert deal.pending_draw == 6


# ---- queen of spades -----------------------------------------------------------------------------------------

def test_queen_of_spades_draw_five_cannot_be_answered():
    r = rules(queen_of_spades_draw=5, twos="stack")
    deal = pos(r, [["QS", "4C"], ["QH", "2S", "8D", "3S"], ["KS", "5S"]], list(STOCK), ["9S"])
    deal.apply(play("QS"))
    assert deal.to_play == 1 and deal.pending_draw == 5
    assert deal.legal_actions() == [DRAW]
    msg = assert_illegal(deal, play("QH"), "seat 1 must draw the 5 penalty cards")
    assert "answer" not in msg
    assert "answer" not in assert_illegal(deal, play("2S"), "must draw the 5 penalty cards")
    assert_illegal(deal, play("8D", "S"), "must draw the 5 penalty cards")
    deal.apply(DRAW)
    assert deal.history[-1] == {"seat": 1, "type": "draw", "count": 5, "penalty": True}
    assert len(deal.hand(1)) == 9
    assert deal.to_play == 2  # the victim missed its turn


def test_queen_of_spades_off_is_a_plain_card():
    deal = pos(rules(), [["QS", "4C"], ["3S"], ["KS"]], list(STOCK), ["9S"])
    deal.apply(play("QS"))
    assert deal.to_play == 1 and deal.pending_draw == 0 and deal.legal_actions()[0] == play("3S")


def test_other_queens_draw_nothing():
    deal = pos(QUEEN, [["QH", "4C"], ["3H"], ["KS"]], list(STOCK), ["9H"])
    deal.apply(play("QH"))
    assert deal.pending_draw == 0 and deal.to_play == 1


def test_queen_of_spades_does_not_also_skip_under_skip_rank_q():
    r = rules(queen_of_spades_draw=5, skip_rank="Q")
    deal = pos(r, [["QS", "4C"], ["3S"], ["KS"]], list(STOCK), ["9S"])
    deal.apply(play("QS"))
    assert deal.to_play == 1
    deal.apply(DRAW)
    assert deal.to_play == 2


# ---- skip rank ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rank", ["J", "Q"])
def test_skip_two_players_same_seat_again(rank):
    deal = pos(rules(skip_rank=rank), [[rank + "H", "4C", "5H"], ["3H"]], list(STOCK), ["9H"])
    deal.apply(play(rank + "H"))
    assert deal.to_play == 0 and deal.drawn_this_turn == 0
    assert deal.legal_actions()[0] == play("5H")


@pytest.mark.parametrize("rank,other", [("J", "Q"), ("Q", "J")])
def test_skip_three_players_skips_one_and_only_the_skip_rank(rank, other):
    r = rules(skip_rank=rank)
    deal = pos(r, [[rank + "H", "4C"], ["3H"], ["KH"]], list(STOCK), ["9H"])
    deal.apply(play(rank + "H"))
    assert deal.to_play == 2
    deal = pos(r, [[other + "H", "4C"], ["3H"], ["KH"]], list(STOCK), ["9H"])
    deal.apply(play(other + "H"))
    assert deal.to_play == 1


def test_skip_follows_the_direction():
    deal = pos(rules(skip_rank="J"), [["JH", "4C"], ["3H"], ["KH"], ["5H"]], list(STOCK), ["9H"], direction=-1)
    deal.apply(play("JH"))
    assert deal.to_play == 2  # 0 -> (3 skipped) -> 2


def test_no_skip_rank_jack_is_plain():
    deal = pos(rules(), [["JH", "4C"], ["3H"]], list(STOCK), ["9H"])
    deal.apply(play("JH"))
    assert deal.to_play == 1


# ---- reverse --------------------------------------------------------------------------------------------------

def test_reverse_three_players_flips_direction():
    r = rules(reverse_rank="A")
    deal = pos(r, [["AH", "4C"], ["3H", "AS"], ["KH", "5H"]], list(STOCK), ["9H"])
    deal.apply(play("AH"))
    assert deal.direction == -1 and deal.view(1)["direction"] == -1
    assert deal.to_play == 2
    deal.apply(play("KH"))
    assert deal.to_play == 1
    deal.apply(play("3H"))
    assert deal.to_play == 0  # still counter-clockwise


def test_reverse_again_flips_back():
    r = rules(reverse_rank="A")
    deal = pos(r, [["AH", "4C"], ["3H", "AS"], ["KH", "AC", "5C"]], list(STOCK), ["9H"])
    run(deal, [(0, play("AH")), (2, play("AC"))])
    assert deal.direction == 1 and deal.to_play == 0


def test_reverse_two_seats_skip_plays_again():
    deal = pos(rules(reverse_rank="A"), [["AH", "4C", "5H"], ["3H"]], list(STOCK), ["9H"])
    deal.apply(play("AH"))
    assert deal.to_play == 0 and deal.direction == 1


def test_reverse_two_seats_noop_other_seat():
    deal = pos(rules(reverse_rank="A", reverse_two_seats="noop"), [["AH", "4C", "5H"], ["3H"]], list(STOCK), ["9H"])
    deal.apply(play("AH"))
    assert deal.to_play == 1


def test_no_reverse_rank_ace_is_plain():
    deal = pos(rules(), [["AH", "4C"], ["3H"], ["KH"]], list(STOCK), ["9H"])
    deal.apply(play("AH"))
    assert deal.to_play == 1 and deal.direction == 1


# ---- last card ----------------------------------------------------------------------------------------------------

LAST = rules(last_card_penalty=2)


def test_announce_then_play_down_to_one_card_costs_nothing():
    deal = pos(LAST, [["3H", "9C"], ["4D"]], ["KS", "QS", "JS"], ["5H"])
    assert deal.legal_actions() == [play("3H"), DRAW, ANNOUNCE]
    deal.apply(ANNOUNCE)
    assert deal.to_play == 0 and deal.ply == 1
    assert deal.history[-1] == {"seat": 0, "type": "announce"}
    assert ANNOUNCE not in deal.legal_actions()
    assert_illegal(deal, ANNOUNCE, "already announced your last card")
    deal.apply(play("3H"))
    assert deal.hand(0) == ["9C"] and deal.to_play == 1 and deal.stock_count == 3


def test_not_announcing_draws_two():
    deal = pos(LAST, [["3H", "9C"], ["4D"]], ["KS", "QS", "JS"], ["5H"])
    deal.apply(play("3H"))
    assert sorted(deal.hand(0)) == ["9C", "KS", "QS"]
    assert deal.history[-2:] == [{"seat": 0, "type": "play", "card": "3H"},
                                 {"seat": 0, "type": "penalty", "count": 2}]
    assert deal.to_play == 1


def test_announce_is_legal_only_with_two_cards_and_a_play():
    deal = pos(LAST, [["3H", "9C", "4S"], ["4D"]], ["KS"], ["5H"])
    assert ANNOUNCE not in deal.legal_actions()
    assert_illegal(deal, ANNOUNCE, "announce only when you hold two cards and are about to play one of them")
    deal = pos(LAST, [["3C", "9C"], ["4D"]], ["KS"], ["5H"])
    assert deal.legal_actions() == [DRAW]
    assert_illegal(deal, ANNOUNCE, "announce only when you hold two cards")
    deal = pos(LAST, [["3H"], ["4D"]], ["KS"], ["5H"])
    assert ANNOUNCE not in deal.legal_actions()
    deal.apply(play("3H"))  # going out needs no announcement
    assert deal.is_over and deal.result.winner == 0


def test_announce_after_drawing_to_two_cards():
    deal = pos(LAST, [["9C"], ["4D"]], ["3H", "KS", "QS"], ["5H"])
    deal.apply(DRAW)  # 3H fits
    assert deal.legal_actions() == [play("3H"), PASS, ANNOUNCE]


def test_announcement_lapses_with_the_turn():
    deal = pos(LAST, [["3H", "9C"], ["4D", "4H", "6D"]], ["KS", "QS", "JS"], ["5H"])
    deal.apply(ANNOUNCE)
    deal.apply(DRAW)  # KS does not fit: the turn ends
    assert deal.to_play == 1 and deal.view(0)["announced"] is False


def test_no_last_card_penalty_by_default():
    deal = pos(rules(), [["3H", "9C"], ["4D"]], ["KS", "QS"], ["5H"])
    assert ANNOUNCE not in deal.legal_actions()
    deal.apply(play("3H"))
    assert deal.hand(0) == ["9C"]


def test_answering_a_two_down_to_one_card_can_be_announced():
    r = rules(last_card_penalty=2, twos="stack")
    deal = pos(r, [["9H"], ["2S", "9C"]], list(STOCK), ["7C", "2C"], to_play=1, pending_draw=2)
    assert ANNOUNCE in deal.legal_actions()
    deal.apply(ANNOUNCE)
    deal.apply(play("2S"))
    assert deal.hand(1) == ["9C"]


# ---- going out on an action card -----------------------------------------------------------------------------

@pytest.mark.parametrize("card,r", [("2H", rules(twos="stack", scoring="winner_collects")),
                                    ("2H", rules(twos="winding", scoring="winner_collects")),
                                    ("QS", rules(queen_of_spades_draw=5, scoring="winner_collects"))])
def test_going_out_on_an_action_card_void_by_default(card, r):
    deal = pos(r, [[card], ["KC", "5D"]], list(STOCK), ["7H"] if card == "2H" else ["9S"])
    deal.apply(play(card))
    assert deal.is_over and deal.result.winner == 0
    assert deal.hand(1) == ["KC", "5D"]  # code order: clubs first
    assert deal.result.hand_values == [0, 15] and deal.result.points == [15, 0]
    assert deal.stock_count == len(STOCK)


@pytest.mark.parametrize("card,count,discard", [("2H", 2, ["7H"]), ("QS", 5, ["9S"])])
def test_going_out_on_an_action_card_apply(card, count, discard):
    r = rules(twos="stack", queen_of_spades_draw=5, scoring="winner_collects", action_on_going_out="apply")
    deal = pos(r, [[card], ["KC", "5D"]], list(STOCK), discard)
    deal.apply(play(card))
    assert deal.is_over and deal.result.winner == 0
    drawn = STOCK[:count]
    assert sorted(deal.hand(1)) == sorted(["KC", "5D"] + drawn)
    assert deal.history[-1] == {"seat": 1, "type": "penalty", "count": count}
    value = 15 + sum(int(c[0]) if c[0].isdigit() else 10 for c in drawn)
    assert deal.result.hand_values == [0, value] and deal.result.points == [value, 0]


def test_going_out_on_a_skip_or_reverse_just_ends_the_deal():
    for r in (rules(skip_rank="J", action_on_going_out="apply"), rules(reverse_rank="A", action_on_going_out="apply")):
        card = "JH" if r.skip_rank else "AH"
        deal = pos(r, [[card], ["KC"], ["4C"]], list(STOCK), ["9H"])
        deal.apply(play(card))
        assert deal.is_over and deal.result.winner == 0 and deal.result.points == [0, 10, 4]


# ---- partnership ---------------------------------------------------------------------------------------------------

PARTNERS = rules(partnership=True)
PARTNERS_WC = rules(partnership=True, scoring="winner_collects")


def test_partnership_needs_four_seats():
    with pytest.raises(ValueError, match="partnership"):
        pos(PARTNERS, [["3H"], ["4D"], ["5C"]], [], ["5H"])


def test_partnership_seat_out_is_skipped_and_the_deal_ends_when_both_partners_are_out():
    deal = pos(PARTNERS_WC, [["3H"], ["4H", "KC"], ["6H", "9H"], ["7H", "QC", "AD"]], list(STOCK), ["5H"])
    deal.apply(play("3H"))
    assert not deal.is_over
    assert deal.out == [True, False, False, False] and deal.view(2)["out"] == [True, False, False, False]
    run(deal, [(1, play("4H")), (2, play("6H")), (3, play("7H"))])
    assert deal.to_play == 1  # seat 0 is out: skipped
    run(deal, [(1, DRAW)])  # 3C: no fit, turn ends
    assert deal.to_play == 2
    deal.apply(play("9H"))
    assert deal.is_over and deal.result.outcome == "out" and deal.result.winner == 2
    # side 0+2 collects side 1+3's hands, written to the seat whose going out completed the side
    assert deal.result.hand_values == [0, 13, 0, 11]
    assert deal.result.points == [0, 0, 24, 0]


def test_partnership_penalty_points_stay_with_each_seat():
    deal = pos(PARTNERS, [["3H"], ["4D", "KC"], ["6H"], ["QC", "AD"]], list(STOCK), ["5H"], out=[False] * 4)
    run(deal, [(0, play("3H")), (1, DRAW)])
    assert not deal.is_over
    deal = pos(PARTNERS, [[], ["4D", "KC"], ["6H"], ["QC", "AD"]], list(STOCK), ["5H"], to_play=2,
               out=[True, False, False, False])
    deal.apply(play("6H"))
    assert deal.is_over and deal.result.points == [0, 14, 0, 11]


def test_partnership_one_partner_out_does_not_end_and_action_effects_apply():
    deal = pos(rules(partnership=True, twos="stack"), [["2H"], ["4D", "KC"], ["6H"], ["QC", "AD"]],
               list(STOCK), ["5H"])
    deal.apply(play("2H"))  # seat 0 out; the deal goes on and the two takes effect
    assert not deal.is_over and deal.to_play == 1 and deal.pending_draw == 2


def test_partnership_skip_and_reverse_count_active_seats_only():
    r = rules(partnership=True, skip_rank="J", reverse_rank="A")
    out = [False, True, False, False]
    deal = pos(r, [["JH", "4C"], [], ["KH"], ["5H"]], list(STOCK), ["9H"], out=out)
    deal.apply(play("JH"))
    assert deal.to_play == 3  # 0 -> (1 out) -> 2 skipped -> 3
    deal = pos(r, [["AH", "4C"], [], ["KH"], ["5H"]], list(STOCK), ["9H"], out=out)
    deal.apply(play("AH"))  # three active seats: the direction flips
    assert deal.direction == -1 and deal.to_play == 3
    deal = pos(r, [["AH", "4C"], [], [], ["5H"]], list(STOCK), ["9H"], out=[False, True, True, False])
    deal.apply(play("AH"))  # two active seats: reverse_two_seats="skip", the same seat plays again
    assert deal.to_play == 0 and deal.direction == 1


def test_partnership_blocked_when_every_active_seat_passes():
    deal = pos(PARTNERS, [["3C"], [], ["KC"], ["4C", "2D"]], [], ["5H"], out=[False, True, False, False])
    deal.apply(PASS)
    deal.apply(PASS)
    assert not deal.is_over
    deal.apply(PASS)
    assert deal.is_over and deal.result.outcome == "blocked" and deal.result.points == [3, 0, 10, 6]


def test_partnership_blocked_lowest_side_collects_difference():
    r = rules(partnership=True, scoring="winner_collects", blocked="lowest_collects_difference")
    deal = pos(r, [["3C"], ["TC"], ["KC"], ["4C", "2D"]], [], ["5H"])
    for _ in range(4):
        deal.apply(PASS)
    # sides: 0+2 = 13, 1+3 = 16: side 0 collects 3, written to its lower seat
    assert deal.result.outcome == "blocked" and deal.result.points == [3, 0, 0, 0]
    deal = pos(r, [["TC"], ["3C"], ["KC"], ["4C", "2D"]], [], ["5H"])
    for _ in range(4):
        deal.apply(PASS)
    # sides 20 vs 9: side 1 collects 11 on seat 1
    assert deal.result.points == [0, 11, 0, 0]



# ---- partnership: a seat that is out never acts (issue 9, fault 3) -------------------------------------------------

REVERSE_PARTNERS = rules(partnership=True, reverse_rank="A")


def test_partnership_going_out_on_a_reverse_with_two_seats_left_skips_the_next_seat_in_play():
    # seat 1 (opponent) is already out; seat 0 goes out on a reverse, leaving seats 2 and 3 in play. With two
    # seats in play the reverse acts as a skip (reverse_two_seats="skip"): seat 0 cannot play again, so the next
    # seat in play (2) misses its turn and seat 3 plays. Before the fix seat 0 got the turn with an empty hand.
    deal = pos(REVERSE_PARTNERS, [["AH"], [], ["KH"], ["5H", "6C"]], list(STOCK), ["9H"],
               out=[False, True, False, False])
    deal.apply(play("AH"))
    assert not deal.is_over and deal.out == [True, True, False, False]
    assert deal.to_play == 3 and deal.direction == 1
    assert deal.view(3)["to_play"] == 3 and deal.legal_actions() == [play("5H"), DRAW]
    run(deal, [(3, play("5H")), (2, play("KH"))])
    assert deal.is_over and deal.result.winner == 2  # seats 0 and 2 are out: their side won; 0 never acted again


def test_partnership_going_out_on_a_reverse_noop_with_two_seats_left_passes_to_the_next_seat_in_play():
    deal = pos(rules(partnership=True, reverse_rank="A", reverse_two_seats="noop"),
               [["AH"], [], ["KH", "4C"], ["5H", "6C"]], list(STOCK), ["9H"], out=[False, True, False, False])
    deal.apply(play("AH"))
    assert deal.to_play == 2 and deal.direction == 1


@pytest.mark.parametrize("options, card, to_play, direction, pending", [
    ({"reverse_rank": "A"}, "AH", 3, -1, 0),  # three seats in play: the direction flips, 3 plays
    ({"skip_rank": "J"}, "JH", 2, 1, 0),  # 1 is skipped
    ({"skip_rank": "Q", "queen_of_spades_draw": 5}, "QS", 1, 1, 5),  # Q♠ draws five and does not also skip
    ({"twos": "stack"}, "2H", 1, 1, 2),
    ({"twos": "winding"}, "2H", 1, 1, 2),
])
def test_partnership_going_out_on_an_action_card_hands_the_turn_to_a_seat_in_play(options, card, to_play, direction,
                                                                                  pending):
    deal = pos(rules(partnership=True, **options), [[card], ["3H", "4C"], ["KH", "4D"], ["5H", "6C"]],
               list(STOCK), ["9H" if card != "QS" else "9S"])
    deal.apply(play(card))
    assert (deal.to_play, deal.direction, deal.pending_draw) == (to_play, direction, pending)
    assert not deal.out[deal.to_play] and deal.hand(deal.to_play)


@pytest.mark.parametrize("seed", range(8))
def test_partnership_random_deals_the_seat_to_play_is_never_out(seed):
    """Random partnership deals with reverse, skip and penalty cards: while the deal runs, the seat to play is in
    play and holds cards (RULES.md A: the deal goes on until both partners of a side are out; a seat that is out
    never acts again)."""
    mixes = [{"reverse_rank": "A"}, {"reverse_rank": "A", "skip_rank": "J"},
             {"reverse_rank": "A", "twos": "stack", "queen_of_spades_draw": 5, "skip_rank": "Q"},
             {"reverse_rank": "A", "reverse_two_seats": "noop", "twos": "winding"},
             {"reverse_rank": "A", "skip_rank": "J", "action_on_going_out": "apply"}]
    rng = random.Random(seed)
    for number in range(60):
        preset = rng.choice(["pagat", "crazy-eights", "points-game", "eights-classic", "no-draw"])
        deal = Deal.start(rules(preset, partnership=True, **rng.choice(mixes)), 4, rng.getrandbits(63),
                          dealer=number % 4)
        while not deal.is_over:
            seat = deal.to_play
            assert not deal.out[seat] and deal.hand(seat), (preset, deal.history)
            deal.apply_id(rng.choice(deal.legal_ids()))


# ---- going out on an eight needs no suit (issue 9, fault 7) --------------------------------------------------------

def test_going_out_on_an_eight_needs_no_suit_and_a_named_suit_is_still_accepted():
    deal = pos(rules(), [["8C"], ["3H", "4C"]], list(STOCK), ["KH"])
    deal.apply(play("8C"))  # nobody follows the suit of a deal-ending eight: taken as its own suit
    assert deal.is_over and deal.result.winner == 0
    assert deal.history[-1] == {"seat": 0, "type": "play", "card": "8C", "suit": "C"}
    deal = pos(rules(), [["8C"], ["3H", "4C"]], list(STOCK), ["KH"])
    deal.apply(play("8C", "S"))  # old records name a suit: still accepted
    assert deal.is_over and deal.result.winner == 0


def test_an_eight_that_does_not_end_the_deal_still_needs_a_suit():
    assert_illegal(pos(rules(), [["8C", "3C"], ["3H", "4C"]], list(STOCK), ["KH"]), play("8C"),
                   "needs a declared suit")
    # partnership: the partner is still in, so the next seat follows the suit
    partners = pos(rules(partnership=True), [["8C"], ["3H"], ["4C"], ["5C"]], list(STOCK), ["KH"])
    assert_illegal(partners, play("8C"), "needs a declared suit")
    partners = pos(rules(partnership=True), [["8C"], ["3H"], [], ["5C"]], list(STOCK), ["KH"],
                   out=[False, False, True, False])
    partners.apply(play("8C"))
    assert partners.is_over and partners.result.winner == 0
    # go_out_on_eight=False: the last eight cannot be played at all
    assert_illegal(pos(rules(go_out_on_eight=False), [["8C"], ["3H"]], list(STOCK), ["KH"]), play("8C"),
                   "going out on an eight is not allowed")
