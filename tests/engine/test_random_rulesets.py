"""Properties over random combinations of ruleset options (and the hollywood preset): the invariants of
test_properties hold for any valid ruleset, every deal ends, and replay reproduces every match."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import MatchState, Ruleset, replay
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
}


@st.composite
def rulesets(draw):
    chosen = {name: draw(strategy) for name, strategy in OPTIONS.items() if draw(st.booleans())}
    partnership = draw(st.booleans()) and draw(st.booleans())
    seats = 4 if partnership else draw(st.integers(2, 5))
    rules = Ruleset.preset("pagat", ply_limit=400, target=60, partnership=partnership, **chosen)
    return rules, seats


@settings(max_examples=40, deadline=None)
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_any_combination_of_options_keeps_the_deal_invariants(case, seed, choices):
    rules, seats = case
    from games.engine import Deal

    deal = Deal.start(rules, seats, seed)
    result = play_out(deal, random.Random(choices), eagerness=0.6)
    assert result.outcome in ("out", "blocked")
    assert len(result.points) == seats and len(result.hand_values) == seats


@settings(max_examples=25, deadline=None)
@given(case=rulesets(), seed=st.integers(0, 2**40 - 1), choices=st.integers(0, 2**32 - 1))
def test_any_combination_of_options_plays_whole_matches_that_replay(case, seed, choices):
    rules, seats = case
    rng = random.Random(choices)
    state = MatchState.start(rules, seats, seed)
    while not state.is_over:
        legal = state.legal_actions()
        plays = [a for a in legal if a["type"] == "play"]
        state.apply(rng.choice(plays) if plays and rng.random() < 0.6 else rng.choice(legal))
    again = replay(state.record())
    assert again.totals == state.totals and again.standings == state.standings
    assert min(state.standings) == 1


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
