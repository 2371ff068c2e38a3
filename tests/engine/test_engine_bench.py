"""The engine benchmark's compiled loops run (figures belong to BENCHMARKS.md, not to tests): random playouts and
determinized rollouts through eights_engine.fast, counted in playouts and plies."""

from benchmarks.engine_bench import _compiled_deals, _rollouts
from eights_engine import Ruleset


def test_the_compiled_loops_play_and_count():
    rules = Ruleset.preset("pagat")
    for loop in (_compiled_deals, _rollouts):
        games, plies, seconds = loop(rules, 2, 0.05, 1)
        assert games >= 1 and plies >= games * 10 and seconds >= 0.05
