"""System D (the ``pagat`` preset, RULES.md) rule by rule, on hand-built positions.

``Deal.from_position(ruleset, hands, stock, discard, to_play, declared_suit=None, ...)``: card codes,
``stock`` top first, ``discard`` bottom first (last = top card).
"""

import json

import pytest

from eights_engine import Deal, IllegalAction, MatchState, Ruleset
from eights_engine.cards import STANDARD_VALUES, parse_card

PAGAT = Ruleset.preset("pagat")


def pos(hands, stock, discard, to_play=0, rules=PAGAT, **kw):
    return Deal.from_position(rules, hands, stock, discard, to_play, **kw)


def play(card, suit=None):
    action = {"type": "play", "card": card}
    if suit is not None:
        action["suit"] = suit
    return action


DRAW = {"type": "draw"}
PASS = {"type": "pass"}


def snapshot(deal):
    """Everything a failed action must leave untouched."""
    return (
        json.dumps([deal.view(s) for s in range(deal.seats)], sort_keys=True),
        [deal.hand(s) for s in range(deal.seats)],
        [list(h) for h in deal.hands],
        list(deal.stock),
        list(deal.discard),
        deal.to_play,
        deal.declared_suit,
        deal.drawn_this_turn,
        deal.last_drawn,
        deal.awaiting_declaration,
        deal.passes_in_row,
        deal.ply,
        deal.result,
    )


def assert_illegal(deal, action, *words):
    """The action raises IllegalAction naming ``words`` and leaves the deal exactly as it was."""
    before = snapshot(deal)
    with pytest.raises(IllegalAction) as info:
        deal.apply(action)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert snapshot(deal) == before
    return message


def plays_of(deal):
    return [a for a in deal.legal_actions() if a["type"] == "play"]


def total_cards(deal):
    return sorted([c for h in deal.hands for c in h] + deal.stock + deal.discard)


# ---- dealing --------------------------------------------------------------------------------------------

def _seed_without_starter_eight(seats):
    for seed in range(1000):
        deal = Deal.start(PAGAT, seats, seed)
        if deal.top_card[0] != "8":
            return seed
    raise AssertionError("no seed without a starter eight")


@pytest.mark.parametrize("seats,per_hand", [(2, 7), (3, 5), (4, 5), (5, 5)])
def test_deal_sizes_and_left_of_dealer_leads(seats, per_hand):
    seed = _seed_without_starter_eight(seats)
    for dealer in range(seats):
        deal = Deal.start(PAGAT, seats, seed, dealer=dealer)
        if deal.top_card[0] == "8":
            continue
        assert [len(deal.hand(s)) for s in range(seats)] == [per_hand] * seats
        assert deal.stock_count == 52 - per_hand * seats - 1
        assert len(deal.discard) == 1
        assert deal.to_play == (dealer + 1) % seats
        assert deal.active_suit == deal.top_card[1]
        assert deal.view(0)["declared"] is False


# ---- what may be played ----------------------------------------------------------------------------------

def test_matching_suit_or_rank():
    deal = pos([["2H", "9C", "5S", "KD"], ["3C"]], ["4D", "6D"], ["7C", "5H"])
    assert plays_of(deal) == [play("2H"), play("5S")]
    assert deal.legal_actions()[-1] == DRAW
    msg = assert_illegal(deal, play("9C"), "does not fit", "needs a heart", "a 5", "an eight")
    assert "were declared" not in msg
    assert_illegal(deal, play("KD"), "needs a heart")
    deal.apply(play("5S"))  # rank match
    assert deal.top_card == "5S" and deal.active_suit == "S"
    assert deal.to_play == 1
    assert deal.view(1)["declared"] is False


def test_matching_suit_moves_play_on():
    deal = pos([["2H", "9C"], ["3C"]], ["4D"], ["5H"])
    deal.apply(play("2H"))
    assert deal.top_card == "2H" and deal.active_suit == "H" and deal.to_play == 1
    assert deal.hand(0) == ["9C"]
    assert deal.history[-1] == {"seat": 0, "type": "play", "card": "2H"}


def test_eight_playable_on_anything_and_must_declare():
    deal = pos([["8C", "2S"], ["3C"]], ["4D"], ["KH"])
    assert plays_of(deal) == [play("8C", s) for s in "CDHS"]
    assert_illegal(deal, play("8C"), "needs a declared suit", '"suit"')
    deal.apply(play("8C", "D"))
    assert deal.top_card == "8C"
    assert deal.active_suit == "D"
    assert deal.view(1)["declared"] is True
    assert deal.view(1)["active_suit"] == "D"
    assert deal.history[-1] == {"seat": 0, "type": "play", "card": "8C", "suit": "D"}


def test_eight_may_declare_its_own_suit():
    deal = pos([["8C", "2S"], ["3C"]], ["4D"], ["KH"])
    deal.apply(play("8C", "C"))
    assert deal.active_suit == "C" and deal.view(0)["declared"] is True


def test_declared_suit_must_be_followed_and_an_eight_overrides_it():
    deal = pos([["2C", "3H", "8S", "KC"], ["4C"]], ["4D"], ["5D", "8C"], declared_suit="H")
    assert deal.active_suit == "H"
    # clubs would match the printed suit of the eight, but hearts were declared
    assert plays_of(deal) == [play("3H")] + [play("8S", s) for s in "CDHS"]
    msg = assert_illegal(deal, play("2C"), "needs a heart", "hearts were declared", "an eight")
    assert "a 8" not in msg  # an eight on top asks for no rank beyond "an eight"
    assert_illegal(deal, play("KC"), "hearts were declared")
    deal.apply(play("8S", "D"))  # another eight overrides the declaration
    assert deal.active_suit == "D" and deal.top_card == "8S"
    assert deal.to_play == 1
    assert_illegal(deal, play("4C"), "needs a diamond", "diamonds were declared")


def test_declared_suit_ends_with_the_next_plain_card():
    deal = pos([["3H", "2C"], ["4H", "5C"]], ["4D"], ["8C"], declared_suit="H")
    deal.apply(play("3H"))
    assert deal.active_suit == "H" and deal.view(1)["declared"] is False
    deal.apply(play("4H"))
    assert deal.active_suit == "H"


# ---- drawing ---------------------------------------------------------------------------------------------

def test_draw_exactly_one_card_unplayable_ends_turn():
    deal = pos([["2C"], ["3D", "KS"]], ["9S", "4D", "6D"], ["5H"])
    assert deal.legal_actions() == [DRAW]
    assert deal.view(0)["draws_left"] == 1
    deal.apply(DRAW)
    assert deal.hand(0) == ["2C", "9S"]
    assert deal.stock_count == 2
    assert deal.to_play == 1  # the drawn 9S does not fit: the turn ends automatically
    assert deal.drawn_this_turn == 0
    assert deal.view(1)["draws_left"] == 1
    assert deal.view(1)["drawn_card"] is None
    assert deal.history[-1] == {"seat": 0, "type": "draw"}


def test_voluntary_draw_with_playable_card():
    deal = pos([["2H", "KC"], ["3D"]], ["7C", "4D"], ["5H"])
    assert DRAW in deal.legal_actions()
    assert play("2H") in deal.legal_actions()
    assert PASS not in deal.legal_actions()
    deal.apply(DRAW)  # allowed although 2H could be played
    assert sorted(deal.hand(0)) == sorted(["7C", "KC", "2H"])
    assert deal.to_play == 1  # 7C does not fit: turn over, 2H not playable any more this turn


def test_after_drawing_only_the_drawn_card_may_be_played():
    deal = pos([["2H", "3C"], ["3D"]], ["9H", "4D"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 0  # 9H fits: the seat may play it
    assert deal.view(0)["drawn_card"] == "9H"
    assert deal.view(0)["draws_left"] == 0
    assert deal.view(1)["drawn_card"] is None  # the drawn card is private
    assert deal.legal_actions() == [play("9H"), PASS]
    assert_illegal(deal, play("2H"), "after drawing only the drawn card (9H) may be played")
    assert_illegal(deal, play("3C"), "only the drawn card")
    assert_illegal(deal, DRAW, "already drawn")
    deal.apply(play("9H"))
    assert deal.top_card == "9H" and deal.to_play == 1
    assert sorted(deal.hand(0)) == ["2H", "3C"]


def test_after_drawing_a_playable_card_the_seat_may_pass():
    deal = pos([["2H", "3C"], ["3D"]], ["9H", "4D"], ["5H"])
    deal.apply(DRAW)
    deal.apply(PASS)
    assert deal.to_play == 1
    assert sorted(deal.hand(0)) == sorted(["2H", "3C", "9H"])
    assert deal.passes_in_row == 0  # a pass after drawing is no "pass in succession"
    assert deal.history[-2:] == [{"seat": 0, "type": "draw"}, {"seat": 0, "type": "pass"}]


def test_drawn_eight_may_be_played_with_a_declaration():
    deal = pos([["2C"], ["3D"]], ["8D", "4D"], ["5H"])
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("8D", s) for s in "CDHS"] + [PASS]
    assert_illegal(deal, play("8D"), "needs a declared suit")
    deal.apply(play("8D", "S"))
    assert deal.active_suit == "S" and deal.to_play == 1


def test_cannot_pass_while_a_draw_is_possible():
    deal = pos([["2C"], ["3D"]], ["9S"], ["5H"])
    assert_illegal(deal, PASS, "cannot pass", "draw")


def test_cannot_pass_while_a_play_is_possible():
    deal = pos([["2H"], ["3D"]], [], ["5H"])
    assert deal.legal_actions() == [play("2H")]
    assert_illegal(deal, PASS, "cannot pass", "play", "2H")


# ---- empty stock -----------------------------------------------------------------------------------------

def test_reshuffle_under_the_top_card_keeps_declared_suit():
    deal = pos([["KC", "4S"], ["3D"]], [], ["2H", "3H", "4C", "8C"], declared_suit="H")
    before = total_cards(deal)
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)
    assert total_cards(deal) == before
    assert deal.discard == [parse_card("8C")]
    assert deal.top_card == "8C"
    assert deal.active_suit == "H" and deal.declared_suit is not None
    assert deal.stock_count == 2
    assert len(deal.hand(0)) == 3
    drawn = (set(deal.hand(0)) - {"KC", "4S"}).pop()
    assert drawn in {"2H", "3H", "4C"}
    assert deal.reshuffles == 1
    if drawn[1] == "H":
        assert deal.to_play == 0 and deal.legal_actions() == [play(drawn), PASS]
    else:
        assert deal.to_play == 1


def test_reshuffle_is_deterministic():
    a = pos([["KC"], ["3D"]], [], ["2H", "3H", "4C", "5C", "6D", "8C"], declared_suit="H")
    b = a.clone()
    a.apply(DRAW)
    b.apply(DRAW)
    assert a.stock == b.stock and a.hands == b.hands


def test_pass_when_nothing_to_draw_and_nothing_to_play():
    deal = pos([["2C"], ["3D", "KS"]], [], ["5H"])
    assert deal.legal_actions() == [PASS]
    assert_illegal(deal, DRAW, "nothing to draw")
    deal.apply(PASS)
    assert deal.to_play == 1
    assert not deal.is_over
    assert deal.history[-1] == {"seat": 0, "type": "pass"}


def test_blocked_deal_when_every_seat_passes_each_scores_own_hand():
    deal = pos([["2C"], ["3D", "KS"]], [], ["5H"])
    deal.apply(PASS)
    assert not deal.is_over
    deal.apply(PASS)
    assert deal.is_over
    assert deal.result.outcome == "blocked"
    assert deal.result.winner is None
    assert deal.result.hand_values == [2, 13]
    assert deal.result.points == [2, 13]
    assert deal.legal_actions() == []


def test_blocked_needs_every_seat_to_pass_in_succession():
    deal = pos([["2C"], ["3D"], ["KS", "4S"]], [], ["5H"])
    deal.apply(PASS)
    deal.apply(PASS)
    assert not deal.is_over  # two of three seats passed
    deal.apply(PASS)
    assert deal.is_over and deal.result.outcome == "blocked"
    assert deal.result.points == [2, 3, 14]


def test_a_play_breaks_the_succession_of_passes():
    deal = pos([["2C", "7H"], ["3D"]], [], ["5H"], to_play=1)
    deal.apply(PASS)  # seat 1 cannot play or draw
    assert deal.passes_in_row == 1
    deal.apply(play("7H"))  # seat 0 plays
    assert deal.passes_in_row == 0 and not deal.is_over


# ---- the starter eight -----------------------------------------------------------------------------------

def _starter_eight_deal(seats=3):
    for seed in range(5001):
        deal = Deal.start(PAGAT, seats, seed)
        if deal.top_card[0] == "8":
            return seed, deal
    raise AssertionError("no seed in 0..5000 turns a starter eight")


def test_starter_eight_dealer_declares_first():
    seed, deal = _starter_eight_deal(3)
    dealer = deal.dealer
    assert deal.to_play == dealer
    assert deal.awaiting_declaration
    assert deal.legal_actions() == [{"type": "declare", "suit": s} for s in "CDHS"]
    assert_illegal(deal, DRAW, "must first declare a suit for the starter eight")
    assert_illegal(deal, PASS, "must first declare")
    card = deal.hand(dealer)[0]
    assert_illegal(deal, play(card), "must first declare")
    assert_illegal(deal, {"type": "declare", "suit": "X"}, "is not a suit")
    deal.apply({"type": "declare", "suit": "S"})
    assert not deal.awaiting_declaration
    assert deal.active_suit == "S"
    assert deal.view(0)["declared"] is True
    assert deal.to_play == (dealer + 1) % 3
    assert deal.history == [{"seat": dealer, "type": "declare", "suit": "S"}]
    assert deal.hand(dealer) == Deal.start(PAGAT, 3, seed).hand(dealer)  # declaring costs no card
    assert deal.stock_count == 52 - 15 - 1


def test_starter_eight_with_another_dealer():
    seed, _ = _starter_eight_deal(3)
    deal = Deal.start(PAGAT, 3, seed, dealer=1)
    assert deal.top_card[0] == "8"  # the starter is the same card whoever deals
    assert deal.to_play == 1 and deal.awaiting_declaration
    deal.apply({"type": "declare", "suit": "H"})
    assert deal.to_play == 2 and deal.active_suit == "H"


def test_declare_outside_the_starter_is_illegal():
    deal = pos([["2C"], ["3D"]], ["9S"], ["5H"])
    assert_illegal(deal, {"type": "declare", "suit": "S"}, "a suit is declared with the eight that is played")


# ---- going out and scoring -------------------------------------------------------------------------------

def test_worked_example_hand_value_66():
    assert sum(STANDARD_VALUES[parse_card(c)] for c in ["8S", "QD", "AC", "5H"]) == 66


def test_going_out_ends_the_deal_with_penalty_points():
    deal = pos([["3H"], ["8C", "QD", "AS", "5H"], ["2D", "TC"]], ["4D"], ["9H"])
    assert deal.hand_value(1) == 66
    deal.apply(play("3H"))
    assert deal.is_over
    r = deal.result
    assert r.outcome == "out" and r.winner == 0
    assert r.hand_values == [0, 66, 12]
    assert r.points == [0, 66, 12]
    assert deal.legal_actions() == []
    assert deal.view(1)["to_play"] is None
    assert deal.view(1)["result"]["points"] == [0, 66, 12]
    assert_illegal(deal, DRAW, "the deal is over")


def test_going_out_on_an_eight_is_allowed_in_pagat():
    deal = pos([["8D"], ["KC"]], ["4D"], ["9H"])
    assert deal.legal_actions() == [play("8D", s) for s in "CDHS"] + [DRAW]
    deal.apply(play("8D", "C"))
    assert deal.is_over and deal.result.winner == 0 and deal.result.points == [0, 10]


def test_system_d_worked_example():
    """RULES.md, system D: A = seat 0, B = seat 1, "you" = seat 2 (the dealer)."""
    deal = pos(
        [["6D", "7C", "4C"], ["KD", "5H", "8D", "JH"], ["QS", "3H", "8C", "9H"]],
        ["2S", "2H", "4H", "3S", "KS", "TC", "TD"],
        ["6C"],
        to_play=0,
    )
    assert deal.dealer == 2
    start = total_cards(deal)
    steps = [
        (0, play("6D")),        # A plays 6D (rank)
        (1, play("KD")),        # B plays KD (suit)
        (2, play("8C", "H")),   # you play 8C declaring hearts
        (0, DRAW),              # A draws 2S: not playable, the turn ends
        (1, play("5H")),        # B plays 5H
        (2, play("9H")),        # you play 9H
        # "later you go out":
        (0, DRAW),              # A cannot play on 9H; draws 2H
        (0, play("2H")),        # ... and plays it at once
        (1, DRAW),              # B could play 8D or JH but draws voluntarily: 4H
        (1, play("4H")),
        (2, play("3H")),        # you
        (0, DRAW),              # A: 7C 4C 2S do not fit 3H; draws 3S (rank 3)
        (0, play("3S")),
        (1, DRAW),              # B draws KS voluntarily
        (1, play("KS")),
        (2, play("QS")),        # you go out
    ]
    for i, (seat, action) in enumerate(steps):
        assert deal.to_play == seat, f"step {i}: {action}"
        assert action in deal.legal_actions(), f"step {i}: {action} not in {deal.legal_actions()}"
        deal.apply(action)
        assert total_cards(deal) == start
        if i == 2:
            assert deal.active_suit == "H" and deal.top_card == "8C"
        if i == 3:
            assert sorted(deal.hand(0)) == sorted(["7C", "4C", "2S"])
            assert deal.to_play == 1  # A's turn ended automatically
            assert deal.active_suit == "H"
        if i == 5:
            assert sorted(deal.hand(2)) == ["3H", "QS"]
    assert deal.is_over
    r = deal.result
    assert r.outcome == "out" and r.winner == 2
    assert sorted(deal.hand(0)) == sorted(["7C", "4C", "2S"])
    assert sorted(deal.hand(1)) == sorted(["8D", "JH"])
    assert r.hand_values == [13, 60, 0]
    assert r.points == [13, 60, 0]


def test_pagat_match_penalty_lowest_total_wins():
    m = MatchState.start(PAGAT, 2, 1)
    assert m.target == 100
    m.totals = [120, 40]
    assert m.standings == [2, 1]
    m.totals = [40, 40]
    assert m.standings == [1, 1]


# ---- every message ---------------------------------------------------------------------------------------

def test_message_suit_on_a_non_eight():
    deal = pos([["2H", "8C"], ["3D"]], ["9S"], ["5H"])
    assert_illegal(deal, play("2H", "H"), 'remove "suit"', "only an eight declares a suit")


def test_message_does_not_hold():
    deal = pos([["2H", "8C"], ["3D"]], ["9S"], ["5H"])
    assert_illegal(deal, play("3D"), "does not hold", "3D")
    assert_illegal(deal, play("8S", "H"), "does not hold", "8S")


def test_message_no_announcement():
    deal = pos([["2H", "8C"], ["3D"]], ["9S"], ["5H"])
    assert_illegal(deal, {"type": "announce"}, "no last-card announcement")


def test_message_eights_declare_no_suit_under_no_declare():
    rules = Ruleset.preset("pagat", eights="no_declare")
    deal = pos([["2H", "8C"], ["3D"]], ["9S"], ["5H"], rules=rules)
    assert play("8C") in deal.legal_actions()
    assert_illegal(deal, play("8C", "H"), 'remove "suit"', "eights declare no suit")
    deal.apply(play("8C"))
    assert deal.active_suit == "C" and deal.view(1)["declared"] is False


def test_message_match_suit_eights():
    rules = Ruleset.preset("pagat", eights="match_suit")
    deal = pos([["2C", "8C", "8H"], ["3D"]], ["9S"], ["5H"], rules=rules)
    assert [a["card"] for a in plays_of(deal)] == ["8H"] * 4
    msg = assert_illegal(deal, play("8C", "S"), "needs a heart or a 5")
    assert "an eight" not in msg


def test_message_play_after_draw_none():
    rules = Ruleset.preset("pagat", draw="up_to", draw_limit=3, play_after_draw="none")
    deal = pos([["2H", "3C"], ["3D"]], ["9H", "4D", "6D"], ["5H"], rules=rules)
    deal.apply(DRAW)
    assert deal.to_play == 1  # "none": drawing ends the turn, whatever the draw limit
    deal = Deal.from_position(rules, [["2H", "3C", "9H"], ["3D"]], ["4D"], ["5H"], 0, drawn_this_turn=1,
                              drawn_card="9H")
    assert plays_of(deal) == []
    assert_illegal(deal, play("9H"), "after drawing the turn ends without a play")


def test_message_draw_limit_and_must_play():
    rules = Ruleset.preset("web-table")
    deal = pos([["3C"], ["3D"]], ["9C", "KS", "4D", "6D"], ["5H"], rules=rules)
    deal.apply(DRAW)  # 9C
    assert deal.view(0)["draws_left"] == 2
    deal.apply(DRAW)  # KS
    assert deal.to_play == 0
    deal.apply(DRAW)  # 4D: limit reached and nothing fits: B's pass is now the one legal action
    assert deal.to_play == 0 and deal.legal_actions() == [PASS]
    assert_illegal(deal, DRAW, "drawn the limit of 3")
    deal.apply(PASS)
    assert deal.to_play == 1
    deal = pos([["3C"], ["3D"]], ["9H", "KS", "4D", "6D"], ["5H"], rules=rules)
    deal.apply(DRAW)  # 9H fits, but the seat may keep drawing within the limit
    assert play("9H") in deal.legal_actions() and DRAW in deal.legal_actions()
    deal.apply(DRAW)  # KS
    deal.apply(DRAW)  # 4D: after the third card a play exists, so the seat must play
    assert deal.to_play == 0
    assert deal.legal_actions() == [play("9H")]
    assert_illegal(deal, DRAW, "drawn the limit of 3")
    assert_illegal(deal, PASS, "cannot pass while you can play")


def test_message_forced_play():
    rules = Ruleset.preset("pagat", voluntary_draw=False)
    deal = pos([["2H", "3C"], ["3D"]], ["9S"], ["5H"], rules=rules)
    assert DRAW not in deal.legal_actions()
    assert_illegal(deal, DRAW, "you must play", "playable card")


def test_message_no_going_out_on_an_eight():
    rules = Ruleset.preset("pagat", go_out_on_eight=False)
    deal = pos([["8D"], ["KC"]], ["4D"], ["9H"], rules=rules)
    assert deal.legal_actions() == [DRAW]
    assert_illegal(deal, play("8D", "H"), "going out on an eight is not allowed")


def test_message_match_over():
    m = MatchState.start(PAGAT, 2, 3)
    m.is_over = True
    with pytest.raises(IllegalAction, match="the match is over"):
        m.apply(DRAW)


# ---- malformed actions -----------------------------------------------------------------------------------

MALFORMED = [
    ("draw", "JSON object"),
    (None, "JSON object"),
    (5, "JSON object"),
    (["play", "2H"], "JSON object"),
    ({}, "unknown action type"),
    ({"type": "jump"}, "unknown action type"),
    ({"type": None}, "unknown action type"),
    ({"type": ["play"]}, "unknown action type"),
    ({"type": {"a": 1}}, "unknown action type"),
    ({"type": "PLAY", "card": "2H"}, "unknown action type"),
    ({"type": "play"}, "needs 'card'"),
    ({"type": "play", "suit": "H"}, "needs 'card'"),
    ({"type": "declare"}, "needs 'suit'"),
    ({"type": "play", "card": "ZZ"}, "is not a card"),
    ({"type": "play", "card": ""}, "is not a card"),
    ({"type": "play", "card": None}, "is not a card"),
    ({"type": "play", "card": 5}, "is not a card"),
    ({"type": "play", "card": ["2H"]}, "is not a card"),
    ({"type": "play", "card": "2H", "extra": 1}, "takes no 'extra'"),
    ({"type": "draw", "card": "2H"}, "takes no 'card'"),
    ({"type": "pass", "n": 1}, "takes no 'n'"),
    ({"type": "draw", 1: 2, "x": 3}, "takes no"),
    ({"type": "play", "card": "2H", "suit": "H"}, 'remove "suit"'),
    ({"type": "play", "card": "8C", "suit": "X"}, "is not a suit"),
    ({"type": "play", "card": "8C", "suit": None}, "is not a suit"),
    ({"type": "play", "card": "8C", "suit": 2}, "is not a suit"),
    ({"type": "play", "card": "8C", "suit": ["H"]}, "is not a suit"),
    ({"type": "play", "card": "8C"}, "needs a declared suit"),
    ({"type": "play", "card": "9C"}, "needs a heart"),
    ({"type": "play", "card": "KS"}, "does not hold"),
    ({"type": "declare", "suit": "H"}, "a suit is declared with the eight"),
    ({"type": "announce"}, "no last-card announcement"),
    ({"type": "pass"}, "cannot pass"),
]


@pytest.mark.parametrize("action,words", MALFORMED, ids=[repr(a)[:40] for a, _ in MALFORMED])
def test_malformed_actions_raise_illegal_action_and_change_nothing(action, words):
    deal = pos([["2H", "8C", "9C"], ["3D", "KD"]], ["9S", "4D"], ["3S", "5H"])
    assert_illegal(deal, action, words)
    # the deal still plays normally afterwards
    deal.apply(play("2H"))
    assert deal.to_play == 1


def test_card_codes_are_parsed_leniently():
    deal = pos([["TH", "8C"], ["3D"]], ["9S"], ["5H"])
    deal.apply({"type": "play", "card": "10h"})
    assert deal.top_card == "TH"
    assert deal.history[-1]["card"] == "TH"
