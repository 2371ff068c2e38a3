"""Our engine against OpenSpiel's ``crazy_eights`` on the configuration both play (random legal play, one core).

In one run, times (a) OpenSpiel through its Python API (``pyspiel``), (b) our engine through the dict API
(``legal_actions`` / ``apply``) and (c) our integer fast path (``legal_ids`` / ``apply_id``): 2 players, 52 cards,
7 each, draw up to 5 a turn, voluntary draw, any card after drawing, no reshuffle, no special cards
(tests/engine/test_openspiel_crosscheck.py lists the rule differences left). Every loop picks with the same
``random.Random(...).choice`` over the legal list. OpenSpiel's chance nodes (dealer, deal, starter, each drawn
card) are sampled with that generator too: their time is counted, they are not counted as plies. Plies are
player decisions: OpenSpiel's include its separate suit nomination after an eight and the pass that closes a
fruitless drawing turn, which our engine folds into the play or does by itself, so deals/s is printed as well.

Prints the median of ``--repeats`` runs of ``--seconds`` each and the ratios ours/OpenSpiel. ``--baseline DIR``
times a second copy of our engine in the same interleaved runs: ``DIR/engine/src/eights_engine`` (or
``DIR/games/engine``) of another checkout (e.g. ``git worktree add /tmp/base main``), loaded under the module name
``baseline_engine``; its fast path is printed beside ours, with its own ratio to OpenSpiel, so a change to the
engine is judged within one run.
Usage: ``python benchmarks/openspiel_bench.py [--seconds 2] [--repeats 3] [--baseline DIR]``; ``run(seconds)``
returns the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.engine_bench import play_random  # noqa: E402
from eights_engine import Deal, Ruleset  # noqa: E402
from eights_engine.keys import deal_key  # noqa: E402

SEATS = 2
OPENSPIEL_PARAMS = {"players": SEATS, "max_draw_cards": 5, "reshuffle": False, "use_special_cards": False,
                    "max_turns": 100}  # OpenSpiel's default cap of 100 card plays: never reached without reshuffle
OUR_RULES = {"draw": "up_to", "draw_limit": 5, "play_after_draw": "any", "voluntary_draw": True,
             "empty_stock": "pass", "starter_eight": "reshuffle"}


def our_ruleset(ruleset_class: type = Ruleset) -> Ruleset:
    return ruleset_class.preset("pagat", **OUR_RULES)


def load_baseline(checkout: str):
    """The engine package of another checkout at ``checkout``, imported as ``baseline_engine`` (the engine imports
    only its own modules, relatively, so the two copies never mix): ``engine/src/eights_engine``, or ``games/engine``
    in a checkout from before the engine became its own package. ``ValueError`` when neither is there."""
    root = os.path.abspath(checkout)
    for package in (os.path.join(root, "engine", "src", "eights_engine"), os.path.join(root, "games", "engine")):
        init = os.path.join(package, "__init__.py")
        if os.path.isfile(init):
            break
    else:
        raise ValueError(f"--baseline {checkout!r}: no engine/src/eights_engine (or games/engine) there "
                         "(give a checkout's root)")
    spec = importlib.util.spec_from_file_location("baseline_engine", init, submodule_search_locations=[package])
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_engine"] = module
    spec.loader.exec_module(module)
    return module


def _openspiel(seconds: float, seed: int) -> tuple[int, int, float]:
    import pyspiel

    game = pyspiel.load_game("crazy_eights", OPENSPIEL_PARAMS)
    choice = random.Random(seed).choice
    deals = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])  # one deck: outcomes are equally likely
            else:
                state.apply_action(choice(state.legal_actions()))
                plies += 1
        deals += 1
    return deals, plies, time.perf_counter() - start


def _ours_dict(seconds: float, seed: int) -> tuple[int, int, float]:
    rules = our_ruleset()
    return play_random(lambda s: Deal.start(rules, SEATS, s), seconds, seed, fast=False)


def _ours_fast(seconds: float, seed: int) -> tuple[int, int, float]:
    rules = our_ruleset()
    return play_random(lambda s: Deal.start(rules, SEATS, s), seconds, seed, fast=True)


_SECRET = bytes(range(32))


def _ours_fast_v2(seconds: float, seed: int) -> tuple[int, int, float]:
    """The fast path dealing as engine version 2 does: each deal's key derived from a match secret (SHA-256), then
    the SHA-256 counter-mode shuffle (``_ours_fast`` deals from an int seed: version 1's SplitMix64)."""
    rules = our_ruleset()
    return play_random(lambda s: Deal.start(rules, SEATS, deal_key(_SECRET, 1 + s % (2**32 - 1))), seconds, seed,
                       fast=True)


def _ours_compiled(seconds: float, seed: int) -> tuple[int, int, float]:
    """Random playouts through the compiled fast path (``eights_engine.fast``; moves chosen inside its loop by
    SplitMix64, not ``random.Random.choice``)."""
    from benchmarks.engine_bench import compiled_playouts
    from eights_engine import fast

    return compiled_playouts(fast.Dealer(our_ruleset(), SEATS).deal, seconds, seed)


def _ours_rollouts(seconds: float, seed: int) -> tuple[int, int, float]:
    """Determinized rollouts through the compiled fast path: from a position a few plies into a deal, the cards the
    seat to play cannot see dealt again, then a random playout, each time (a "deal" here is one rollout)."""
    from benchmarks.engine_bench import compiled_playouts, rollout_position

    position = rollout_position(our_ruleset(), SEATS)
    return compiled_playouts(lambda s: position.determinize(position.to_play, s), seconds, seed)


def _baseline_fast(engine):
    def loop(seconds: float, seed: int) -> tuple[int, int, float]:
        rules = our_ruleset(engine.Ruleset)
        return play_random(lambda s: engine.Deal.start(rules, SEATS, s), seconds, seed, fast=True)
    return loop


LOOPS = (("openspiel", "OpenSpiel crazy_eights (pyspiel)", _openspiel),
         ("ours_dict", "ours, dict API (legal_actions/apply)", _ours_dict),
         ("ours_fast", "ours, fast path (legal_ids/apply_id)", _ours_fast),
         ("ours_fast_v2", "ours, fast path, engine version 2 dealing", _ours_fast_v2),
         ("ours_compiled", "ours, compiled fast path: random playouts", _ours_compiled),
         ("ours_rollouts", "ours, compiled fast path: determinized rollouts", _ours_rollouts))
BASELINE_LABEL = "baseline, fast path (legal_ids/apply_id)"


def run(seconds: float = 2.0, repeats: int = 3, progress: bool = False, baseline: str | None = None) -> dict:
    """Median plies/s and deals/s of each loop over ``repeats`` runs of ``seconds``, and ours/OpenSpiel ratios.

    The loops are interleaved run by run so that drifting machine load hits all of them alike. ``baseline``: a
    checkout whose engine's fast path is timed too (key ``base_fast``, see ``load_baseline``).
    """
    loops = LOOPS
    if baseline is not None:
        loops = LOOPS + (("base_fast", BASELINE_LABEL, _baseline_fast(load_baseline(baseline))),)
    samples: dict[str, dict[str, list[float]]] = {key: {"plies": [], "deals": []} for key, _, _ in loops}
    for i in range(repeats):
        for key, _label, fn in loops:
            deals, plies, elapsed = fn(seconds, 1000 * i + 1)
            samples[key]["plies"].append(plies / elapsed)
            samples[key]["deals"].append(deals / elapsed)
            if progress:
                print(f"  run {i + 1}/{repeats}: {key} done", end="\r", file=sys.stderr)
    figures = {key: {"plies_per_s": statistics.median(s["plies"]), "deals_per_s": statistics.median(s["deals"]),
                     "runs_plies_per_s": s["plies"]} for key, s in samples.items()}
    os_fig = figures["openspiel"]
    ratios = {key: {"plies": figures[key]["plies_per_s"] / os_fig["plies_per_s"],
                    "deals": figures[key]["deals_per_s"] / os_fig["deals_per_s"]} for key in figures if key != "openspiel"}
    return {"seconds": seconds, "repeats": repeats, "seats": SEATS, "openspiel_params": dict(OPENSPIEL_PARAMS),
            "our_ruleset": {"preset": "pagat", **OUR_RULES}, "figures": figures, "ratios_vs_openspiel": ratios}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is printed (default 3)")
    parser.add_argument("--baseline", metavar="DIR", help="a checkout whose engine is timed in the same runs")
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    try:
        import pyspiel
    except ImportError:
        sys.exit("openspiel_bench: pyspiel is not installed (pip install open_spiel)")
    version = getattr(pyspiel, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as _v
            version = _v("open_spiel")
        except Exception:  # noqa: BLE001
            version = "?"
    print(f"OpenSpiel {version}: crazy_eights {OPENSPIEL_PARAMS}")
    print(f"ours: Ruleset.preset('pagat', {', '.join(f'{k}={v!r}' for k, v in OUR_RULES.items())}), {SEATS} seats")
    print(f"random legal play (random.Random.choice), median of {args.repeats} x {args.seconds:g} s per loop")
    sys.stdout.flush()
    tty = sys.stderr.isatty()
    result = run(args.seconds, args.repeats, progress=tty, baseline=args.baseline)
    if tty:
        print(" " * 40, end="\r", file=sys.stderr)
    labels = {key: label for key, label, _ in LOOPS} | {"base_fast": BASELINE_LABEL}
    for key, f in result["figures"].items():
        print(f"{labels[key]:<42} {f['plies_per_s']:>10,.0f} plies/s  {f['deals_per_s']:>8,.0f} deals/s")
    for key, r in result["ratios_vs_openspiel"].items():
        label = labels[key]
        print(f"ratio {label} / OpenSpiel: {r['plies']:.2f}x plies/s, {r['deals']:.2f}x deals/s")


if __name__ == "__main__":
    main()
