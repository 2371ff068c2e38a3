"""The ruleset's options resolved once (``options_for``): named booleans and numbers, and the rule steps chosen for
the ruleset, as Battlesnake's ``rules/pipeline.go`` builds each ruleset from named stages. The draw rule is data
(``legality.DrawRule``): how many cards a turn and the reason for each refusal, so that ``legal_ids`` asks no step
function on the hot path.

A deal reads only this object on the hot path (``Deal._o``), never the ``Ruleset`` and never an option by its
string value: every choice below is made here, once per ruleset, and the step functions themselves live in the room
of what they do (``legality.py``: what may be played and whether a seat may draw; ``effects.py``: action cards and
the starter). ``describe()`` lists the chosen steps by name, for a reader or a test.
"""

from __future__ import annotations

from functools import lru_cache

from . import effects, legality
from .actions import PLAY_IDS, fast_ids
from .cards import ACE, HOLLYWOOD_VALUES, QUEEN_OF_SPADES, RANKS, STANDARD_VALUES, TWO, card_code
from .rules import Ruleset

_STARTERS = {
    "dealer_declares": effects.starter_dealer_declares,
    "reshuffle": effects.starter_reshuffled,
    "bury": effects.starter_buried,
    "own_suit": effects.starter_own_suit,
}
_AFTER_DRAW = {
    "any": legality.any_card_after_draw,
    "drawn_only": legality.drawn_card_only,
    "none": legality.no_card_after_draw,
}


class Options:
    """One ruleset's options as plain attributes and chosen steps (see the module docstring). Build with
    ``options_for(ruleset)``; read-only by convention."""

    __slots__ = (
        "declares", "eights_match_suit", "go_out_on_eight", "special_fits", "fast_ids",
        "play_ids", "after_draw", "any_card_after_draw", "draw_rule", "cards_a_turn", "at_the_limit",
        "holding_a_play_first", "holding_a_play_later", "stock_out_ends_turn", "may_keep_drawn_card",
        "reshuffle", "turn_ends_when_stuck", "twos_stack", "queen_draw", "card_effects", "effects_on_going_out",
        "reverse_skips", "last_card", "partnership", "simple_turns", "values", "ply_limit", "starter",
    )

    def __init__(self, r: Ruleset) -> None:
        # what may be played (common core; eights of C; go_out_on_eight of B)
        self.declares = r.eights != "no_declare"
        self.eights_match_suit = r.eights == "match_suit"
        self.go_out_on_eight = r.go_out_on_eight
        self.special_fits = self.eights_match_suit or not r.go_out_on_eight  # legal_ids cannot inline the fit
        self.fast_ids = fast_ids(self.declares)  # the dict API's canonical actions -> ids
        self.play_ids = PLAY_IDS[self.declares]  # playable mask -> play ids (memo of actions.play_ids)
        self.after_draw = _AFTER_DRAW[r.play_after_draw]
        self.any_card_after_draw = r.play_after_draw == "any"

        # the draw rule (legality.legal_ids, legality.draw_rule): the system's DrawRule, flat for the hot path;
        # stock_out_ends_turn (C) stops the draws when the stock ran out during them
        (self.draw_rule, self.cards_a_turn, self.at_the_limit, self.holding_a_play_first,
         self.holding_a_play_later) = legality.draw_rule(r.draw, r.draw_limit, r.play_after_draw, r.voluntary_draw)
        self.stock_out_ends_turn = r.stock_out_ends_turn
        self.may_keep_drawn_card = r.draw == "one" and r.voluntary_draw  # D's "may": pass keeping a drawn card
        self.reshuffle = r.empty_stock == "reshuffle"
        self.turn_ends_when_stuck = not r.explicit_pass  # no play, no draw left: the turn ends (else: pass, B)

        # action cards (D E A2 A3): card -> its effect step; the queen of spades before a queen skip rank
        self.twos_stack = r.twos == "stack"
        self.queen_draw = r.queen_of_spades_draw
        effects_by_card: dict = {}
        if r.reverse_rank == "A":
            effects_by_card.update(dict.fromkeys(_all_suits(ACE), effects.reverse_direction))
        if r.skip_rank:
            effects_by_card.update(dict.fromkeys(_all_suits(RANKS.index(r.skip_rank)), effects.skip_next_seat))
        if self.queen_draw:
            effects_by_card[QUEEN_OF_SPADES] = effects.queen_of_spades_draw
        if r.twos != "off":
            step = effects.twos_stack if self.twos_stack else effects.twos_winding
            effects_by_card.update(dict.fromkeys(_all_suits(TWO), step))
        self.card_effects = effects_by_card
        self.effects_on_going_out = r.action_on_going_out == "apply"
        self.reverse_skips = r.reverse_two_seats == "skip"
        self.last_card = r.last_card_penalty

        # turn order, values, safeguard, starter
        self.partnership = r.partnership
        self.simple_turns = not r.partnership  # no seat is ever skipped for being out
        self.values = HOLLYWOOD_VALUES if r.card_values == "hollywood" else STANDARD_VALUES
        self.ply_limit = r.ply_limit
        self.starter = _STARTERS[r.starter_eight]

    def describe(self) -> dict:
        """The chosen steps by name and the draw rule's named booleans, e.g. ``{"starter": "starter_buried",
        "after_draw": "drawn_card_only", "draw_rule": "draw_until_playable", "forced_play": False,
        "stock_out_ends_turn": True, "turn_ends_when_stuck": True, "card_effects": {}}``; action cards as
        ``{card code: step name}``."""
        return {
            "starter": self.starter.__name__,
            "after_draw": self.after_draw.__name__,
            "draw_rule": self.draw_rule,
            "forced_play": self.holding_a_play_first is not None,
            "stock_out_ends_turn": self.stock_out_ends_turn,
            "turn_ends_when_stuck": self.turn_ends_when_stuck,
            "card_effects": {card_code(c): f.__name__ for c, f in sorted(self.card_effects.items())},
        }


def _all_suits(rank: int) -> list[int]:
    return [s * 13 + rank for s in range(4)]


@lru_cache(maxsize=64)
def options_for(ruleset: Ruleset) -> Options:
    """The resolved options of ``ruleset`` (cached: a ruleset is frozen)."""
    return Options(ruleset)
