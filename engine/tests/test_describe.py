"""The rules in plain words (eights_engine.describe, issue 10 part 5): every Ruleset field, set to each of its
non-default values where it is in force, changes the words, so a field added later cannot be left out; the worked
example of the scoring agrees with the engine's card values; each preset reads as its system does."""

import dataclasses
import re

import pytest

from eights_engine import PRESETS, Ruleset
from eights_engine.cards import HOLLYWOOD_VALUES, STANDARD_VALUES, parse_card
from eights_engine.describe import describe_rules, rules_text
from eights_engine.rules import _CHOICES, _HELP

#: field -> (overrides that put the field in force, its non-default values to try)
FIELD_VALUES = {
    "seats_min": ({}, [3, 4, 8]),
    "seats_max": ({}, [2, 4, 7]),
    "decks": ({}, [1, 2]),
    "ranks": ({}, ["36"]),
    "hand_size": ({}, [1, 5, 7, 10, "all"]),
    "starter_eight": ({}, ["reshuffle", "bury", "own_suit"]),
    "draw": ({}, ["until_playable", "up_to"]),
    "draw_limit": ({"draw": "up_to"}, [1, 2, 5, 52]),
    "play_after_draw": ({}, ["any", "none"]),
    "voluntary_draw": ({}, [False]),
    "empty_stock": ({}, ["pass"]),
    "stock_out_ends_turn": ({}, [True]),
    "explicit_pass": ({}, [True]),
    "eights": ({}, ["match_suit", "no_declare"]),
    "go_out_on_eight": ({}, [False]),
    "twos": ({}, ["stack", "winding"]),
    "queen_of_spades_draw": ({}, [5]),
    "skip_rank": ({}, ["J", "Q"]),
    "reverse_rank": ({}, ["A"]),
    "reverse_two_seats": ({"reverse_rank": "A"}, ["noop"]),
    "last_card_penalty": ({}, [2]),
    "action_on_going_out": ({"twos": "stack"}, ["apply"]),
    "partnership": ({}, [True]),
    "scoring": ({}, ["winner_collects", "hollywood"]),
    "card_values": ({}, ["hollywood"]),
    "target": ({}, [1, 50, 300, 100000]),
    "target_per_seat": ({}, [1, 50]),
    "hollywood_games": ({"scoring": "hollywood", "hollywood_total_games": 9}, [1, 2, 5, 9]),
    "hollywood_total_games": ({"scoring": "hollywood"}, [4, 99]),
    "target_reached_wins": ({"scoring": "hollywood"}, [False]),
    "blocked": ({}, ["lowest_collects_difference"]),
    "blocked_tie": ({"scoring": "winner_collects", "blocked": "lowest_collects_difference"}, ["nobody"]),
    "match_tie": ({}, ["play_on"]),
    "first_player": ({}, ["previous_winner"]),
    "dealer_rotates": ({}, [False]),
    "ply_limit": ({}, [10, 5000]),
}


def test_every_field_of_the_ruleset_is_covered_here():
    """A new Ruleset field fails here until it has values above (and so words in describe.py)."""
    assert set(FIELD_VALUES) == {f.name for f in dataclasses.fields(Ruleset)}


@pytest.mark.parametrize("name", sorted(FIELD_VALUES))
def test_every_choice_of_a_field_is_tried(name):
    """Every named choice of a field (from the ruleset's own help: 'a' or 'b', true or false) is in the list."""
    default = getattr(Ruleset(), name)
    help_text = _HELP[name]
    choices = set(re.findall(r"'([^']*)'", help_text))
    if "true or false" in help_text:
        choices |= {True, False}
    if "null" in help_text:
        choices.add(None)
    for pair in re.findall(r"\b(\d+) or (\d+)\b", help_text):  # "0 or 5", "0 or 2": both numbers are choices
        choices |= {int(n) for n in pair}
    choices = {c for c in choices if _CHOICES[name](c)}
    missing = {c for c in choices if c != default} - set(FIELD_VALUES[name][1])
    assert not missing, f"{name}: try {missing} too"


CASES = [(name, value) for name, (_base, values) in sorted(FIELD_VALUES.items()) for value in values]


@pytest.mark.parametrize("name,value", CASES, ids=[f"{n}={v}" for n, v in CASES])
def test_each_field_in_force_changes_the_words(name, value):
    base_fields, _values = FIELD_VALUES[name]
    base = Ruleset.from_dict(dict(base_fields))
    changed = Ruleset.from_dict({**base_fields, name: value})
    assert rules_text(changed) != rules_text(base), f"{name}={value!r} is not told (no seat count)"
    seats = changed.seats_min if changed.seats_min >= base.seats_min else base.seats_min
    seats = max(seats, 4) if changed.partnership else seats
    assert rules_text(changed, seats) != rules_text(base, seats), f"{name}={value!r} is not told ({seats} seats)"


def _value(card, values):
    return values[parse_card(card)]


def test_the_worked_example_is_the_engines_sum():
    """Seed 001: 8, Q, A, 5 = 50 + 10 + 1 + 5 = 66; Hollywood values (A1) give 20 + 10 + 15 + 5 = 50."""
    hand = ["8H", "QS", "AD", "5C"]
    assert sum(_value(c, STANDARD_VALUES) for c in hand) == 66
    assert sum(_value(c, HOLLYWOOD_VALUES) for c in hand) == 50
    assert "50 + 10 + 1 + 5 = 66" in rules_text(Ruleset.preset("web-table"), 2)
    hollywood = rules_text(Ruleset.preset("hollywood"), 2)
    assert "20 + 10 + 15 + 5 = 50" in hollywood and "an eight 20 points, an ace 15" in hollywood
    assert "= 66" not in hollywood


def test_the_web_table_reads_like_seed_001():
    two = rules_text(Ruleset.preset("web-table"), 2)
    assert "dealt seven cards" in two
    assert "dealt five cards" in rules_text(Ruleset.preset("web-table"), 3)
    assert "at most three cards per turn" in two
    assert "Drawing is allowed even when you could play" in two
    assert "whoever won the previous deal plays first" in two
    assert "it stands for its own printed suit" in two
    assert "shape and its name in words" in two
    assert "no direction arrow" in two
    assert "the lowest total wins" in two and "reaches 100 points" in two
    assert "top card of the discard pile stays" in two
    assert "you press Pass" in two


def test_each_preset_names_its_key_options():
    texts = {name: rules_text(Ruleset.preset(name)) for name in PRESETS}
    assert "draw one card from the stock" in texts["pagat"] and "the dealer is taken to have played it" in texts["pagat"]
    assert "until a card that fits comes" in texts["eights-classic"] and "never reshuffled" in texts["eights-classic"]
    assert "split the winnings" in texts["eights-classic"]
    assert "300 points" in texts["crazy-eights"] and "middle of the stock" in texts["crazy-eights"]
    assert "your draws use up the stock, you stop drawing" in texts["crazy-eights"]
    assert "50 points per player (100 with two players, 350 with seven)" in texts["points-game"]
    assert "nobody scores and the next deal is dealt" in texts["points-game"]
    assert "Three games are kept at once" in texts["hollywood"] and "exactly two players" in texts["hollywood"]
    assert "whole deck is dealt out" in texts["no-draw"] and "exactly four players" in texts["no-draw"]
    assert "36-card deck" in texts["russian-36"] and "at most one card per turn" in texts["russian-36"]
    for name, text in texts.items():
        assert ("= 50" if name == "hollywood" else "= 66") in text, name
        assert "none" not in text.split() and "None" not in text.split(), name  # no Python values leak into words


def test_the_special_cards_are_told_when_in_force():
    r = Ruleset.preset("pagat", twos="stack", queen_of_spades_draw=5, skip_rank="Q", reverse_rank="A",
                       last_card_penalty=2)
    special = {s.key: s for s in describe_rules(r, 3)}["special"].paragraphs
    words = " ".join(special)
    assert "Two:" in words and "Queen of spades: the next player draws five cards" in words
    assert "Queen (other than the queen of spades" in words and "Ace: the direction of play reverses" in words
    assert "draws two penalty cards" in words and "without its effect" in words
    assert "no direction arrow" not in words
    plain = " ".join({s.key: s for s in describe_rules(Ruleset(), 3)}["special"].paragraphs)
    assert "No card other than the eight does anything special" in plain


def test_sections_are_in_reading_order_and_seats_are_checked():
    keys = [s.key for s in describe_rules(Ruleset())]
    assert keys == ["cards", "fits", "eight", "drawing", "special", "scoring", "end"]
    with pytest.raises(ValueError, match="2 to 2 seats, not 3"):
        describe_rules(Ruleset.preset("hollywood"), 3)
