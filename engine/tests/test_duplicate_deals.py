"""Duplicate play rests on this: two matches with the same match seed deal seat s the same cards, with the same
dealer, deal by deal, however differently they are played (the seats' players rotated), in every preset and seat
count; the same holds for a one-deal replay (``single_deal``). Only the start of a deal is shared: under
``first_player="previous_winner"`` (web-table, russian-36) the leader of a later deal depends on who won the one
before, so mirrored deals may start with different leaders (the cards are the same)."""

import pytest

from eights_engine import PRESETS, MatchState, Ruleset, choose
from eights_engine.cards import card_code

STRATEGY_PAIRS = [("tactician", "random"), ("eager", "greedy")]


def _seat_counts(ruleset: Ruleset) -> list[int]:
    return sorted({ruleset.seats_min, min(ruleset.seats_max, ruleset.seats_min + 1), min(ruleset.seats_max, 4)})


def _play(ruleset: Ruleset, seats: int, seed: int, strategies: list[str], single_deal: dict | None = None,
          max_deals: int = 12, version: str = "2") -> list[dict]:
    """Play a match with ``strategies[s]`` at seat s; per deal started: seed, dealer, starting hands, the starter
    (the top card after the deal, before any ply) and the leader."""
    state = MatchState.start(ruleset, seats, seed, single_deal, version=version)
    starts = []
    while not state.is_over and state.deal_number <= max_deals:
        if len(starts) < state.deal_number:
            deal = state.deal
            starts.append({"seed": deal.seed, "dealer": deal.dealer, "to_play": deal.to_play,
                           "hands": [sorted(deal.hand(s)) for s in range(seats)],
                           "top": deal.top_card if deal.discard else None,
                           "stock": [card_code(c) for c in deal.stock]})
        seat = state.to_play
        state.apply(choose(strategies[seat], state.view(seat), state.legal_actions(), state.deal.seed))
    return starts


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_same_match_seed_deals_each_seat_the_same_cards_whoever_sits_there(preset):
    ruleset = Ruleset.preset(preset)
    for seats in _seat_counts(ruleset):
        for seed in (1, 2026):
            for a, b in STRATEGY_PAIRS:
                first = [a if s % 2 == 0 else b for s in range(seats)]
                rotated = first[1:] + first[:1]  # every player one seat on: the rotation's seating
                one, two = _play(ruleset, seats, seed, first), _play(ruleset, seats, seed, rotated)
                common = min(len(one), len(two))
                assert common >= 1
                for k in range(common):
                    x, y = one[k], two[k]
                    assert (x["seed"], x["dealer"]) == (y["seed"], y["dealer"]), (preset, seats, seed, k + 1)
                    assert x["hands"] == y["hands"], (preset, seats, seed, k + 1)
                    assert x["top"] == y["top"] and x["stock"] == y["stock"], (preset, seats, seed, k + 1)
                    if ruleset.first_player == "left_of_dealer" or k == 0:
                        assert x["to_play"] == y["to_play"]


def test_mirrored_play_does_diverge_so_the_test_above_compares_different_matches():
    ruleset = Ruleset.preset("pagat")
    one = MatchState.start(ruleset, 2, 7)
    two = MatchState.start(ruleset, 2, 7)
    for state, names in ((one, ["tactician", "random"]), (two, ["random", "tactician"])):
        while not state.is_over:
            seat = state.to_play
            state.apply(choose(names[seat], state.view(seat), state.legal_actions(), state.deal.seed))
    assert one.deal_actions != two.deal_actions


@pytest.mark.parametrize("version", ["1", "2"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_single_deal_replay_deals_the_same_cards_from_any_seating(preset, version):
    ruleset = Ruleset.preset(preset)
    seats = ruleset.seats_min
    deal = ({"seed": 123456789} if version == "1" else {"key": "5eed" * 16}) | {"dealer": seats - 1}
    names = ["tactician", "random"] * 4
    one = _play(ruleset, seats, 5, names[:seats], single_deal=deal, version=version)
    two = _play(ruleset, seats, 99, names[1:seats + 1], single_deal=deal, version=version)  # the match seed: no part
    assert len(one) == len(two) == 1
    assert one[0]["hands"] == two[0]["hands"] and one[0]["dealer"] == two[0]["dealer"] == seats - 1
