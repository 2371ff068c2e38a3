"""Properties over random combinations of ruleset options (and the hollywood preset): the invariants of
test_properties hold for any valid ruleset (cards conserved after every ply, legal actions never empty while the
deal runs, listed actions apply and unlisted ones raise leaving the deal untouched, no view leaks), every deal ends,
and replay reproduces every deal and match. The mixes include partnership (4 seats), reverse at 2 and more seats,
36-card decks (twos off), double decks and 2 to 8 seats; ``test_named_mixes_keep_the_invariants`` plays each of
those every run rather than leaving them to the draw."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eights_engine import Deal, MatchState, Ruleset, replay
from test_properties import play_out

OPTIONS = {
    "decks": st.sampled_from(["auto", 1, 2]),
    "hand_size": st.sampled_from(["auto", 3, 5, 7]),
    "starter_eight": st.sampled_from(["dealer_declares", "reshuffle", "bury", "own_suit"]),
    "draw": st.sampled_from(["one", "until_playable", "up_to"]),
    "draw_limit": st.integers(1, 4),
    "play_after_draw": st.sampled_from(["drawn_only", "any", "none"]),
    "voluntary_draw": st.booleans(),
    "empty_stock": st.sampled_from(["reshuffle", "pass"]),
    "stock_out_ends_turn": st.booleans(),
    "explicit_pass": st.booleans(),
    "eights": st.sampled_from(["anytime", "match_suit", "no_declare"]),
    "go_out_on_eight": st.booleans(),
    "twos": st.sampled_from(["off", "stack", "winding"]),
    "queen_of_spades_draw": st.sampled_from([0, 5]),
    "skip_rank": st.sampled_from([None, "J", "Q"]),
    "reverse_rank": st.sampled_from([None, "A"]),
    "reverse_two_seats": st.sampled_from(["skip", "noop"]),
    "last_card_penalty": st.sampled_from([0, 2]),
    "action_on_going_out": st.sampled_from(["void", "apply"]),
    "scoring": st.sampled_from(["penalty", "winner_collects"]),
    "blocked": st.sampled_from(["each_own", "lowest_collects_difference"]),
    "blocked_tie": st.sampled_from(["split", "nobody"]),
    "first_player": st.sampled_from(["left_of_dealer", "previous_winner"]),
    "dealer_rotates": st.booleans(),
    "ranks": st.sampled_from(["52", "36"]),
}


def dealable(options, seats):
    """``options`` adjusted so that ``seats`` hands and a starter fit the deck: a second deck first, then the
    default hand size (a ruleset that seats 2 to 8 is valid even where one seat count cannot deal)."""
    for fix in ({}, {"decks": 2}, {"decks": 2, "hand_size": "auto"}):
        rules = Ruleset.preset("pagat", **{**options, **fix})
        per_hand = rules.cards_per_hand(seats)
        if per_hand is None or per_hand * seats + 1 <= rules.deck_size(seats):
            return rules
    raise AssertionError(f"no deal fits {options} at {seats} seats")


@st.composite
def rulesets(draw):
    chosen = {name: draw(strategy) for name, strategy in OPTIONS.items() if draw(st.booleans())}
    if chosen.get("ranks") == "36":
        chosen["twos"] = "off"  # a 36-card deck has no twos
    partnership = draw(st.booleans()) and draw(st.booleans())
    seats = 4 if partnership else draw(st.sampled_from([2, 3, 4, 5, 2, 3, 4, 5, 6, 7, 8]))
    rules = dealable({"ply_limit": 400, "target": 60, "partnership": partnership, **chosen}, seats)
    return rules, seats


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
@settings(max_examples=40, deadline=None)
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_any_combination_of_options_keeps_the_deal_invariants(case, seed, choices):
    check_deal(*case, seed, choices)


def check_deal(rules, seats, seed, choices):
    dealer = seed % seats
    deal = Deal.start(rules, seats, seed, dealer=dealer)
    result = play_out(deal, random.Random(choices), eagerness=0.6,
                      restart=lambda: Deal.start(rules, seats, seed, dealer=dealer))
    assert result.outcome in ("out", "blocked")
    assert len(result.points) == seats and len(result.hand_values) == seats
    if rules.partnership and result.outcome == "out":
        assert deal.hand(result.winner) == [] and deal.hand((result.winner + 2) % 4) == []


@settings(max_examples=25, deadline=None)
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_any_combination_of_options_plays_whole_matches_that_replay(case, seed, choices):
    check_match(*case, seed, choices)


def check_match(rules, seats, seed, choices):
    rng = random.Random(choices)
    state = MatchState.start(rules, seats, seed)
    while not state.is_over:
        legal = state.legal_actions()
        plays = [a for a in legal if a["type"] == "play"]
        state.apply(rng.choice(plays) if plays and rng.random() < 0.6 else rng.choice(legal))
    again = replay(state.record())
    assert again.record() == state.record()
    assert again.totals == state.totals and again.standings == state.standings
    assert min(state.standings) == 1


#: The mixes the issue names, each played every run (random seeds and choices within each).
NAMED_MIXES = {
    "partnership, reverse": (4, {"partnership": True, "reverse_rank": "A"}),
    "partnership, twos, skip, reverse, apply": (4, {"partnership": True, "twos": "stack", "skip_rank": "J",
                                                   "reverse_rank": "A", "action_on_going_out": "apply"}),
    "reverse at 2 seats (skip)": (2, {"reverse_rank": "A", "reverse_two_seats": "skip"}),
    "reverse at 2 seats (noop)": (2, {"reverse_rank": "A", "reverse_two_seats": "noop", "twos": "winding"}),
    "reverse at 3 seats": (3, {"reverse_rank": "A", "skip_rank": "Q", "queen_of_spades_draw": 5}),
    "reverse at 7 seats": (7, {"reverse_rank": "A", "action_on_going_out": "apply"}),
    "36 cards": (3, {"ranks": "36", "draw": "up_to", "play_after_draw": "any"}),
    "36 cards, two decks, 6 seats": (6, {"ranks": "36", "decks": 2, "reverse_rank": "A"}),
    "36 cards, partnership": (4, {"ranks": "36", "partnership": True, "skip_rank": "J"}),
    "two decks at 2 seats": (2, {"decks": 2, "hand_size": 10, "eights": "match_suit"}),
    "two decks at 6 seats": (6, {"twos": "stack", "queen_of_spades_draw": 5}),
    "two decks at 8 seats": (8, {"hand_size": 7, "draw": "until_playable", "empty_stock": "pass"}),
    "two decks at 8 seats, last card": (8, {"last_card_penalty": 2, "starter_eight": "bury"}),
}


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
@pytest.mark.parametrize("name", NAMED_MIXES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_named_mixes_keep_the_invariants(name, seed, choices):
    seats, options = NAMED_MIXES[name]
    rules = dealable({"ply_limit": 250, "target": 60, **options}, seats)
    assert rules.deck_count(seats) == (2 if seats >= 6 or options.get("decks") == 2 else 1)
    check_deal(rules, seats, seed, choices)
    check_match(rules, seats, seed, choices)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1), reached_wins=st.booleans())
def test_hollywood_matches_end_after_the_agreed_games_and_replay(seed, choices, reached_wins):
    rules = Ruleset.preset("hollywood", target=40, target_reached_wins=reached_wins, ply_limit=400)
    rng = random.Random(choices)
    state = MatchState.start(rules, 2, seed)
    while not state.is_over:
        legal = state.legal_actions()
        plays = [a for a in legal if a["type"] == "play"]
        state.apply(rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal))
    assert len(state.hollywood.finished) == rules.hollywood_total_games
    assert sum(state.totals) == rules.hollywood_total_games  # totals = games won
    assert replay(state.record()).totals == state.totals
