"""The offline check of a match record (eights_engine.record, ``python -m eights_engine replay``), engine alone."""

import copy
import json

import pytest

from eights_engine import MatchState, ReplayMismatch, Ruleset, choose
from eights_engine.__main__ import main
from eights_engine.record import verify_record


def _played(preset="pagat", seats=2, seed=5):
    state = MatchState.start(Ruleset.preset(preset), seats, seed)
    while not state.is_over:
        seat = state.to_play
        state.apply(choose("heuristic", state.view(seat), state.legal_actions(), state.deal.seed))
    return state


def test_the_engine_record_verifies_and_replays_from_a_file(tmp_path, capsys):
    state = _played()
    record = state.record()
    assert verify_record(record).totals == state.totals
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 0
    assert "1 record replayed: no mismatch" in capsys.readouterr().out


def test_a_legal_but_different_action_is_still_refused():
    record = _played().record()
    state = MatchState.start(Ruleset.preset("pagat"), 2, 5)
    # find the first ply with a legal alternative and take that alternative instead
    for ply, action in enumerate(record["deals"][0]["actions"]):
        others = [a for a in state.legal_actions() if a != action]
        if others:
            break
        state.apply(action)
    tampered = copy.deepcopy(record)
    tampered["deals"][0]["actions"][ply] = others[0]
    with pytest.raises(ReplayMismatch, match=r"deal \d+"):
        verify_record(tampered)


@pytest.mark.parametrize("text,code", [("", 2), ("{not json", 2), ('{"seats": 2}', 1), ("[1, 2]", 1)])
def test_bad_files_exit_non_zero(tmp_path, capsys, text, code):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert main(["replay", str(path)]) == code
    assert capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.json")]) == 2
