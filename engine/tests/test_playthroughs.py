"""Golden playthroughs (``eights_engine/playthrough.py``): every file in ``engine/tests/playthroughs/`` equals the
text the engine gives now, so any change of behaviour shows as a difference someone must review and approve
(regenerate with ``python -m eights_engine playthroughs --write``, or ``make playthroughs``; then commit the files
with the change). As OpenSpiel's ``integration_tests/playthrough_test.py``."""

import dataclasses
from pathlib import Path

import pytest

from eights_engine import PRESETS, Ruleset
from eights_engine.__main__ import PLAYTHROUGH_DIR, main
from eights_engine.playthrough import MAX_BYTES, SCENARIOS, presets_covered, render, scenario, short_diff

HERE = Path(__file__).parent / "playthroughs"
REGENERATE = "python -m eights_engine playthroughs --write  (or: make playthroughs)"


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: sc.name)
def test_playthrough_matches_the_engine(sc):
    path = HERE / f"{sc.name}.txt"
    assert path.exists(), f"{path} is missing: generate it with {REGENERATE}"
    stored = path.read_text(encoding="utf-8")
    text = render(sc)
    if stored != text:
        pytest.fail(f"the engine plays {sc.name} differently from {path.name}:\n{short_diff(stored, text, path.name)}\n"
                    f"If the new behaviour is intended (review the whole diff), approve it by regenerating: {REGENERATE}",
                    pytrace=False)


def test_every_preset_has_a_playthrough():
    """A new preset cannot be forgotten: it needs a scenario in ``playthrough.SCENARIOS``."""
    missing = sorted(set(PRESETS) - presets_covered())
    assert not missing, f"presets without a golden playthrough: {missing}; add a Scenario to playthrough.SCENARIOS"


def test_files_and_scenarios_are_the_same_set():
    names = {f"{sc.name}.txt" for sc in SCENARIOS}
    assert len(names) == len(SCENARIOS), "two scenarios share a name"
    stored = {p.name for p in HERE.glob("*.txt")}
    assert stored == names, f"files of no scenario: {sorted(stored - names)}; missing: {sorted(names - stored)}"
    if PLAYTHROUGH_DIR.is_dir():  # the engine installed from this tree in place (pip install -e), not a wheel
        assert HERE.resolve() == PLAYTHROUGH_DIR.resolve()  # the command writes where the test reads


def test_scenarios_are_valid_and_the_files_reviewable():
    for sc in SCENARIOS:
        rules = sc.ruleset()
        assert rules.seats_min <= sc.seats <= rules.seats_max, sc.name
        assert sc.name.replace("-", "").isalnum(), sc.name
        assert (HERE / f"{sc.name}.txt").stat().st_size <= MAX_BYTES, f"{sc.name}: lower its target (see note)"


def test_the_option_mixes_are_covered():
    """The mixes the issue names each have a scenario: partnership with a reverse, twos stacking with the queen
    of spades and a skip, winding twos, 36 cards, a double deck at 6 seats, the last-card penalty, both other eight
    rules, no going out on an eight, action cards acting on going out, a Hollywood match where a fourth game
    opens."""
    rulesets = [(sc.ruleset(), sc.seats) for sc in SCENARIOS]
    wanted = {
        "partnership + reverse": lambda r, n: r.partnership and r.reverse_rank == "A" and n == 4,
        "twos stack + Q♠ five + skip J": lambda r, n: r.twos == "stack" and r.queen_of_spades_draw == 5
        and r.skip_rank == "J",
        "twos winding": lambda r, n: r.twos == "winding",
        "36 cards": lambda r, n: r.ranks == "36" and r.card_values == "standard" and r.draw == "one",
        "double deck at 6 seats": lambda r, n: n >= 6 and r.deck_count(n) == 2,
        "last card penalty": lambda r, n: r.last_card_penalty == 2,
        "eights match_suit": lambda r, n: r.eights == "match_suit",
        "eights no_declare": lambda r, n: r.eights == "no_declare",
        "no going out on an eight": lambda r, n: not r.go_out_on_eight,
        "action on going out": lambda r, n: r.action_on_going_out == "apply",
        "a fourth hollywood game": lambda r, n: r.scoring == "hollywood" and r.hollywood_total_games > r.hollywood_games,
    }
    for label, test in wanted.items():
        assert any(test(r, n) for r, n in rulesets), label


def test_a_change_of_behaviour_shows_as_a_short_diff():
    sc = scenario("pagat-2")
    stored = render(sc)
    other = render(dataclasses.replace(sc, seed=sc.seed + 1))
    diff = short_diff(stored, other, "pagat-2.txt")
    lines = diff.splitlines()
    assert lines[0] == "--- stored/pagat-2.txt" and lines[1] == "+++ engine/pagat-2.txt"
    assert len(lines) == 41 and lines[-1].startswith("... (")
    assert short_diff(stored, stored, "x") == ""


def test_render_is_deterministic_and_plays_the_match_to_its_end():
    sc = scenario("twos-stack-queen-skip-3")
    text = render(sc)
    assert text == render(sc)
    assert "== match over ==" in text and text.endswith("\n")
    assert f"match seed: {sc.seed}" in text and "engine version:" in text
    assert all(f"  {k} = " in text for k in Ruleset().to_dict())


@pytest.mark.slow  # over about 2.5 s: pytest -m "not slow" leaves it out
def test_the_command_checks_writes_and_lists(tmp_path, capsys):
    assert main(["playthroughs", "--check", "--dir", str(tmp_path)]) == 1
    assert "missing" in capsys.readouterr().err
    assert main(["playthroughs", "--write", "--dir", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{sc.name}.txt" for sc in SCENARIOS)
    assert main(["playthroughs", "--check", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    changed = tmp_path / "pagat-2.txt"
    changed.write_text(changed.read_text(encoding="utf-8").replace("ply 3 ", "ply 33 ", 1), encoding="utf-8")
    (tmp_path / "stale.txt").write_text("old\n", encoding="utf-8")
    assert main(["playthroughs", "--check", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "pagat-2.txt: differs" in err and "stale.txt: belongs to no scenario" in err and "--write" in err
    assert main(["playthroughs", "--write", "--dir", str(tmp_path)]) == 0
    assert not (tmp_path / "stale.txt").exists()
    assert main(["playthroughs", "--check", "--dir", str(tmp_path)]) == 0
    assert main(["playthroughs", "--list"]) == 0
    assert "pagat-2" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["playthroughs", "--show", "no-such-scenario"])
