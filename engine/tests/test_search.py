"""Search from one seat's information (eights_engine.search; issue 26's stepping stone to a strong house opponent):
it plays legal actions, reads only the seat's view and the ruleset, takes an obvious win, and is repeatable; the
heuristic playout policy chooses as the house heuristic does at standard card values."""

from __future__ import annotations

import random

import pytest

from eights_engine import Deal, MatchState, Ruleset, choose
from eights_engine.actions import ACTIONS
from eights_engine.cards import card_code, deck_cards
from eights_engine.fast import heuristic_id
from eights_engine.search import pimc_action


def test_it_plays_whole_matches_with_legal_actions_and_repeats_itself():
    rules = Ruleset.preset("web-table")
    match = MatchState.start(rules, 3, 11)
    chosen = []
    while not match.is_over and len(chosen) < 60:
        seat = match.to_play
        legal = list(match.deal.legal_ids())
        action = pimc_action(match.view(seat), rules, legal, samples=16, seed=len(chosen))
        assert action in legal
        assert pimc_action(match.view(seat), rules, legal, samples=16, seed=len(chosen)) == action
        chosen.append(action)
        match.apply_id(action)


def _position(rules, hand, opponent, pile, extra=()):
    """A two-seat position over the whole 52-card deck: seat 0's ``hand``, seat 1's ``opponent`` (the first cards of
    the rest when None), ``pile`` bottom first, the rest in the stock."""
    deck = [card_code(c) for c in deck_cards("52", 1)]
    rest = [c for c in deck if c not in set(hand) | set(pile) | set(opponent or ())]
    opponent = list(opponent) if opponent is not None else rest[:5]
    stock = [c for c in rest if c not in opponent]
    return Deal.from_position(rules, [list(hand), opponent], stock, list(pile), to_play=0)


def test_it_takes_the_card_that_goes_out():
    rules = Ruleset.preset("pagat")
    deal = _position(rules, ["5H"], None, ["QS", "4H"])
    legal = list(deal.legal_ids())
    assert legal == [13 * 2 + 4, 68]  # the 5 of hearts, or draw
    assert pimc_action(deal.view(0), rules, legal, samples=32, seed=3) == 13 * 2 + 4


def test_the_same_view_gives_the_same_choice_whatever_the_hidden_cards():
    """Two deals that differ only in what seat 0 cannot see: the search cannot tell them apart."""
    rules = Ruleset.preset("pagat")
    hand, pile = ["5H", "9H", "KS", "2D"], ["QS", "4H"]
    one = _position(rules, hand, ["2C", "3C", "4C", "9D"], pile)
    two = _position(rules, hand, ["7C", "6D", "TD", "AC"], pile)
    assert one.view(0) == two.view(0) and one.stock != two.stock
    legal = list(one.legal_ids())
    assert pimc_action(one.view(0), rules, legal, samples=32, seed=9) == pimc_action(two.view(0), rules, legal,
                                                                                      samples=32, seed=9)


def test_bad_input_is_refused():
    rules = Ruleset.preset("pagat")
    deal = Deal.start(rules, 2, 1)
    with pytest.raises(ValueError, match="no legal action"):
        pimc_action(deal.view(deal.to_play), rules, [], samples=4)
    with pytest.raises(ValueError, match="samples"):
        pimc_action(deal.view(deal.to_play), rules, list(deal.legal_ids()), samples=0)


@pytest.mark.parametrize("preset", ["pagat", "web-table", "crazy-eights", "eights-classic"])
def test_the_heuristic_playout_policy_chooses_as_the_house_heuristic(preset):
    rules = Ruleset.preset(preset)
    rng = random.Random(preset)
    for seed in range(15):
        deal = Deal.start(rules, 2 + seed % 3, seed)
        while not deal.is_over:
            legal = list(deal.legal_ids())
            seat = deal.to_play
            mine = ACTIONS[heuristic_id(deal, legal)] if legal[-1] != 74 else ACTIONS[74]
            theirs = choose("heuristic", deal.view(seat), [dict(ACTIONS[a]) for a in legal], deal.seed)
            assert mine == theirs, (preset, seed, deal.ply)
            deal.apply_id(rng.choice(legal))
