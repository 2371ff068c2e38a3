"""benchmarks/strategies_bench.py: the Wilson interval, the seat rotation and the command line."""

import pytest

from benchmarks.strategies_bench import main, play_table, wilson


def test_the_wilson_interval_matches_the_textbook_values():
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson(400, 400)[1] == 1.0
    with pytest.raises(ValueError, match="at least 1"):
        wilson(0, 0)


def test_a_strategy_against_itself_wins_about_its_fair_share_with_seats_rotated():
    row = play_table("heuristic", "heuristic", "web-table", 3, 30, 1)
    assert row["deals"] >= 30
    assert 0 < row["wins"] < 30  # neither always first nor never


def test_the_tactician_beats_random_and_the_command_prints_a_row_per_opponent(capsys):
    assert main(["--matches", "6", "--against", "random", "--tables", "pagat:2,web-table:3"]) == 0
    out = capsys.readouterr().out
    assert "pagat 2 seats      random            100.0%" in out and "web-table 3 seats" in out
    with pytest.raises(SystemExit):
        main(["--against", "psychic"])


def test_two_opponent_strategies_share_the_other_seats():
    seen = []
    import eights_engine.strategies as strategies
    original = strategies.STRATEGIES["eager"]
    strategies.STRATEGIES["eager"] = lambda view, legal, rng: seen.append(view["seat"]) or original(view, legal, rng)
    try:
        play_table("greedy", "eager+random", "web-table", 3, 3, 1)
    finally:
        strategies.STRATEGIES["eager"] = original
    # match i: greedy at seat i % 3, eager on its left, random on its right
    assert {0, 1, 2} == set(seen)


def _share(preset, opponent, matches, seed):
    return play_table("tactician", opponent, preset, 2, matches, seed)["wins"] / matches


def test_it_beats_greedy_and_holds_its_own_against_the_heuristic_at_the_web_table():
    """Seeded, so the figures are fixed: BENCHMARKS.md has them over 400 matches with intervals."""
    assert _share("web-table", "greedy", 150, 9100) > 0.55
    assert _share("web-table", "heuristic", 150, 9300) > 0.45
