"""Shared personas: house bots of each strategy, and a demo-like ladder."""

import pytest


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """API throttle counters live in the cache: start every test with none (of this run's; see run_cache)."""
    from run_cache import clear_this_runs_cache

    clear_this_runs_cache()


@pytest.fixture
def house_bots(db):
    """Four house bots, weakest to strongest: Rando, Eager, Greedy, Professor."""
    from games.services import player_house_create

    return [
        player_house_create(name="Rando", strategy="random"),
        player_house_create(name="Eager", strategy="eager"),
        player_house_create(name="Greedy", strategy="greedy"),
        player_house_create(name="Professor", strategy="heuristic"),
    ]


@pytest.fixture
def ladder(house_bots):
    """A two-seat pagat ladder to 100 with the four house bots on it."""
    from tournaments.services import ladder_create, ladder_entry_create

    lad = ladder_create(name="Test ladder", slug="test", preset="pagat", seats_per_match=2, max_running_matches=4)
    for bot in house_bots:
        ladder_entry_create(ladder=lad, player=bot)
    return lad
