"""The engine's public view (``Deal.public_view``, ``MatchState.public_view``: what every seat and a spectator may
see) and the watched plies (``MatchState.watch``: each ply as everyone saw it, kept by whoever advances the state).
The live feed builds watchers' views from these alone (games.live), so they must hold nothing hidden and must be
the views a replay gives at every ply."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eights_engine import PRESETS, MatchState, Ruleset, replay_more
from eights_engine.cards import CARD_CODES

PRIVATE = ("seat", "hand", "draws_left", "drawn_card", "announced")


def _random_match(preset: str, seats: int, seed: int, plies: int) -> MatchState:
    state = MatchState.start(Ruleset.preset(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), plies=st.integers(0, 400))
def test_the_public_view_is_every_seats_view_without_its_own_facts(preset, seed, plies):
    rules = Ruleset.preset(preset)
    state = _random_match(preset, rules.seats_min, seed, plies)
    public = state.public_view()
    for seat in range(state.seats):
        view = state.view(seat)
        assert {k: v for k, v in view.items() if k not in PRIVATE} == public


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), plies=st.integers(0, 300))
def test_the_public_view_names_no_card_of_a_hand_or_the_stock(preset, seed, plies):
    rules = Ruleset.preset(preset)
    state = _random_match(preset, rules.seats_min, seed, plies)
    deal = state.deal
    shown = set(_codes(state.public_view(history=False)))
    hidden = {CARD_CODES[c] for c in deal.stock} | {code for seat in range(state.seats) for code in deal.hand(seat)}
    seen = {CARD_CODES[c] for c in deal.discard}  # a double deck's twin of a discarded card may be in a hand
    assert not (shown & (hidden - seen))


def _codes(value) -> list[str]:
    if isinstance(value, str):
        return [value] if value in CARD_CODES else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in _codes(v)]
    if isinstance(value, list):
        return [c for v in value for c in _codes(v)]
    return []


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_watched_ply_is_the_public_view_a_replay_gives_after_it(preset):
    rules = Ruleset.preset(preset)
    full = _random_match(preset, rules.seats_max if rules.seats_max <= 4 else 4, 11, 2000)
    watched = MatchState.start(full.ruleset, full.seats, 11)
    watched.watch(10_000)
    replayed = MatchState.start(full.ruleset, full.seats, 11)
    count = 0
    for number, actions in enumerate(full.deal_actions, start=1):
        for action in actions:
            seat, logged = replayed.deal.to_play, replayed.deal.history_length
            deal = replayed.deal
            replayed.apply(action)
            count += 1
            ply = watched.apply(action) or watched.watched[-1]
            assert (ply.ply, ply.deal_number, ply.seat, ply.action) == (count, number, seat, action)
            assert ply.entries == deal.history_since(logged) and ply.entries  # a ply always puts something on record
            assert ply.view == replayed.public_view(history=False)
    assert watched.totals == full.totals and len(watched.watched) == count


def test_watched_after_says_when_the_kept_plies_do_not_reach_back():
    state = MatchState.start(Ruleset.preset("pagat"), 2, 5)
    rng = random.Random(5)
    assert state.watched_after(0) is None  # not watched
    state.watch(3)
    assert state.watched_after(0) == []  # up to date: nothing to tell
    for _ in range(5):
        state.apply(rng.choice(state.legal_actions()))
    assert [p.ply for p in state.watched] == [3, 4, 5]  # the last three kept
    assert [p.ply for p in state.watched_after(2)] == [3, 4, 5]
    assert [p.ply for p in state.watched_after(4)] == [5]
    assert state.watched_after(5) == []
    assert state.watched_after(1) is None  # ply 2 is no longer kept
    state.watch(10)  # a wider window keeps what is kept
    assert [p.ply for p in state.watched] == [3, 4, 5]


def test_a_state_brought_up_to_date_keeps_the_plies_it_was_given():
    full = _random_match("pagat", 3, 21, 120)
    actions = [a for deal in full.deal_actions for a in deal]
    state = MatchState.start(full.ruleset, 3, 21)
    for action in actions[:50]:
        state.apply(action)
    state.watch(500)
    record_deals = full.record()["deals"][state.deal_number - 1:]
    record_deals[0] = {**record_deals[0], "actions": record_deals[0]["actions"][len(state.deal_ids[-1]):]}
    replay_more(state, record_deals)
    assert [p.ply for p in state.watched] == list(range(51, len(actions) + 1))
    assert state.watched[-1].view == full.public_view(history=False)
