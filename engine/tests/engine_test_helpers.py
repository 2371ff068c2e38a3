"""Shared helpers of the option tests (``test_options.py``, ``test_draw_rules.py``, ``test_action_cards.py``,
``test_scoring.py``, ``test_presets.py``): hand-built positions, action dicts, snapshot-checked illegal moves.

Only the public API of ``eights_engine`` is used (DESIGN.md "Engine API" and the attributes ``Deal``'s docstring
lists as public).
"""

from __future__ import annotations

import json

import pytest

from eights_engine import Deal, IllegalAction, Ruleset
from eights_engine.cards import card_code, deck_cards

DRAW = {"type": "draw"}
PASS = {"type": "pass"}
ANNOUNCE = {"type": "announce"}


def rules(preset="pagat", **overrides):
    return Ruleset.preset(preset, **overrides)


def pos(ruleset, hands, stock, discard, to_play=0, **kw):
    """``Deal.from_position``: card codes, ``stock`` top first, ``discard`` bottom first (last = top card)."""
    return Deal.from_position(ruleset, hands, stock, discard, to_play, **kw)


def play(card, suit=None):
    action = {"type": "play", "card": card}
    if suit is not None:
        action["suit"] = suit
    return action


def declare(suit):
    return {"type": "declare", "suit": suit}


def plays_of(deal):
    return [a for a in deal.legal_actions() if a["type"] == "play"]


def cards_played(deal):
    """Distinct card codes the seat may play now."""
    return sorted({a["card"] for a in plays_of(deal)})


def codes(cards):
    return [card_code(c) for c in cards]


def stock_codes(deal):
    """The stock as codes, top first (the order ``from_position`` takes)."""
    return [card_code(c) for c in reversed(deal.stock)]


def all_cards(deal):
    return sorted([c for h in deal.hands for c in h] + list(deal.stock) + list(deal.discard))


def full_deck(deal):
    return sorted(deck_cards(deal.ruleset.ranks, deal.ruleset.deck_count(deal.seats)))


def snapshot(deal):
    """Everything a refused action must leave untouched."""
    return (
        json.dumps([deal.view(s) for s in range(deal.seats)], sort_keys=True),
        [list(h) for h in deal.hands],
        list(deal.stock),
        list(deal.discard),
        deal.to_play,
        deal.declared_suit,
        deal.drawn_this_turn,
        deal.last_drawn,
        deal.pending_draw,
        deal.direction,
        deal.awaiting_declaration,
        deal.passes_in_row,
        deal.ply,
        deal.result,
    )


def assert_illegal(deal, action, *words):
    """``action`` raises ``IllegalAction`` whose message holds every one of ``words``; the deal is unchanged."""
    before = snapshot(deal)
    with pytest.raises(IllegalAction) as info:
        deal.apply(action)
    message = str(info.value)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert snapshot(deal) == before
    return message


def run(deal, steps):
    """Apply ``(seat, action)`` steps, checking the seat to play and that the action is listed first."""
    for i, (seat, action) in enumerate(steps):
        assert deal.to_play == seat, f"step {i} {action}: seat {deal.to_play} to play, expected {seat}"
        assert action in deal.legal_actions(), f"step {i}: {action} not in {deal.legal_actions()}"
        deal.apply(action)


def seed_where(ruleset, seats, predicate, limit=20000, **kw):
    """The first seed in 0..limit whose ``Deal.start`` satisfies ``predicate`` (searched, so deterministic)."""
    for seed in range(limit):
        deal = Deal.start(ruleset, seats, seed, **kw)
        if predicate(deal):
            return seed
    raise AssertionError("no seed found")


def preset_deal(preset: str, seats: int, seed: int) -> Deal | None:
    """A deal of ``preset`` at ``seats`` brought into the preset's range, dealt by ``seed`` with dealer ``seed %
    seats``; None when that seat count does not fit the deck (for tests drawing presets, seats and seeds)."""
    ruleset = Ruleset.preset(preset)
    seats = max(ruleset.seats_min, min(ruleset.seats_max, seats))
    try:
        return Deal.start(ruleset, seats, seed, dealer=seed % seats)
    except ValueError:
        return None
