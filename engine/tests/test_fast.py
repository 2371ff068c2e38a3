"""The fast path (eights_engine.fast; issue 26, item 2) agrees with the pure engine, the reference, ply for ply:
every golden playthrough, random matches of every preset at every seat count it deals, any mix of options, deals
dealt from keys (reshuffles by the engine's SHA-256 stream) and from seeds; and a playout or a determinization from
one seed is the same through the compiled path and the pure one. Where the extension is not built these tests
compare the pure path with itself; ``bin/test-engine`` sets EIGHTS_REQUIRE_COMPILED=1, so there it must be built."""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from engine_test_helpers import preset_deal
from test_random_rulesets import NAMED_MIXES, dealable, rulesets

from eights_engine import PRESETS, Deal, MatchState, Ruleset, fast
from eights_engine.fast import fast_deal, state_of
from eights_engine.playthrough import SCENARIOS
from eights_engine.strategies import choose


def test_the_compiled_path_is_built_where_it_must_be():
    if os.environ.get("EIGHTS_REQUIRE_COMPILED") == "1":
        assert fast.COMPILED, "the C extension eights_engine._fastplay was not built (is a C compiler installed?)"


def _same(deal: Deal, fd, where: str) -> None:
    mine, theirs = fd.state(), state_of(deal)
    if mine != theirs:
        diff = {k: (getattr(mine, k), getattr(theirs, k)) for k in mine._fields
                if getattr(mine, k) != getattr(theirs, k)}
        raise AssertionError(f"{where}: the fast path differs from the engine (fast, engine): {diff}")


def play_both(deal: Deal, pick, where: str) -> None:
    """Play ``deal`` to its end, each ply through the engine and a fast copy, comparing legal ids and state."""
    fd = fast_deal(deal)
    _same(deal, fd, f"{where} as dealt")
    while not deal.is_over:
        legal = list(deal.legal_ids())
        assert fd.legal_ids() == legal, f"{where} ply {deal.ply}: legal ids differ"
        action = pick(deal, legal)
        deal.apply_id(action)
        fd.apply_id(action)
        _same(deal, fd, f"{where} ply {deal.ply}")
    r = deal.result
    assert fd.result() == (r.outcome, r.winner, r.hand_values, r.points), where
    assert fd.is_over and fd.legal_ids() == []


@pytest.mark.parametrize("sc", SCENARIOS, ids=[sc.name for sc in SCENARIOS])
def test_every_golden_playthrough_plies_alike(sc):
    strategies = sc.seat_strategies()
    match = MatchState.start(sc.ruleset(), sc.seats, sc.seed, version=sc.version)
    while not match.is_over:
        deal, number = match.deal, match.deal_number
        fd = fast_deal(deal)
        while match.deal_number == number and not match.is_over:
            seat = match.to_play
            legal = match.legal_actions()
            assert fd.legal_ids() == list(deal.legal_ids()), f"{sc.name} deal {number} ply {deal.ply}"
            action = choose(strategies[seat], match.view(seat), legal, deal.seed)
            action_id = deal.action_id(action)
            match.apply(action)
            fd.apply_id(action_id)
            _same(deal, fd, f"{sc.name} deal {number} ply {deal.ply}")


def _random_pick(rng):
    return lambda deal, legal: rng.choice(legal)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1), seats=st.integers(2, 8))
def test_random_deals_of_every_preset_ply_alike(preset, seed, choices, seats):
    deal = preset_deal(preset, seats, seed)
    if deal is None:
        return  # this seat count does not fit the deck
    assert fast.start(deal.ruleset, deal.seats, seed, dealer=deal.dealer).state() == state_of(deal), "dealt apart"
    play_both(deal, _random_pick(random.Random(choices)), f"{preset} {deal.seats} seats seed {seed}")


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_any_mix_of_options_plies_alike(case, seed, choices):
    rules, seats = case
    deal = Deal.start(rules, seats, seed, dealer=seed % seats)
    assert fast.start(rules, seats, seed, dealer=seed % seats).state() == state_of(deal), "dealt differently"
    play_both(deal, _random_pick(random.Random(choices)), f"{rules.to_dict()} {seats} seats seed {seed}")


@pytest.mark.parametrize("name", NAMED_MIXES)
def test_the_named_mixes_ply_alike(name):
    seats, options = NAMED_MIXES[name]
    rules = dealable({"ply_limit": 400, **options}, seats)
    for seed in range(6):
        play_both(Deal.start(rules, seats, seed), _random_pick(random.Random(seed)), f"{name} seed {seed}")


def test_deals_from_keys_reshuffle_alike():
    """Version 2 keys: the compiled path asks the engine's own SHA-256 stream for each reshuffle."""
    rules = Ruleset.preset("pagat", hand_size=20)  # 11 cards of stock at 2 seats: it runs out again and again
    for k in range(5):
        deal = Deal.start(rules, 2, bytes([k]) * 32)
        play_both(deal, _random_pick(random.Random(k)), f"key {k}")
        assert deal.reshuffles > 0


@pytest.mark.parametrize("preset", ["pagat", "web-table", "crazy-eights", "eights-classic"])
def test_a_playout_is_the_same_compiled_and_pure(preset):
    rules = Ruleset.preset(preset)
    for seed in range(20):
        deal = Deal.start(rules, 3, seed)
        for policy in (fast.UNIFORM, fast.EAGER, fast.HEURISTIC, fast.TACTICAL):
            compiled, pure = fast_deal(deal), fast_deal(deal, pure=True)
            assert compiled.playout(seed * 7 + 1, policy) == pure.playout(seed * 7 + 1, policy)
            assert compiled.state() == pure.state() and compiled.result() == pure.result()
        assert compiled.result() is not None and deal.result is None  # the deal itself is untouched


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40 - 1), seats=st.integers(2, 8))
def test_the_policy_playouts_of_every_preset_are_the_same_compiled_and_pure(preset, seed, seats):
    deal = preset_deal(preset, seats, seed)
    if deal is None:
        return  # this seat count does not fit the deck
    for policy in (fast.HEURISTIC, fast.TACTICAL):
        compiled, pure = fast_deal(deal), fast_deal(deal, pure=True)
        assert compiled.playout(seed, policy) == pure.playout(seed, policy), f"{preset} {seats} seats seed {seed}"
        assert compiled.state() == pure.state()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1))
def test_the_tactical_playout_of_any_mix_of_options_is_the_same_compiled_and_pure(case, seed):
    rules, seats = case
    deal = Deal.start(rules, seats, seed, dealer=seed % seats)
    compiled, pure = fast_deal(deal), fast_deal(deal, pure=True)
    assert compiled.playout(seed, fast.TACTICAL) == pure.playout(seed, fast.TACTICAL), f"{rules.to_dict()} {seed}"
    assert compiled.state() == pure.state()


def test_a_determinization_keeps_what_the_seat_knows_and_is_the_same_both_ways():
    rules = Ruleset.preset("web-table")
    for seed in range(20):
        deal = Deal.start(rules, 3, seed)
        for _ in range(seed % 9):  # somewhere into the deal
            deal.apply_id(deal.legal_ids()[0])
        if deal.is_over:
            continue
        seat = deal.to_play
        compiled = fast_deal(deal).determinize(seat, 99 + seed)
        pure = fast_deal(deal, pure=True).determinize(seat, 99 + seed)
        assert compiled.state() == pure.state()
        before, after = state_of(deal), compiled.state()
        assert after.masks[seat] == before.masks[seat] and after.sizes == before.sizes
        assert after.discard == before.discard and len(after.stock) == len(before.stock)
        hidden = lambda s: Counter(c for t in range(deal.seats) if t != seat  # noqa: E731
                                   for c in [*_bits(s.masks[t]), *_bits(s.dups[t])]) + Counter(s.stock)
        assert hidden(after) == hidden(before)
        assert compiled.legal_ids() == list(deal.legal_ids())  # the seat's own choices are unchanged
        assert compiled.playout(5) == pure.playout(5) and compiled.state() == pure.state()


def _bits(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def test_bad_input_is_refused_with_the_reason():
    fd = fast.start(Ruleset.preset("pagat"), 2, 3)
    illegal = next(a for a in range(75) if a not in fd.legal_ids())
    with pytest.raises(ValueError, match="not legal now"):
        fd.apply_id(illegal)
    with pytest.raises(ValueError, match="seat must be from 0 to 1"):
        fd.determinize(5, 1)
    with pytest.raises(ValueError, match="policy"):
        fd.playout(1, 7)
    with pytest.raises(ValueError, match="seats"):
        fast.start(Ruleset.preset("pagat"), 9, 1)
    with pytest.raises(ValueError, match="dealer"):
        fast.start(Ruleset.preset("pagat"), 2, 1, dealer=2)
    with pytest.raises(ValueError, match="deal seed"):
        fast.start(Ruleset.preset("pagat"), 2, -1)
    other = fd.clone()
    fd.playout(1)
    assert not other.is_over and other.ply == 0  # a clone is independent


def test_without_the_extension_the_pure_path_stands_in(monkeypatch):
    rules = Ruleset.preset("web-table")
    compiled = [fast.start(rules, 3, seed) for seed in range(5)]
    monkeypatch.setattr(fast, "_fastplay", None)
    for seed, other in enumerate(compiled):
        pure = fast.Dealer(rules, 3).deal(seed)
        assert isinstance(pure, fast.PureFastDeal) and pure.state() == other.state()
        assert pure.playout(seed) == other.playout(seed) and pure.result() == other.result()


def test_the_extension_refuses_a_state_it_cannot_play():
    """The compiled constructor checks every value before the rules index anything with it."""
    if not fast.COMPILED:
        pytest.skip("the extension is not built here")
    from eights_engine import _fastplay

    deal = Deal.start(Ruleset.preset("pagat"), 2, 1)
    flags, effects, values = fast._options(deal.ruleset)
    counters = (0, -1, 0, -1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0)

    def make(**change):
        args = {"stock": deal.stock, "discard": deal.discard, "masks": deal.masks, "sizes": deal.sizes,
                "counters": counters, **change}
        return _fastplay.FastDeal.from_state(flags, effects, values, 1, None, 2, args["masks"], deal.dups,
                                             args["sizes"], [0, 0], args["stock"], args["discard"], args["counters"])

    make()  # the real state passes
    for change, words in ((dict(stock=[99]), "a stock card"), (dict(discard=[-3]), "a pile card"),
                          (dict(sizes=[1, 1]), "a hand's size"), (dict(masks=[1 << 60, 0]), "a hand's masks"),
                          (dict(counters=(7,) + counters[1:]), "to_play"),
                          (dict(counters=counters[:7] + (0,) + counters[8:]), "the direction")):
        with pytest.raises(ValueError, match=words):
            make(**change)
    with pytest.raises(ValueError, match="a card effect"):
        _fastplay.FastDeal.from_state(flags, (9,) * 52, values, 1, None, 2, deal.masks, deal.dups, deal.sizes,
                                      [0, 0], deal.stock, deal.discard, counters)
    with pytest.raises(ValueError, match="a deck card"):
        _fastplay.FastDeal.start(flags, effects, values, [77] * 52, 2, 7, 1, 0, -1)
