"""Properties of random legal play in every preset the engine plays (DESIGN.md, "Engine API" and
"Hidden information"; the invariants listed at the top of ``eights_engine/deal.py``): cards are conserved after every
ply, ``legal_actions()`` is never empty while the deal runs, every listed action applies and every other one raises
``IllegalAction`` leaving the deal untouched, no view shows a hidden card, every deal ends, and replaying the same
actions from the same seed gives the same deal (and the same match record). ``test_random_rulesets.py`` runs the
same checks over random option mixes (partnership, reverse, 36 cards, double decks, 2 to 8 seats)."""

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eights_engine import (
    PRESETS, STRATEGIES, Deal, IllegalAction, MatchState, ReplayMismatch, Ruleset, choose, replay,
)
from eights_engine.cards import CARD_CODES, card_code, deck_cards

PLAYED = sorted(PRESETS)  # every preset, hollywood too (its deals; whole hollywood matches: test_random_rulesets)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seats_for(preset, seats):
    rules = Ruleset.preset(preset)
    return max(rules.seats_min, min(rules.seats_max, seats))


def full_deck(deal):
    return sorted(deck_cards(deal.ruleset.ranks, deal.ruleset.deck_count(deal.seats)))


def all_cards(deal):
    return sorted([c for h in deal.hands for c in h] + deal.stock + deal.discard)


def snapshot(deal, every_view=False):
    """The whole state of a deal: hands, stock order, pile, the turn's counters, the public history (its length and
    last entry: a ply only appends) and who is out; ``every_view`` adds every seat's whole view (slower, as each
    view lists the history: for the end of a deal and for comparing two deals)."""
    return (
        [list(h) for h in deal.hands], list(deal.stock), list(deal.discard), deal.to_play, deal.declared_suit,
        deal.drawn_this_turn, deal.last_drawn, deal.awaiting_declaration, deal.passes_in_row, deal.ply,
        deal.reshuffles, deal.result, deal.pending_draw, deal.direction, len(deal.history), deal.history[-1:],
        list(getattr(deal, "out", [])), getattr(deal, "announced", None),
        [json.dumps(deal.view(s), sort_keys=True) for s in range(deal.seats)] if every_view else None,
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


def listed_alias(action, legal):
    """The listed action an unlisted one may stand for: an eight played without a suit when it goes out and ends the
    deal is taken as declaring its own suit (``deal.py``'s action vocabulary), so it must act exactly as that."""
    if action["type"] == "play" and action["card"][0] == "8" and "suit" not in action:
        own = {"type": "play", "card": action["card"], "suit": action["card"][1]}
        if own in legal:
            return own
    return None


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
    aliases = [a for a in unlisted if listed_alias(a, legal)]  # always tried: they are the edge cases
    others = [a for a in unlisted if a not in aliases]
    for action in aliases + rng.sample(others, min(8, len(others))):
        twin = deal.clone()
        try:
            twin.apply(action)
        except IllegalAction:
            assert snapshot(twin) == before, f"the refused {action} changed the deal"
            continue
        alias = listed_alias(action, legal)
        assert alias is not None, f"{action} is not listed but was accepted"
        assert twin.is_over, f"{action} (no suit) was accepted although the deal goes on"
        listed = deal.clone()
        listed.apply(alias)
        assert snapshot(twin, True) == snapshot(listed, True), f"{action} does not act as {alias}"
    return legal


def pick(legal, rng, eagerness):
    """A random legal action; with probability ``eagerness`` a random play when one is listed (pure random
    play in the draw-until-playable presets often runs into the ply limit, which makes the test slow)."""
    plays = [a for a in legal if a["type"] == "play"]
    if plays and rng.random() < eagerness:
        return rng.choice(plays)
    return rng.choice(legal)


def play_out(deal, rng, check=True, eagerness=0.7, restart=None):
    """Play ``deal`` to its end with random legal actions, checking every ply (``check_ply``). ``restart()``, when
    given, deals the same deal afresh: the same actions must then give the same deal, ply by ply in every view."""
    limit = deal.ruleset.ply_limit + 5
    actions = []
    for _ in range(limit):
        legal = check_ply(deal, rng) if check else deal.legal_actions()
        if deal.is_over:
            break
        action = pick(legal, rng, eagerness)
        deal.apply(action)
        actions.append(action)
    assert deal.is_over, "the deal did not end"
    assert deal.result.plies == deal.ply == len(actions)
    if check:
        check_ply(deal, rng)
    if restart is not None:
        again = restart()
        for action in actions:
            again.apply(action)
        assert snapshot(again, True) == snapshot(deal, True), "the same seed and actions gave another deal"
    return deal.result


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
@SETTINGS
@given(
    preset=st.sampled_from(PLAYED),
    seats=st.sampled_from([2, 3, 4, 2, 3, 4, 5, 6, 7, 8]),  # 6..8: two decks in the presets that allow them
    seed=st.integers(0, 2**40 - 1),
    choices=st.integers(0, 2**32 - 1),
    eagerness=st.sampled_from([0.0, 0.5, 0.9]),
)
def test_random_legal_play_keeps_the_invariants(preset, seats, seed, choices, eagerness):
    check_random_deal(preset, seats, seed, choices, eagerness)


def check_random_deal(preset, seats, seed, choices, eagerness):
    seats = seats_for(preset, seats)
    rules = Ruleset.preset(preset, ply_limit=300)  # keeps a purely random deal short; the limit ends it as blocked
    dealer = seed % seats
    deal = Deal.start(rules, seats, seed, dealer=dealer)
    rng = random.Random(choices)
    result = play_out(deal, rng, eagerness=eagerness, restart=lambda: Deal.start(rules, seats, seed, dealer=dealer))
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


def fewest_and_most_seats():
    return sorted({(name, n) for name in PRESETS
                   for n in (Ruleset.preset(name).seats_min, Ruleset.preset(name).seats_max)})


@pytest.mark.parametrize("preset,seats", fewest_and_most_seats())
def test_every_preset_keeps_the_invariants_at_its_fewest_and_most_seats(preset, seats):
    """Not left to chance: every preset (a new one too) at both ends of its seat range (two decks at 6..8 seats,
    a double 36-card deck for russian-36 at 6)."""
    for i in range(2):
        check_random_deal(preset, seats, seed=7919 * i + seats, choices=i, eagerness=0.5)


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
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
    seats=st.sampled_from([2, 3, 4, 2, 3, 4, 5, 6, 7, 8]),
    seed=st.integers(0, 2**31),
    strategies=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=8, max_size=8),
)
def test_matches_end_and_replay(preset, seats, seed, strategies):
    check_match(preset, seats_for(preset, seats), seed, strategies)


@pytest.mark.parametrize("preset,seats", fewest_and_most_seats())
def test_every_preset_plays_matches_that_end_and_replay(preset, seats):
    check_match(preset, seats, 4242 + seats, ["heuristic", "random", "greedy", "eager"] * 2)


def check_match(preset, seats, seed, strategies):
    """A whole match of house strategies ends, places every seat, refuses actions once over and replays from its
    record to the same record (every deal's seed, actions and points), totals and standings."""
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
    if match.hollywood:
        assert len(match.hollywood.finished) == rules.hollywood_total_games
    else:
        assert max(match.totals) >= match.target or match.deal_number >= 500
    assert len(match.standings) == seats and min(match.standings) == 1
    assert match.legal_actions() == []
    with pytest.raises(IllegalAction):
        match.apply({"type": "draw"})
    record = json.loads(json.dumps(match.record()))
    again = replay(record)
    assert again.is_over
    assert again.record() == match.record()
    assert again.totals == match.totals
    assert again.standings == match.standings
    assert again.deal_number == match.deal_number
    assert [r.points for r in again.results] == [r.points for r in match.results]
    assert again.final_hands == match.final_hands


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
    bad["deals"][0]["key"] = "00" * 32
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
