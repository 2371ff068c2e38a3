"""Dealing and play options other than the draw rules and action cards: ``decks``, ``ranks``, ``hand_size``,
``starter_eight``, ``eights``, ``go_out_on_eight``, ``card_values``, ``seats_min``/``seats_max``, ``ply_limit``;
and the integer fast path (``legal_ids`` / ``apply_id`` / ``ACTIONS``) under every option.

Hand-built positions (``Deal.from_position``) or ``Deal.start`` with seeds searched in a fixed range.
"""

import random
from collections import Counter

import pytest

from engine_test_helpers import (
    DRAW, PASS, all_cards, assert_illegal, cards_played, declare, full_deck, play, plays_of, pos, rules,
    seed_where, snapshot, stock_codes,
)
from eights_engine import Deal, IllegalAction
from eights_engine.cards import parse_card
from eights_engine.deal import ACTIONS

PAGAT = rules()


# ---- decks -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seats,cards", [(2, 52), (5, 52), (6, 104), (7, 104), (8, 104)])
def test_auto_decks_double_at_six_to_eight_seats(seats, cards):
    deal = Deal.start(rules("eights-classic"), seats, 11)
    assert len(all_cards(deal)) == cards == len(full_deck(deal))
    assert all_cards(deal) == full_deck(deal)
    assert [len(deal.hand(s)) for s in range(seats)] == [5 if seats > 2 else 7] * seats
    if cards == 104:
        assert set(Counter(all_cards(deal)).values()) == {2}


@pytest.mark.parametrize("decks,seats,cards", [(1, 6, 52), (1, 8, 52), (2, 2, 104), (2, 4, 104)])
def test_fixed_decks(decks, seats, cards):
    deal = Deal.start(rules(decks=decks), seats, 5)
    assert len(all_cards(deal)) == cards
    per_hand = 7 if seats == 2 else 5
    assert deal.stock_count == cards - per_hand * seats - 1


def test_double_deck_a_hand_may_hold_both_copies_of_a_card():
    seed = seed_where(PAGAT, 6, lambda d: any(len(set(d.hand(s))) < 5 for s in range(6)), limit=2000)
    deal = Deal.start(PAGAT, 6, seed)
    seat = next(s for s in range(6) if len(set(deal.hand(s))) < 5)
    hand = deal.hand(seat)
    twice = [c for c, n in Counter(hand).items() if n == 2]
    assert twice and deal.view(seat)["hand_counts"][seat] == 5 and len(hand) == 5
    assert hand == sorted(hand, key=parse_card)


def test_double_deck_duplicate_is_listed_once_and_played_one_copy_at_a_time():
    deal = pos(rules(decks=2), [["5H", "5H", "KC"], ["3D"]], ["9S", "4D"], ["5D"])
    assert plays_of(deal) == [play("5H")]
    deal.apply(play("5H"))
    assert deal.hand(0) == ["KC", "5H"] and deal.top_card == "5H"
    deal.apply(DRAW)  # seat 1: 9S does not fit
    assert play("5H") in deal.legal_actions()
    deal.apply(play("5H"))
    assert deal.hand(0) == ["KC"]
    assert [c for c in deal.discard] == [parse_card("5D"), parse_card("5H"), parse_card("5H")]


# ---- ranks 36 ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 5])
def test_ranks_36_deck_is_six_to_ace(seats):
    deal = Deal.start(rules("russian-36"), seats, 3)
    cards = all_cards(deal)
    assert len(cards) == 36 and len(set(cards)) == 36
    assert {c % 13 for c in cards} == {0, 5, 6, 7, 8, 9, 10, 11, 12}  # A 6 7 8 9 T J Q K
    assert [len(deal.hand(s)) for s in range(seats)] == [5] * seats
    assert deal.stock_count == 36 - 5 * seats - 1


def test_ranks_36_with_double_deck_at_six_seats():
    deal = Deal.start(rules("russian-36"), 6, 3)  # decks "auto": two 36-card decks at 6 seats
    assert len(all_cards(deal)) == 72 and set(Counter(all_cards(deal)).values()) == {2}
    assert len(all_cards(Deal.start(rules("russian-36", decks=1), 6, 3))) == 36


@pytest.mark.parametrize("twos", ["stack", "winding"])
def test_ranks_36_with_twos_is_invalid(twos):
    with pytest.raises(ValueError, match="'twos'"):
        rules(ranks="36", twos=twos)
    with pytest.raises(ValueError, match="'twos'"):
        rules("russian-36", twos=twos)


def test_hand_too_big_for_the_36_card_deck():
    with pytest.raises(ValueError, match="hand_size 9 for 4 seats needs 37 cards; the deck has 36"):
        Deal.start(rules(ranks="36", hand_size=9), 4, 1)


# ---- hand_size -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size,seats,per_hand", [("auto", 2, 7), ("auto", 3, 5), ("auto", 8, 5), (6, 2, 6),
                                                 (6, 4, 6), (1, 3, 1), (10, 5, 10)])
def test_hand_size(size, seats, per_hand):
    r = rules(hand_size=size, starter_eight="own_suit")
    deal = Deal.start(r, seats, 9)
    assert [len(deal.hand(s)) for s in range(seats)] == [per_hand] * seats
    assert deal.stock_count == len(full_deck(deal)) - per_hand * seats - 1
    assert len(deal.discard) == 1


def test_hand_size_too_large():
    with pytest.raises(ValueError, match="needs 53 cards"):
        Deal.start(rules(hand_size=13), 4, 1)


def test_hand_size_all_no_stock_no_starter_leader_plays_any_card():
    deal = Deal.start(rules("no-draw"), 4, 7, dealer=2)
    assert [len(deal.hand(s)) for s in range(4)] == [13] * 4
    assert deal.stock_count == 0 and deal.discard == [] and deal.top_card is None and deal.active_suit is None
    assert not deal.awaiting_declaration and deal.to_play == 3
    hand = deal.hand(3)
    expected = []
    for card in hand:
        expected += [play(card, s) for s in "CDHS"] if card[0] == "8" else [play(card)]
    assert deal.legal_actions() == expected
    assert_illegal(deal, DRAW, "nothing to draw")
    assert_illegal(deal, PASS, "cannot pass while you can play")
    card = next(c for c in hand if c[0] != "8")
    deal.apply(play(card))
    assert deal.top_card == card and deal.to_play == 0


def test_hand_size_all_three_seats_deals_from_the_left_of_the_dealer():
    deal = Deal.start(rules(hand_size="all"), 3, 4, dealer=0)
    assert [len(deal.hand(s)) for s in range(3)] == [17, 18, 17]
    assert deal.to_play == 1


def test_no_draw_unable_to_play_passes_and_all_passing_blocks():
    r = rules("no-draw")
    deal = pos(r, [["2C", "3C"], ["4D", "KD"], ["AC"], ["9H", "TS"]], [], ["5S", "6H", "7S"])
    assert deal.legal_actions() == [PASS]
    for seat in range(3):
        assert deal.to_play == seat and deal.legal_actions() == [PASS]
        deal.apply(PASS)
    assert deal.to_play == 3 and deal.legal_actions() == [play("TS")]
    deal = pos(r, [["2C", "3C"], ["4D", "KD"], ["AC"], ["9H", "JD"]], [], ["5S", "6H", "7S"])
    for _ in range(4):
        deal.apply(PASS)
    r_ = deal.result
    assert r_.outcome == "blocked" and r_.hand_values == [5, 14, 1, 19]
    # no-draw: winner collects, blocked: the lowest collects the differences
    assert r_.points == [0, 0, 4 + 13 + 18, 0]


# ---- starter eight -------------------------------------------------------------------------------------------

def _starter_eight_seed(seats=3):
    """A seed whose first turned card is an eight, and whose next stock card is not."""
    return seed_where(PAGAT, seats, lambda d: d.awaiting_declaration and d.stock and d.stock[-1] % 13 != 7,
                      limit=5000)


def test_starter_eight_dealer_declares():
    seed = _starter_eight_seed()
    deal = Deal.start(PAGAT, 3, seed, dealer=1, leader=0)
    assert deal.awaiting_declaration and deal.to_play == 1
    assert deal.legal_actions() == [declare(s) for s in "CDHS"]
    assert_illegal(deal, DRAW, "seat 1 (the dealer) must first declare a suit for the starter eight")
    deal.apply(declare("C"))
    assert deal.to_play == 0  # the leader (e.g. the previous winner) plays first
    assert deal.active_suit == "C" and deal.view(0)["declared"] is True


def test_starter_eight_reshuffle_turns_a_new_starter():
    seed = _starter_eight_seed()
    base = Deal.start(PAGAT, 3, seed)
    eight = base.top_card
    deal = Deal.start(rules(starter_eight="reshuffle"), 3, seed)
    assert [deal.hand(s) for s in range(3)] == [base.hand(s) for s in range(3)]
    assert not deal.awaiting_declaration and deal.to_play == 1
    assert len(deal.discard) == 1 and deal.top_card[0] != "8"
    assert eight in stock_codes(deal)
    assert deal.stock_count == base.stock_count
    assert sorted(deal.stock + deal.discard) == sorted(base.stock + base.discard)
    bury = Deal.start(rules(starter_eight="bury"), 3, seed)
    assert stock_codes(deal) != stock_codes(bury)  # shuffled, not merely buried
    assert deal.active_suit == deal.top_card[1] and deal.view(1)["declared"] is False


def test_starter_eight_bury_puts_it_in_the_middle_of_the_stock():
    seed = _starter_eight_seed()
    base = Deal.start(PAGAT, 3, seed)
    eight, after = base.top_card, stock_codes(base)
    deal = Deal.start(rules(starter_eight="bury"), 3, seed)
    assert [deal.hand(s) for s in range(3)] == [base.hand(s) for s in range(3)]
    assert deal.top_card == after[0]  # the next card is turned
    stock = stock_codes(deal)
    assert len(stock) == len(after)
    i = stock.index(eight)
    assert abs(i - len(stock) / 2) <= 1
    assert stock[:i] + stock[i + 1:] == after[1:]  # the rest keeps its order
    assert deal.to_play == 1 and not deal.awaiting_declaration


def test_starter_eight_own_suit_stands_for_its_suit():
    seed = _starter_eight_seed()
    base = Deal.start(PAGAT, 3, seed)
    deal = Deal.start(rules(starter_eight="own_suit"), 3, seed)
    top = deal.top_card
    assert top == base.top_card and top[0] == "8"
    assert deal.active_suit == top[1] and deal.view(1)["declared"] is False
    assert not deal.awaiting_declaration and deal.to_play == 1 and deal.history == []
    hand = deal.hand(1)
    assert cards_played(deal) == sorted({c for c in hand if c[1] == top[1] or c[0] == "8"})
    assert_illegal(deal, declare("H"), "a suit is declared with the eight that is played")


# ---- eights ----------------------------------------------------------------------------------------------------

def test_eights_anytime_on_anything():
    deal = pos(PAGAT, [["8C", "3D"], ["4S"]], ["9S"], ["KH"])
    assert plays_of(deal) == [play("8C", s) for s in "CDHS"]


def test_eights_match_suit_only_on_its_suit_unless_an_eight_is_on_top():
    r = rules(eights="match_suit")
    deal = pos(r, [["8C", "8H", "3D"], ["4S"]], ["9S"], ["KH"])
    assert cards_played(deal) == ["8H"]
    assert_illegal(deal, play("8C", "H"), "the 8C does not fit: needs a heart or a king (top card king of hearts)")
    deal = pos(r, [["8C", "8S", "3D", "4H"], ["4S"]], ["9S"], ["KH", "8D"], declared_suit="H")
    assert cards_played(deal) == ["4H", "8C", "8S"]  # an eight on top: any eight, or the declared suit
    deal.apply(play("8S", "D"))
    assert deal.active_suit == "D"


def test_eights_no_declare_keeps_the_printed_suit_and_eight_on_eight():
    r = rules(eights="no_declare")
    deal = pos(r, [["8C", "3D"], ["8D", "4C", "4S"]], ["9S"], ["KH"])
    assert plays_of(deal) == [play("8C")]
    assert_illegal(deal, play("8C", "D"), 'remove "suit"', "eights declare no suit")
    deal.apply(play("8C"))
    assert deal.active_suit == "C" and deal.view(1)["declared"] is False
    assert plays_of(deal) == [play("4C"), play("8D")]
    deal.apply(play("8D"))  # eight on eight: now diamonds
    assert deal.active_suit == "D" and deal.declared_suit is None
    assert plays_of(deal) == [play("3D")]


def test_go_out_on_eight_false():
    r = rules(go_out_on_eight=False)
    deal = pos(r, [["8D"], ["KC"]], ["4D"], ["9H"])
    assert deal.legal_actions() == [DRAW]
    assert_illegal(deal, play("8D", "H"), "going out on an eight is not allowed under this ruleset")
    deal = pos(r, [["8D", "3C"], ["KC"]], ["4D"], ["9H"])
    assert plays_of(deal) == [play("8D", s) for s in "CDHS"]  # not the last card: fine
    deal = pos(r, [["8D"], ["KC"]], [], ["9H"])
    assert deal.legal_actions() == [PASS]  # holds only an eight and nothing to draw
    deal = pos(r, [["9C"], ["KC"]], ["8H"], ["9H"])
    deal.apply(DRAW)  # drew an eight: it is not the last card, so it may be played
    assert play("8H", "S") in deal.legal_actions()


def test_go_out_on_eight_false_drawn_eight_as_last_card_cannot_be_played():
    r = rules(go_out_on_eight=False, play_after_draw="any")
    deal = pos(r, [["3C"], ["KC"]], ["8H"], ["9H"])
    deal.apply(DRAW)  # two cards now: 3C and 8H; the eight may be played (one card left after)
    assert plays_of(deal) == [play("8H", s) for s in "CDHS"]


# ---- card values, seats, ply limit ------------------------------------------------------------------------------

def test_card_values_hollywood():
    deal = pos(rules(card_values="hollywood"), [["3H"], ["8C", "AC", "KC", "5C"]], ["4D"], ["9H"])
    assert deal.hand_value(1) == 20 + 15 + 10 + 5
    deal.apply(play("3H"))
    assert deal.result.hand_values == [0, 50] and deal.result.points == [0, 50]
    assert pos(PAGAT, [["3H"], ["8C", "AC", "KC", "5C"]], [], ["9H"]).hand_value(1) == 50 + 1 + 10 + 5


@pytest.mark.parametrize("preset,seats", [("pagat", 1), ("pagat", 9), ("crazy-eights", 5), ("hollywood", 3),
                                          ("no-draw", 3), ("no-draw", 5), ("russian-36", 7), ("points-game", 8)])
def test_seat_range(preset, seats):
    with pytest.raises(ValueError, match="seats"):
        Deal.start(rules(preset), seats, 1)


def test_seats_min_max_override():
    r = rules(seats_min=3, seats_max=4)
    Deal.start(r, 3, 1)
    with pytest.raises(ValueError, match="seats 3 to 4 players, not 2"):
        Deal.start(r, 2, 1)
    with pytest.raises(ValueError, match="'seats_min'"):
        rules(seats_min=5, seats_max=4)


def test_ply_limit_scores_a_deal_as_blocked():
    r = rules(ply_limit=10)
    stock = ["AC", "3C", "4C", "5C", "6C", "7C", "9C", "TC", "JC", "QC", "KC", "2S"]
    deal = pos(r, [["2C"], ["3S"]], stock, ["2D", "8H"], declared_suit="D")
    for _ in range(10):
        assert not deal.is_over
        deal.apply(DRAW)  # clubs on declared diamonds never fit: each turn is one draw
    assert deal.is_over and deal.result.outcome == "blocked" and deal.result.plies == 10
    assert deal.result.winner is None and deal.stock_count == 2
    assert deal.result.points == deal.result.hand_values


# ---- the integer fast path -------------------------------------------------------------------------------------

FAST_PATH_RULES = [
    ("pagat", {}, 3), ("web-table", {}, 2), ("eights-classic", {}, 6), ("crazy-eights", {}, 4),
    ("points-game", {}, 3), ("hollywood", {}, 2), ("no-draw", {}, 4), ("russian-36", {}, 3),
    ("pagat", {"twos": "stack", "queen_of_spades_draw": 5, "skip_rank": "J", "reverse_rank": "A",
               "last_card_penalty": 2}, 3),
    ("pagat", {"twos": "winding", "skip_rank": "Q", "reverse_rank": "A", "reverse_two_seats": "noop",
               "action_on_going_out": "apply"}, 2),
    ("pagat", {"partnership": True, "twos": "stack", "last_card_penalty": 2, "scoring": "winner_collects"}, 4),
    ("pagat", {"eights": "no_declare", "go_out_on_eight": False, "draw": "until_playable",
               "play_after_draw": "any"}, 2),
    ("pagat", {"eights": "match_suit", "draw": "up_to", "draw_limit": 2, "play_after_draw": "none",
               "voluntary_draw": False, "empty_stock": "pass"}, 3),
]


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
@pytest.mark.parametrize("preset,overrides,seats", FAST_PATH_RULES,
                         ids=[f"{p}-{'-'.join(o)}-{s}" for p, o, s in FAST_PATH_RULES])
def test_fast_path_matches_the_dict_api(preset, overrides, seats):
    r = rules(preset, **overrides)
    rng = random.Random(f"{preset}{sorted(overrides)}")
    for seed in range(3):
        deal = Deal.start(r, seats, seed)
        for _ in range(400):
            ids = deal.legal_ids()
            assert [ACTIONS[i] for i in ids] == deal.legal_actions()
            assert len(set(ids)) == len(ids)
            if deal.is_over:
                assert ids == []
                with pytest.raises(IllegalAction, match="the deal is over"):
                    deal.apply_id(DRAW_ID)
                break
            illegal = [i for i in range(len(ACTIONS)) if i not in ids]
            before = snapshot(deal)
            with pytest.raises(IllegalAction):
                deal.apply_id(rng.choice(illegal))
            with pytest.raises(IllegalAction, match="is not an action id"):
                deal.apply_id(len(ACTIONS))
            assert snapshot(deal) == before
            plays = [i for i in ids if ACTIONS[i]["type"] == "play"]
            choice = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(ids)
            twin = deal.clone()
            twin.apply(dict(ACTIONS[choice]))
            deal.apply_id(choice)
            assert snapshot(twin) == snapshot(deal)
            assert twin.history == deal.history


DRAW_ID = ACTIONS.index({"type": "draw"})
