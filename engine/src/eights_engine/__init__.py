"""The Crazy Eights rules engine: pure Python, no Django, no I/O, no clock, no global randomness.

Public API (DESIGN.md, "Engine API"): ``Ruleset``, ``Deal``, ``DealResult``, ``MatchState``, ``replay``,
``deal_code``, ``IllegalAction``, ``ENGINE_VERSION``, ``verify_record`` (an exported match record, checked offline), the house strategies in ``strategies``, and the referee in
``referee`` (every seat's turn: the ``Turn`` an agent is given, and the one ``judge`` of its answer).
"""

from .cards import CARD_CODES, parse_card
from .deal import ENGINE_VERSION, Deal, DealResult
from .errors import IllegalAction
from .match import MatchState, PublicPly, ReplayMismatch, replay, replay_more
from .record import verify_record
from .rng import deal_code, seed_from_code
from .rules import PRESETS, Ruleset
from .strategies import HOUSE_STRATEGIES, STRATEGIES, choose

__all__ = [
    "CARD_CODES", "ENGINE_VERSION", "Deal", "DealResult", "HOUSE_STRATEGIES", "IllegalAction", "MatchState", "PRESETS",
    "PublicPly", "ReplayMismatch", "Ruleset", "STRATEGIES", "choose", "deal_code", "parse_card", "replay", "replay_more",
    "seed_from_code", "verify_record",
]
