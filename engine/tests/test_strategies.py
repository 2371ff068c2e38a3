"""House strategies: they only ever return legal actions, and the heuristic clearly beats random."""

import json

import pytest

from eights_engine import STRATEGIES, Deal, MatchState, Ruleset, choose
from eights_engine.strategies import strategy_rng

PLAYED = ["pagat", "web-table", "eights-classic", "crazy-eights", "points-game", "russian-36", "no-draw"]

#: Option variants the engine plays beyond the presets; a strategy must stay legal under each.
VARIANTS = [
    {"eights": "no_declare"},
    {"eights": "match_suit"},
    {"go_out_on_eight": False},
    {"voluntary_draw": False},
    {"play_after_draw": "any"},
    {"play_after_draw": "none", "draw": "up_to", "draw_limit": 2},
    {"draw": "until_playable"},
    {"empty_stock": "pass"},
    {"starter_eight": "own_suit"},
    {"hand_size": 12},
]

CASES = [(p, {}) for p in PLAYED] + [("pagat", v) for v in VARIANTS]


def play_deal(rules, seats, seed, names):
    """Play one deal with strategy ``names[seat]`` at each seat; every choice must be listed as legal."""
    deal = Deal.start(rules, seats, seed, dealer=seed % seats)
    while not deal.is_over:
        seat = deal.to_play
        legal = deal.legal_actions()
        view = deal.view(seat)
        snapshot = json.dumps(view, sort_keys=True)
        action = choose(names[seat], view, legal, deal.seed)
        assert action in legal, f"{names[seat]} chose {action} (legal: {legal}) in {rules.to_dict()}"
        assert json.dumps(view, sort_keys=True) == snapshot, "a strategy changed its view"
        deal.apply(action)
    return deal


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("preset,overrides", CASES, ids=[f"{p}{'-' + '-'.join(map(str, v.values())) if v else ''}"
                                                         for p, v in CASES])
def test_strategy_only_returns_legal_actions(name, preset, overrides):
    rules = Ruleset.preset(preset, **{"ply_limit": 400, **overrides})  # a shorter safeguard keeps random deals quick
    for seed in range(12):
        seats = max(rules.seats_min, min(rules.seats_max, 2 + seed % 3))
        names = [name] * seats
        if seed % 2:  # against other strategies too, so positions differ
            others = sorted(STRATEGIES)
            names = [name if s == seed % seats else others[(s + seed) % len(others)] for s in range(seats)]
        play_deal(rules, seats, 1000 + seed, names)


def test_strategies_see_only_the_view_and_are_deterministic():
    deal = Deal.start(Ruleset.preset("pagat"), 3, 5)
    view, legal = deal.view(deal.to_play), deal.legal_actions()
    for name in STRATEGIES:
        assert choose(name, view, legal, deal.seed) == choose(name, view, legal, deal.seed)
        a = STRATEGIES[name](view, legal, strategy_rng(deal.seed, view["ply"], view["seat"]))
        assert a == choose(name, view, legal, deal.seed)


def test_heuristic_plays_an_undeclared_eight_under_no_declare():
    """Regression: the heuristic used to add a "suit" to an eight although eights="no_declare" lists none."""
    rules = Ruleset.preset("pagat", eights="no_declare")
    deal = Deal.from_position(rules, [["8D", "2C"], ["3S"]], ["9C", "4D"], ["5H"], 0)
    legal = deal.legal_actions()
    assert {"type": "play", "card": "8D"} in legal
    for name in STRATEGIES:
        assert choose(name, deal.view(0), legal, 1) in legal


def test_unknown_strategy():
    deal = Deal.start(Ruleset.preset("pagat"), 2, 5)
    with pytest.raises(ValueError, match="nope"):
        choose("nope", deal.view(deal.to_play), deal.legal_actions(), deal.seed)


def _win_share(rules, strong, weak, matches, base_seed):
    share = 0.0
    for i in range(matches):
        strong_seat = i % 2  # alternate seats: seat 0 leads the first deal
        names = [weak, weak]
        names[strong_seat] = strong
        m = MatchState.start(rules, 2, base_seed + i)
        while not m.is_over:
            seat = m.to_play
            action = choose(names[seat], m.view(seat), m.legal_actions(), m.deal.seed)
            m.apply(action)
        places = m.standings
        if places[strong_seat] == 1:
            share += 1.0 if places[1 - strong_seat] != 1 else 0.5
    return share / matches


def test_heuristic_beats_random():
    share = _win_share(Ruleset.preset("pagat"), "heuristic", "random", 200, 7000)
    assert share > 0.6, f"heuristic won only {share:.0%} of 200 two-seat matches against random"


def test_heuristic_beats_random_in_winner_collects():
    share = _win_share(Ruleset.preset("eights-classic"), "heuristic", "random", 60, 9000)
    assert share > 0.6, f"heuristic won only {share:.0%} of 60 eights-classic matches against random"
