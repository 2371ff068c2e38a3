"""The tactician house strategy (``eights_engine.tactics``): each tactic of seed 001's "Tactics" shown on a hand-built
position, and a property test that it only ever returns a legal action, under every preset and the option variants."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eights_engine import PRESETS, STRATEGIES, Deal, MatchState, Ruleset, choose
from eights_engine.strategies import strategy_rng
from eights_engine.tactics import (
    GUEST_OPPONENTS, LAST_CARD_ALERT, SPEND_EIGHTS_AT, tactician_strategy, unseen_cards, void_confidence,
)

DRAW = {"type": "draw"}


def play(card, suit=None):
    return {"type": "play", "card": card, **({"suit": suit} if suit else {})}


def decide(deal, seat=None):
    """The tactician's choice for the seat to play (through ``choose``, as a house seat gets it), checked legal."""
    seat = deal.to_play if seat is None else seat
    legal = deal.legal_actions()
    action = choose("tactician", deal.view(seat), legal, 1)
    assert action in legal
    return action


WEB = Ruleset.preset("web-table")
PAGAT = Ruleset.preset("pagat")
STOCK = ["2S", "3S", "4S", "5S", "6S", "7S", "9S", "TS", "JS"]
OPPONENT = ["QC", "QD", "QH", "KS", "KC"]  # five cards: nobody is near going out


def test_it_is_a_house_strategy_with_the_thresholds_of_the_document():
    assert "tactician" in STRATEGIES
    assert SPEND_EIGHTS_AT == 4  # "spend them when three or four are left"
    assert LAST_CARD_ALERT == 1  # "someone has one card left"


# ---- eights: kept while the hand is long, spent when three or four cards are left --------------------------------

def test_it_keeps_an_eight_while_the_hand_is_long():
    deal = Deal.from_position(WEB, [["8S", "3C", "9C", "KD", "4H", "6S"], OPPONENT], STOCK, ["5C"], 0)
    action = decide(deal)
    assert action["card"] != "8S" and action["card"] in ("3C", "9C")


def test_it_draws_rather_than_spend_an_eight_on_a_long_hand():
    """Drawing with a play in hand is "the lever by which one holds an eight" (seed 001, rules of the web table)."""
    deal = Deal.from_position(WEB, [["8S", "2D", "9D", "KD", "4H", "6H"], OPPONENT], STOCK, ["5C"], 0)
    assert {"type": "play", "card": "8S", "suit": "D"} in deal.legal_actions()
    assert decide(deal) == DRAW


def test_it_spends_the_eight_when_the_limit_forces_a_play():
    deal = Deal.from_position(WEB, [["8S", "2D", "9D", "KD", "4H", "6H", "QS"], OPPONENT], STOCK, ["5C"], 0,
                              drawn_this_turn=3, drawn_card="QS")
    assert decide(deal) == play("8S", "D")  # its longest suit: three diamonds


@pytest.mark.parametrize("hand,suit", [(["8S", "3D", "9H", "4H"], "H"), (["8S", "3D", "9H"], "D")],
                         ids=["four", "three"])
def test_with_four_cards_or_fewer_it_spends_the_eight_rather_than_draw(hand, suit):
    deal = Deal.from_position(WEB, [hand, OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal) == play("8S", suit)  # three cards: one diamond, one heart, as many unseen: code order


def test_a_plain_card_that_fits_goes_before_the_eight_even_with_four_cards():
    deal = Deal.from_position(WEB, [["8S", "3C", "9H", "4H"], OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal) == play("3C")


def test_under_a_single_draw_it_spends_the_eight_rather_than_lose_the_turn():
    """Pagat: a drawn card that does not fit ends the turn, so holding the eight would cost a whole turn."""
    deal = Deal.from_position(PAGAT, [["8S", "2D", "9D", "KD", "4H", "6H"], OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal) == play("8S", "D")


# ---- once a suit is gone, lead into the longest suit -----------------------------------------------------------

def test_once_a_suit_is_gone_it_leads_into_its_longest_suit():
    # no clubs: the seven of hearts switches the table into hearts (three left after it), not the king of diamonds
    deal = Deal.from_position(WEB, [["KD", "QD", "7H", "2H", "3H", "4H", "9S"], OPPONENT], STOCK, ["7D"], 0)
    assert decide(deal) == play("7H")


def test_with_every_suit_in_hand_it_sheds_a_high_card_of_a_suit_it_can_follow():
    deal = Deal.from_position(WEB, [["KD", "QD", "7H", "2H", "3H", "4C", "9S"], OPPONENT], STOCK, ["7D"], 0)
    assert decide(deal)["card"] in ("KD", "QD")  # ten points each, one card of the suit left after either


# ---- an opponent down to one card: change the suit, or shed the most expensive card ----------------------------

def hearts_then_a_draw():
    """Seat 0 turns the table to hearts; seat 1, holding only the two of clubs, draws the seven of hearts and plays
    it: one card left, and it was seen to have no heart."""
    deal = Deal.from_position(PAGAT, [["7S", "2S", "3S", "4S", "9H", "6D", "5D", "5H"], ["2C"]], ["7H", *STOCK],
                              ["5C"], 0)
    for action in (play("5H"), DRAW, play("7H")):
        deal.apply(action)
    return deal


def test_a_seat_that_drew_is_taken_to_lack_the_suit_it_could_not_follow():
    view = hearts_then_a_draw().view(0)
    assert view["hand_counts"][1] == 1
    confidence = void_confidence(view, 1)
    assert confidence["H"] == 1.0 and confidence["C"] == 0.0
    # 5H and 7H on the pile, 9H in seat 0's hand; the starter (5C) is covered and no view shows it any more
    unseen = unseen_cards(view)
    assert "7H" not in unseen and "9H" not in unseen and unseen["5C"] == 1
    assert sum(n for card, n in unseen.items() if card[1] == "H") == 13 - 3


def test_when_an_opponent_has_one_card_it_keeps_the_suit_they_lack():
    deal = hearts_then_a_draw()
    # without the alert it would switch into spades, its longest suit (no clubs in hand), with the seven of spades
    assert decide(deal) == play("9H")


def test_when_an_opponent_has_one_card_it_sheds_its_most_expensive_card():
    """Nothing known of the last card: the eight (50 points) goes at once, even from a long hand, naming the suit
    with the fewest unseen cards (diamonds: three in hand and one on the pile)."""
    deal = Deal.from_position(WEB, [["8S", "KD", "4D", "2D", "3C", "5H"], ["JC"]], STOCK, ["6D"], 0)
    assert decide(deal) == play("8S", "D")


def test_it_never_draws_voluntarily_while_an_opponent_is_close_to_going_out():
    deal = Deal.from_position(WEB, [["8S", "2D", "9D", "KD", "4H", "6H"], ["QC", "QD"]], STOCK, ["5C"], 0)
    assert decide(deal)["type"] == "play"


# ---- drawing is often cheaper than giving up a king -------------------------------------------------------------

def test_it_draws_rather_than_give_up_a_king_it_could_not_follow():
    # the king of clubs is the only play, and after it nothing in hand follows clubs or a king
    deal = Deal.from_position(WEB, [["KC", "2D", "3D", "4H", "6H", "9S"], OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal) == DRAW


def test_under_a_single_draw_it_plays_the_king():
    deal = Deal.from_position(PAGAT, [["KC", "2D", "3D", "4H", "6H", "9S"], OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal) == play("KC")


def test_it_plays_the_king_when_it_can_follow_it():
    deal = Deal.from_position(WEB, [["KC", "2C", "3D", "4H", "6H", "9S"], OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal) == play("KC")


def test_it_plays_the_king_once_it_has_drawn_this_turn():
    deal = Deal.from_position(WEB, [["KC", "2D", "3D", "4H", "6H", "9S", "QS"], OPPONENT], STOCK, ["5C"], 0,
                              drawn_this_turn=1, drawn_card="QS")
    assert decide(deal) == play("KC")


# ---- the rest of the contract -------------------------------------------------------------------------------------

def test_it_goes_out_when_it_can():
    deal = Deal.from_position(WEB, [["8S"], OPPONENT], STOCK, ["5C"], 0)
    assert decide(deal)["card"] == "8S"


def test_it_sees_only_the_view_and_is_deterministic():
    deal = Deal.start(WEB, 3, 11)
    view, legal = deal.view(deal.to_play), deal.legal_actions()
    snapshot = json.dumps(view, sort_keys=True)
    first = tactician_strategy(view, legal, strategy_rng(deal.seed, view["ply"], view["seat"]))
    assert first == choose("tactician", view, legal, deal.seed) == choose("tactician", view, legal, deal.seed)
    assert json.dumps(view, sort_keys=True) == snapshot


def test_the_guest_opponents_are_house_strategies():
    assert GUEST_OPPONENTS and set(GUEST_OPPONENTS) <= set(STRATEGIES)
    assert "tactician" not in GUEST_OPPONENTS  # the strongest house player is no beginner's table


VARIANTS = [
    {"eights": "no_declare"}, {"eights": "match_suit"}, {"go_out_on_eight": False}, {"voluntary_draw": False},
    {"play_after_draw": "any"}, {"play_after_draw": "none", "draw": "up_to", "draw_limit": 2},
    {"draw": "until_playable"}, {"empty_stock": "pass"}, {"twos": "stack"}, {"twos": "winding"},
    {"queen_of_spades_draw": 5}, {"skip_rank": "J"}, {"reverse_rank": "A"}, {"last_card_penalty": 2},
    {"partnership": True, "seats_min": 4, "seats_max": 4},
]
CASES = [(p, {}) for p in sorted(PRESETS)] + [("pagat", v) for v in VARIANTS]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seats=st.integers(2, 5), seed=st.integers(0, 2**40),
       others=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=5, max_size=5))
def test_it_only_returns_legal_actions_under_every_preset(case, seats, seed, others):
    preset, overrides = case
    rules = Ruleset.preset(preset, **{"target": 60, **overrides})
    seats = max(rules.seats_min, min(rules.seats_max, seats))
    names = ["tactician" if s == seed % seats or seed % 3 == 0 else others[s] for s in range(seats)]
    match = MatchState.start(rules, seats, seed)
    for _ in range(100_000):
        if match.is_over:
            break
        seat = match.to_play
        view, legal = match.view(seat), match.legal_actions()
        action = choose(names[seat], view, legal, match.deal.seed)
        assert action in legal, f"{names[seat]} chose {action} (legal: {legal}) under {preset} {overrides}"
        match.apply(action)
    assert match.is_over
