"""The engine's rooms (issue 9, "Structure"): ``deal.py`` split by responsibility into modules a newcomer finds by
name, none over ~400 lines; the ruleset's options resolved once into named steps (``options.py``); the public
names still importable from where callers import them."""

from pathlib import Path

import pytest

from eights_engine import PRESETS, Ruleset
from eights_engine.options import options_for

ENGINE = Path(__file__).resolve().parents[1] / "src" / "eights_engine"


def test_no_engine_module_is_over_400_lines():
    lengths = {path.name: len(path.read_text().splitlines()) for path in ENGINE.glob("*.py")}
    assert {name: n for name, n in lengths.items() if n > 400} == {}


def test_each_rule_has_its_room():
    for room in ("actions", "hands", "options", "legality", "effects", "explain", "scoring", "deal"):
        assert (ENGINE / f"{room}.py").is_file(), room


def test_the_public_names_are_still_imported_from_deal():
    from eights_engine.deal import (  # noqa: F401
        ACTIONS, ANNOUNCE, DECLARE, DRAW, ENGINE_VERSION, PASS, Deal, DealResult, check_ruleset_seats,
    )

    assert (DRAW, PASS, DECLARE, ANNOUNCE, len(ACTIONS)) == (68, 69, 70, 74, 75)
    assert ACTIONS[52] == {"type": "play", "card": "8C", "suit": "C"}


STEPS = {  # preset -> (starter, after_draw, draw_rule, forced_play, stock_out_ends_turn, turn_ends_when_stuck)
    "pagat": ("starter_dealer_declares", "drawn_card_only", "one_card_a_turn", False, False, True),
    "web-table": ("starter_own_suit", "any_card_after_draw", "draw_up_to_limit", False, False, False),
    "eights-classic": ("starter_reshuffled", "drawn_card_only", "draw_until_playable", True, False, True),
    "crazy-eights": ("starter_buried", "drawn_card_only", "draw_until_playable", False, True, True),
    "points-game": ("starter_reshuffled", "drawn_card_only", "draw_until_playable", True, False, True),
    "hollywood": ("starter_reshuffled", "drawn_card_only", "draw_until_playable", True, False, True),
    "no-draw": ("starter_dealer_declares", "drawn_card_only", "one_card_a_turn", False, False, True),
    "russian-36": ("starter_own_suit", "any_card_after_draw", "draw_up_to_limit", False, False, False),
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_resolves_to_its_named_rule_steps(preset):
    steps = options_for(Ruleset.preset(preset)).describe()
    keys = ("starter", "after_draw", "draw_rule", "forced_play", "stock_out_ends_turn", "turn_ends_when_stuck")
    assert tuple(steps[k] for k in keys) == STEPS[preset]
    assert steps["card_effects"] == {}


def test_action_cards_map_to_one_effect_step_each_the_queen_of_spades_before_a_queen_skip():
    rules = Ruleset.preset("pagat", twos="stack", skip_rank="Q", reverse_rank="A", queen_of_spades_draw=5)
    effects = options_for(rules).describe()["card_effects"]
    assert effects == {
        "AC": "reverse_direction", "2C": "twos_stack", "QC": "skip_next_seat",
        "AD": "reverse_direction", "2D": "twos_stack", "QD": "skip_next_seat",
        "AH": "reverse_direction", "2H": "twos_stack", "QH": "skip_next_seat",
        "AS": "reverse_direction", "2S": "twos_stack", "QS": "queen_of_spades_draw",
    }
    assert options_for(Ruleset.preset("pagat", twos="winding")).describe()["card_effects"]["2H"] == "twos_winding"


def test_play_after_draw_none_makes_the_draw_rule_end_the_turn_after_a_draw_except_under_one_card():
    assert options_for(Ruleset.preset("pagat", draw="up_to", play_after_draw="none")).describe()["draw_rule"] == (
        "turn_ends_after_draw")
    assert options_for(Ruleset.preset("pagat", play_after_draw="none")).describe()["draw_rule"] == "one_card_a_turn"


def test_options_are_resolved_once_per_ruleset():
    assert options_for(Ruleset.preset("pagat")) is options_for(Ruleset.preset("pagat"))
