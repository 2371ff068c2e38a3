"""``Deal.start`` always ends (issue 9, fault 2) and ``Deal.hand`` checks its seat like ``view`` (fault 4).

A starter eight under ``starter_eight`` "reshuffle" (system A) or "bury" (system C) used to be turned again and
again: when every card that could come up is an eight, that never ended (``eights-classic`` with ``hand_size=17``,
3 seats, seed 0; a 36-card deck, 7 cards each, 5 seats). Each such test runs under a per-test timeout so a
regression fails instead of hanging the run.
"""

from __future__ import annotations

import random

import pytest

from eights_engine import Deal, MatchState, Ruleset
from eights_engine.cards import EIGHT, card_code, deck_cards, rank_of
from eights_engine.rng import SplitMix64
from eights_engine.rules import PRESETS

from engine_test_helpers import rules

guard = pytest.mark.timeout(20, method="signal")


def stock_before_starter(ruleset: Ruleset, seats: int, seed: int) -> list[int]:
    """The stock (top last) as ``Deal.start`` has it just before the starter is turned, by the same shuffle."""
    deck = deck_cards(ruleset.ranks, ruleset.deck_count(seats))
    SplitMix64(seed, 0).shuffle(deck)
    return deck[:len(deck) - ruleset.cards_per_hand(seats) * seats]


def never_ends_before(ruleset: Ruleset, seats: int, seed: int) -> bool:
    """Whether the old starter loop would turn eights for ever on this deal."""
    stock = stock_before_starter(ruleset, seats, seed)
    if ruleset.starter_eight == "reshuffle":
        return all(rank_of(c) == EIGHT for c in stock)
    if ruleset.starter_eight == "bury":  # bury only rotates the top half: it ends iff that half has a non-eight
        return all(rank_of(c) == EIGHT for c in stock[(len(stock) - 1) // 2:])
    return False


def assert_eight_stands(deal: Deal, stock: list[int], dealer: int = 0) -> None:
    """The end rule: the top card of the stock (an eight) is the starter and stands for its own suit."""
    top = stock[-1]
    assert rank_of(top) == EIGHT
    assert deal.top_card == card_code(top)
    assert deal.active_suit == card_code(top)[-1]
    assert deal.declared_suit is None and not deal.awaiting_declaration
    assert deal.to_play == (dealer + 1) % deal.seats
    assert deal.stock == stock[:-1]  # the rest of the stock as dealt: no shuffle, no bury
    assert deal.view(deal.to_play)["declared"] is False
    assert deal.legal_actions()


# ---- fault 2: the exact cases of the issue --------------------------------------------------------------------
@guard
def test_eights_classic_hand_size_17_three_seats_seed_0_deals():
    ruleset = rules("eights-classic", hand_size=17)
    assert never_ends_before(ruleset, 3, 0)  # the stock is one eight
    stock = stock_before_starter(ruleset, 3, 0)
    deal = Deal.start(ruleset, 3, 0)
    assert_eight_stands(deal, stock)
    assert sum(deal.sizes) + len(deal.stock) + len(deal.discard) == 52


@guard
@pytest.mark.parametrize("policy", ["reshuffle", "bury"])
def test_36_card_deck_seven_each_five_seats_deals(policy):
    ruleset = rules("russian-36", hand_size=7, starter_eight=policy)
    seed = next(s for s in range(10_000) if never_ends_before(ruleset, 5, s))
    stock = stock_before_starter(ruleset, 5, seed)
    assert_eight_stands(Deal.start(ruleset, 5, seed), stock)


@guard
def test_36_card_deck_seven_each_five_seats_matches_end():
    """Mid-match: some deal of these matches has a stock of one eight; every match still plays to its end."""
    ruleset = rules("russian-36", hand_size=7, starter_eight="reshuffle", ply_limit=200)
    met = 0
    for seed in range(12):
        state = MatchState.start(ruleset, 5, seed)
        choice = random.Random(seed).choice
        while not state.is_over:
            if state.deal.ply == 0 and len(state.deal.stock) == 0 and rank_of(state.deal.discard[-1]) == EIGHT:
                met += 1
            state.apply_id(choice(state.legal_ids()))
    assert met  # the case was met mid-match at least once


@guard
def test_bury_with_only_eights_in_the_top_half_deals():
    """Bury puts the eight in the middle of the stock: with eights on top and the rest below the middle, the top
    half only rotates; the first eight turned stands."""
    ruleset = rules("crazy-eights", hand_size=7, seats_max=7, decks=1)  # 7 seats: a stock of 3
    seed = next(s for s in range(20_000) if never_ends_before(ruleset, 7, s)
                and any(rank_of(c) != EIGHT for c in stock_before_starter(ruleset, 7, s)))
    stock = stock_before_starter(ruleset, 7, seed)
    assert_eight_stands(Deal.start(ruleset, 7, seed), stock)


@guard
@pytest.mark.parametrize("policy", ["reshuffle", "bury"])
def test_double_deck_stock_of_eights_deals(policy):
    ruleset = rules("eights-classic", decks=2, hand_size=17, starter_eight=policy)  # 6 seats: 102 dealt, 2 left
    seed = next(s for s in range(200_000) if never_ends_before(ruleset, 6, s))
    stock = stock_before_starter(ruleset, 6, seed)
    assert_eight_stands(Deal.start(ruleset, 6, seed), stock)


def test_starter_eight_with_other_cards_left_is_still_turned_again():
    """The end rule is only for stocks that can never turn anything but an eight: others behave as before."""
    ruleset = rules("eights-classic", hand_size=16)  # 3 seats: a stock of 4
    for seed in range(3000):
        stock = stock_before_starter(ruleset, 3, seed)
        if rank_of(stock[-1]) == EIGHT and not never_ends_before(ruleset, 3, seed):
            deal = Deal.start(ruleset, 3, seed)
            assert rank_of(deal.discard[-1]) != EIGHT
            return
    pytest.fail("no seed with a starter eight and other cards in the stock")


# ---- fault 2: random search over presets and option mixes --------------------------------------------------------
@guard
def test_every_deal_start_returns_over_presets_and_option_mixes():
    mix = random.Random(2026)
    starts = 0
    for _ in range(3000):
        name = mix.choice(sorted(PRESETS))
        base = Ruleset.preset(name)
        overrides = {"starter_eight": mix.choice(["reshuffle", "bury", "dealer_declares", "own_suit"])}
        lo, hi = base.seats_min, base.seats_max
        if base.partnership or base.scoring == "hollywood":
            seats = lo
        else:
            seats = mix.randint(lo, hi)
        if base.hand_size != "all":
            overrides["decks"] = mix.choice(["auto", 1, 2])
            overrides["hand_size"] = 1
            deck = Ruleset.preset(name, **overrides).deck_count(seats) * (36 if base.ranks == "36" else 52)
            top = min(26, (deck - 1) // seats)
            overrides["hand_size"] = mix.randint(max(1, top - 4), top)
        ruleset = Ruleset.preset(name, **overrides)
        deal = Deal.start(ruleset, seats, mix.randrange(2**64), dealer=mix.randrange(seats))
        assert deal.legal_actions()
        assert sum(deal.sizes) + len(deal.stock) + len(deal.discard) == ruleset.deck_size(seats)
        starts += 1
    assert starts == 3000


# ---- fault 2: rulesets that can never deal -----------------------------------------------------------------------
@pytest.mark.parametrize("fields, message", [
    ({"hand_size": 26, "seats_min": 2, "seats_max": 2}, "hand_size 26 leaves no card for a starter"),
    ({"hand_size": 18, "seats_min": 3, "seats_max": 5, "decks": 1}, "hand_size 18 leaves no card for a starter"),
    ({"hand_size": 18, "ranks": "36", "seats_min": 2, "seats_max": 2}, "hand_size 18 leaves no card for a starter"),
])
def test_ruleset_that_can_never_deal_is_rejected(fields, message):
    with pytest.raises(ValueError, match=message):
        Ruleset.from_dict(fields)


def test_ruleset_that_deals_for_some_seat_counts_is_kept():
    ruleset = Ruleset.from_dict({"hand_size": 25})  # 2 seats: 50 dealt, 2 left
    assert Deal.start(ruleset, 2, 1).top_card
    with pytest.raises(ValueError, match="hand_size 25 for 3 seats needs 76 cards; the deck has 52"):
        Deal.start(ruleset, 3, 1)


# ---- fault 4: hand(seat) checks the seat like view(seat) -----------------------------------------------------
@pytest.mark.parametrize("seat", [-1, 3, "0", None, 1.5, [0]])
def test_hand_rejects_a_bad_seat_like_view(seat):
    deal = Deal.start(rules(), 3, 1)
    with pytest.raises(ValueError) as from_view:
        deal.view(seat)
    with pytest.raises(ValueError) as from_hand:
        deal.hand(seat)
    assert str(from_hand.value) == str(from_view.value) == "seat must be from 0 to 2"


def test_hand_of_good_seats_unchanged():
    deal = Deal.start(rules(), 3, 1)
    assert [deal.hand(s) for s in range(3)] == [[card_code(c) for c in h] for h in deal.hands]
    assert all(deal.view(s)["hand"] == deal.hand(s) for s in range(3))
