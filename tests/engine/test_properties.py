"""Properties of random legal play in every preset the engine plays (DESIGN.md, "Engine API" and
"Hidden information"; the invariants listed at the top of ``games/engine/deal.py``)."""

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    PRESETS, STRATEGIES, Deal, IllegalAction, MatchState, ReplayMismatch, Ruleset, choose, replay,
)
from games.engine.cards import CARD_CODES, card_code, deck_cards

PLAYED = ["pagat", "web-table", "eights-classic", "crazy-eights", "points-game", "russian-36", "no-draw"]  # hollywood: test_random_rulesets (shorter target)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seats_for(preset, seats):
    rules = Ruleset.preset(preset)
    return max(rules.seats_min, min(rules.seats_max, seats))


def full_deck(deal):
    return sorted(deck_cards(deal.ruleset.ranks, deal.ruleset.deck_count(deal.seats)))


def all_cards(deal):
    return sorted([c for h in deal.hands for c in h] + deal.stock + deal.discard)


def snapshot(deal):
    """The whole state of a deal (views are functions of it; ``history`` compared by length and last entry)."""
    return (
        [list(h) for h in deal.hands], list(deal.stock), list(deal.discard), deal.to_play, deal.declared_suit,
        deal.drawn_this_turn, deal.last_drawn, deal.awaiting_declaration, deal.passes_in_row, deal.ply,
        deal.reshuffles, deal.result, len(deal.history), deal.history[-1:],
    )


def candidate_actions(deal):
    """Canonical actions of every shape; those not listed by legal_actions() must be refused."""
    out = [{"type": "draw"}, {"type": "pass"}, {"type": "announce"}]
    out += [{"type": "declare", "suit": s} for s in "CDHS"]
    for code in CARD_CODES:
        if code[0] == "8":
            out.append({"type": "play", "card": code})
            out += [{"type": "play", "card": code, "suit": s} for s in "CDHS"]
        else:
            out.append({"type": "play", "card": code})
            out.append({"type": "play", "card": code, "suit": code[1]})
    return out


def check_view(deal):
    """Each seat's view shows its own hand and public facts only."""
    public = {h["card"] for h in deal.history if "card" in h}
    if deal.top_card:
        public.add(deal.top_card)
    stock = {card_code(c) for c in deal.stock}
    for seat in range(deal.seats):
        view = deal.view(seat)
        assert view["hand"] == deal.hand(seat)
        assert view["hand_counts"] == [len(h) for h in deal.hands]
        assert view["stock_count"] == len(deal.stock)
        assert view["discard_count"] == len(deal.discard)
        assert view["top_card"] == deal.top_card
        assert view["active_suit"] == deal.active_suit
        assert view["to_play"] == (None if deal.is_over else deal.to_play)
        text = json.dumps(view)
        json.loads(text)
        own = set(view["hand"])
        hidden = set(stock)
        for other in range(deal.seats):
            if other != seat:
                hidden |= set(deal.hand(other))
        hidden -= public | own
        for code in hidden:
            assert f'"{code}"' not in text, f"seat {seat} sees {code}: {text}"
        if seat != deal.to_play:
            assert view["drawn_card"] is None
        assert "seed" not in view and "stock" not in view


def check_ply(deal, rng):
    assert all_cards(deal) == full_deck(deal)
    check_view(deal)
    legal = deal.legal_actions()
    if deal.is_over:
        assert legal == []
        return legal
    assert legal, "legal_actions() is empty while the deal runs"
    assert len({json.dumps(a, sort_keys=True) for a in legal}) == len(legal), "an action is listed twice"
    before = snapshot(deal)
    for action in legal:
        twin = deal.clone()
        twin.apply(action)
        assert twin.ply == deal.ply + 1
        assert all_cards(twin) == full_deck(twin)
    assert snapshot(deal) == before  # clones are independent
    unlisted = [a for a in candidate_actions(deal) if a not in legal]
    for action in rng.sample(unlisted, min(8, len(unlisted))):
        twin = deal.clone()
        with pytest.raises(IllegalAction):
            twin.apply(action)
        assert snapshot(twin) == before
    return legal


def pick(legal, rng, eagerness):
    """A random legal action; with probability ``eagerness`` a random play when one is listed (pure random
    play in the draw-until-playable presets often runs into the ply limit, which makes the test slow)."""
    plays = [a for a in legal if a["type"] == "play"]
    if plays and rng.random() < eagerness:
        return rng.choice(plays)
    return rng.choice(legal)


def play_out(deal, rng, check=True, eagerness=0.7):
    limit = deal.ruleset.ply_limit + 5
    for _ in range(limit):
        legal = check_ply(deal, rng) if check else deal.legal_actions()
        if deal.is_over:
            break
        deal.apply(pick(legal, rng, eagerness))
    assert deal.is_over, "the deal did not end"
    if check:
        check_ply(deal, rng)
    return deal.result


@SETTINGS
@given(
    preset=st.sampled_from(PLAYED),
    seats=st.integers(2, 4),
    seed=st.integers(0, 2**40 - 1),
    choices=st.integers(0, 2**32 - 1),
    eagerness=st.sampled_from([0.0, 0.5, 0.9]),
)
def test_random_legal_play_keeps_the_invariants(preset, seats, seed, choices, eagerness):
    seats = seats_for(preset, seats)
    rules = Ruleset.preset(preset, ply_limit=300)  # keeps a purely random deal short; the limit ends it as blocked
    dealer = seed % seats
    deal = Deal.start(rules, seats, seed, dealer=dealer)
    rng = random.Random(choices)
    result = play_out(deal, rng, eagerness=eagerness)
    assert result.outcome in ("out", "blocked")
    assert len(result.points) == len(result.hand_values) == seats
    assert result.hand_values == [deal.hand_value(s) for s in range(seats)]
    if result.outcome == "out":
        assert deal.hand(result.winner) == []
        assert result.hand_values[result.winner] == 0
    else:
        assert result.winner is None
    if rules.scoring == "penalty":
        if result.outcome == "out" or rules.blocked == "each_own":
            assert result.points == result.hand_values
    if rules.scoring == "winner_collects" and result.outcome == "out":
        assert result.points[result.winner] == sum(result.hand_values)
        assert sum(result.points) == result.points[result.winner]


@SETTINGS
@given(
    seed=st.integers(0, 2**40 - 1),
    seats=st.integers(2, 4),
    choices=st.integers(0, 2**32 - 1),
    hand_size=st.sampled_from([10, 12]),
    empty_stock=st.sampled_from(["reshuffle", "pass"]),
)
def test_pagat_deals_with_little_stock(seed, seats, choices, hand_size, empty_stock):
    """Small stocks make reshuffles, passes and (with empty_stock="pass") blocked deals common."""
    rules = Ruleset.preset("pagat", hand_size=hand_size, empty_stock=empty_stock, ply_limit=300)
    deal = Deal.start(rules, seats, seed)
    result = play_out(deal, random.Random(choices), eagerness=0.8)
    if result.outcome == "blocked":
        assert result.points == result.hand_values  # system D: each seat scores its own hand
        if result.plies < rules.ply_limit:
            passes = [h["type"] == "pass" for h in deal.history[-seats:]]
            assert all(passes), "a blocked deal ends with a pass by every seat in succession"
            assert deal.stock == []


@SETTINGS
@given(
    preset=st.sampled_from(PLAYED),
    seats=st.integers(2, 4),
    seed=st.integers(0, 2**31),
    strategies=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=4, max_size=4),
)
def test_matches_end_and_replay(preset, seats, seed, strategies):
    seats = seats_for(preset, seats)
    rules = Ruleset.preset(preset)
    match = MatchState.start(rules, seats, seed)
    for _ in range(200_000):
        if match.is_over:
            break
        seat = match.to_play
        view = match.view(seat)
        legal = match.legal_actions()
        action = choose(strategies[seat], view, legal, match.deal.seed)
        assert action in legal
        match.apply(action)
    assert match.is_over
    assert max(match.totals) >= match.target or match.deal_number >= 500
    assert len(match.standings) == seats and min(match.standings) == 1
    assert match.legal_actions() == []
    with pytest.raises(IllegalAction):
        match.apply({"type": "draw"})
    record = json.loads(json.dumps(match.record()))
    again = replay(record)
    assert again.is_over
    assert again.totals == match.totals
    assert again.standings == match.standings
    assert again.deal_number == match.deal_number
    assert [r.points for r in again.results] == [r.points for r in match.results]


def test_replay_detects_tampering():
    match = MatchState.start(Ruleset.preset("pagat"), 2, 11)
    while not match.is_over:
        match.apply(choose("heuristic", match.view(match.to_play), match.legal_actions(), match.deal.seed))
    record = match.record()
    bad = json.loads(json.dumps(record))
    bad["deals"][0]["points"] = [p + 1 for p in bad["deals"][0]["points"]]
    with pytest.raises(ReplayMismatch):
        replay(bad)
    bad = json.loads(json.dumps(record))
    bad["deals"][0]["seed"] += 1
    with pytest.raises(ReplayMismatch):
        replay(bad)
    bad = json.loads(json.dumps(record))
    bad["deals"][0]["actions"][0] = {"type": "play", "card": "ZZ"}
    with pytest.raises(ReplayMismatch):
        replay(bad)
    bad = json.loads(json.dumps(record))
    bad["engine_version"] = "0"
    with pytest.raises(ReplayMismatch):
        replay(bad)


def test_same_seed_and_actions_give_the_same_match():
    def run():
        m = MatchState.start(Ruleset.preset("web-table"), 3, 99)
        while not m.is_over:
            m.apply(choose("greedy", m.view(m.to_play), m.legal_actions(), m.deal.seed))
        return m.record(), m.totals

    assert run() == run()


# ---- Ruleset schema --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(PRESETS))
def test_ruleset_round_trip(name):
    rules = Ruleset.preset(name)
    d = rules.to_dict()
    assert Ruleset.from_dict(d) == rules
    assert Ruleset.from_dict(json.loads(json.dumps(d))) == rules
    assert set(d) == {f.name for f in dataclasses.fields(Ruleset)}


def test_pagat_is_the_default():
    assert Ruleset.preset("pagat") == Ruleset() == Ruleset.from_dict({})


def test_unknown_preset_and_field():
    with pytest.raises(ValueError, match="nope"):
        Ruleset.preset("nope")
    with pytest.raises(ValueError, match="'colour'"):
        Ruleset.from_dict({"colour": "red"})
    with pytest.raises(ValueError, match="'colour'"):
        Ruleset.preset("pagat", colour="red")
    with pytest.raises(ValueError):
        Ruleset.from_dict(["draw"])


FIELDS = [f.name for f in dataclasses.fields(Ruleset)]


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(FIELDS), bad=st.sampled_from(["bogus", -7, 3.5, [1], {"a": 1}, 10**9]))
def test_bad_values_name_the_field(field, bad):
    default = getattr(Ruleset(), field)
    if bad == default:
        return
    d = {**Ruleset().to_dict(), field: bad}
    try:
        Ruleset.from_dict(d)
    except ValueError as exc:
        assert f"'{field}'" in str(exc), str(exc)
    else:
        pytest.fail(f"{field}={bad!r} was accepted")


@pytest.mark.parametrize("field", [f for f in FIELDS if isinstance(getattr(Ruleset(), f), (int, str))
                                   and not isinstance(getattr(Ruleset(), f), bool)])
def test_booleans_are_not_numbers_or_words(field):
    with pytest.raises(ValueError, match=f"'{field}'"):
        Ruleset.from_dict({field: True})


def test_cross_field_checks():
    with pytest.raises(ValueError, match="'seats_min'"):
        Ruleset.from_dict({"seats_min": 5, "seats_max": 3})
    with pytest.raises(ValueError, match="'twos'"):
        Ruleset.from_dict({"ranks": "36", "twos": "stack"})


def test_seat_counts_the_options_need_are_enforced_naming_the_field():
    with pytest.raises(ValueError, match="'partnership'"):
        Deal.start(Ruleset.preset("pagat", partnership=True), 3, 1)
    with pytest.raises(ValueError, match="seats 2 to 2"):
        Deal.start(Ruleset.preset("hollywood"), 3, 1)
    with pytest.raises(ValueError):
        Deal.start(Ruleset.preset("no-draw"), 2, 1)  # no-draw seats exactly 4
