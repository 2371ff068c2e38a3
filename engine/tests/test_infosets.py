"""A deal sampled from one seat's view (eights_engine.infosets; issue 26, the basis of the strong house strategy):
everything the seat can see is as in the real deal (its view, its legal actions, the counters the rules read), the
cards it cannot see are dealt at random and conserved, and play goes on from it in the engine and the fast path."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from engine_test_helpers import preset_deal
from test_random_rulesets import rulesets

from eights_engine import PRESETS, Deal, Ruleset
from eights_engine.fast import fast_deal
from eights_engine.infosets import sample_deal


def _everything_seen_alike(deal: Deal, seat: int, seed: int) -> Deal:
    view = deal.view(seat)
    sample = sample_deal(view, deal.ruleset, seed)
    mine = {k: v for k, v in sample.view(seat).items() if k != "history"}
    theirs = {k: v for k, v in view.items() if k != "history"}
    assert mine == theirs
    if seat == deal.to_play and deal.result is None:
        assert list(sample.legal_ids()) == list(deal.legal_ids())
    for name in ("passes_in_row", "twos_run", "drawn_this_turn", "pending_from_twos", "announced", "ply"):
        if name in ("drawn_this_turn", "announced") and seat != deal.to_play:
            continue
        assert getattr(sample, name) == getattr(deal, name), name
    everything = lambda d: Counter(c for h in d.hands for c in h) + Counter(d.stock) + Counter(d.discard)  # noqa: E731
    assert everything(sample) == everything(deal)
    return sample


def _walk(deal: Deal, rng: random.Random, every: int = 7) -> None:
    while not deal.is_over:
        if deal.ply % every == 0:
            for seat in range(deal.seats):
                _everything_seen_alike(deal, seat, rng.randrange(1 << 32))
        deal.apply_id(rng.choice(deal.legal_ids()))


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1), seats=st.integers(2, 6))
def test_every_preset_a_sampled_deal_shows_the_seat_what_the_real_one_does(preset, seed, choices, seats):
    deal = preset_deal(preset, seats, seed)
    if deal is not None:
        _walk(deal, random.Random(choices))


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_any_mix_of_options_a_sampled_deal_shows_the_seat_what_the_real_one_does(case, seed, choices):
    rules, seats = case
    _walk(Deal.start(rules, seats, seed, dealer=seed % seats), random.Random(choices), every=11)


def test_a_draw_then_a_last_card_announcement_counts_the_draw():
    """Found by the mix-of-options test in CI: the seat drew, then announced its last card; the announcement does
    not end the turn, so the draw still counts (draws_left 0, not 1)."""
    from eights_engine.cards import card_code, deck_cards

    rules = Ruleset.preset("pagat", last_card_penalty=2, voluntary_draw=False)
    hands, pile = [["JC"], ["3H", "4H", "6H"]], ["AD"]
    used = {c for h in hands for c in h} | set(pile) | {"2D"}
    stock = ["2D"] + [c for c in (card_code(x) for x in deck_cards("52", 1)) if c not in used]
    deal = Deal.from_position(rules, hands, stock, pile, to_play=0)
    deal.apply({"type": "draw"})  # the 2 of diamonds: it fits, and the seat holds two cards
    deal.apply({"type": "announce"})
    assert deal.view(0)["draws_left"] == 0
    _everything_seen_alike(deal, 0, 5)


def test_the_unseen_cards_differ_from_sample_to_sample_and_play_goes_on():
    deal = Deal.start(Ruleset.preset("web-table"), 3, 42)
    for _ in range(5):
        deal.apply_id(deal.legal_ids()[0])
    seat = deal.to_play
    samples = [sample_deal(deal.view(seat), deal.ruleset, k) for k in range(8)]
    assert len({tuple(s.stock) for s in samples}) > 1
    assert all(s.hand(seat) == deal.hand(seat) for s in samples)
    for k, sample in enumerate(samples):
        fd = fast_deal(sample)
        fd.playout(k)
        assert fd.result() is not None


def test_a_view_that_no_deal_gives_is_refused():
    deal = Deal.start(Ruleset.preset("pagat"), 2, 1)
    view = deal.view(0)
    with pytest.raises(ValueError, match="do not add up"):
        sample_deal({**view, "stock_count": view["stock_count"] + 1}, deal.ruleset, 1)
    with pytest.raises(ValueError, match="more often than the deck"):
        sample_deal({**view, "hand": [view["hand"][0]] * len(view["hand"])}, deal.ruleset, 1)
    with pytest.raises(ValueError, match="not one of its"):
        sample_deal({**view, "seat": 5}, deal.ruleset, 1)
