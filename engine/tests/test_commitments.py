"""Provably fair deals (docs/FAIRNESS.md): the commitment's byte encoding is pinned, and the offline check
(``verify_record``, ``python -m eights_engine replay``) opens every commitment and refuses any that does not open."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from eights_engine import MatchState, Ruleset, choose
from eights_engine.__main__ import main as engine_main
from eights_engine.fairness import deal_commitment, verify_commitment
from eights_engine.match import ReplayMismatch
from eights_engine.record import summary, verify_record


def test_the_commitment_is_sha256_of_seed_colon_salt_in_ascii():
    salt = "000102030405060708090a0b0c0d0e0f"
    assert deal_commitment(123456789, salt) == "e7fcce7e06482b1965cf80e42a92c7187f31f961527a6dc036ed99937382bcfe"
    assert deal_commitment(5, salt) == hashlib.sha256(f"5:{salt}".encode()).hexdigest()  # docs/FAIRNESS.md's check
    assert verify_commitment(5, salt, deal_commitment(5, salt)) is None
    for bad_salt in ("ABCDEF" * 6, "00" * 15, 42, None):
        with pytest.raises(ValueError, match="salt"):
            deal_commitment(5, bad_salt)
    with pytest.raises(ValueError, match="seed"):
        deal_commitment(-1, salt)


def _record(seed: int = 77) -> dict:
    """An engine record of a finished two-seat match, every deal with a salt and its commitment."""
    state = MatchState.start(Ruleset.preset("pagat", target=60), 2, seed, version="1")  # salted seeds: version 1
    while not state.is_over:
        state.apply(choose("heuristic", state.view(state.to_play), state.legal_actions(), state.deal.seed))
    record = state.record()
    for i, deal in enumerate(record["deals"]):
        deal["salt"] = f"{i:02x}" * 16
        deal["commitment"] = deal_commitment(deal["seed"], deal["salt"])
    return record


def test_a_record_whose_commitments_open_replays():
    record = _record()
    assert len(record["deals"]) > 1
    state = verify_record(record)
    assert summary(record, state).endswith("every deal's commitment opened: OK")


@pytest.mark.parametrize("change", ["commitment", "salt", "seed"])
def test_a_changed_commitment_salt_or_seed_is_refused_naming_the_deal(change):
    record = _record()
    deal = record["deals"][1]
    if change == "commitment":
        deal["commitment"] = deal_commitment(deal["seed"] + 1, deal["salt"])  # a commitment to other cards
    elif change == "salt":
        deal["salt"] = "f" * 32
    else:  # other cards, and a commitment that opens to them: the seed is not the one the match seed derives
        deal["seed"] += 1
        deal["commitment"] = deal_commitment(deal["seed"], deal["salt"])
    with pytest.raises(ReplayMismatch) as caught:
        verify_record(record)
    assert caught.value.deal == 2
    if change == "seed":
        assert str(caught.value).startswith("deal 2: seed expected")
    else:
        assert str(caught.value).startswith("deal 2: commitment does not match: SHA-256 of ")
        assert caught.value.what == "commitment" and caught.value.found == deal["commitment"]


def test_a_half_published_commitment_is_refused_and_a_deal_from_before_commitments_passes():
    record = _record()
    del record["deals"][0]["salt"]
    with pytest.raises(ReplayMismatch, match="deal 1: commitment cannot be checked: the record gives its "
                                             "commitment but no salt"):
        verify_record(record)
    old = _record()
    for deal in old["deals"][:2]:
        del deal["salt"], deal["commitment"]
    state = verify_record(old)
    assert "deals 1-2: no commitment (dealt before commitments): OK" in summary(old, state)


def test_the_offline_replay_refuses_a_tampered_commitment(tmp_path, capsys):
    record = _record()
    tampered = copy.deepcopy(record)
    tampered["deals"][0]["commitment"] = "0" * 64
    path = tmp_path / "rec.ndjson"
    path.write_text(json.dumps(record) + "\n" + json.dumps(tampered) + "\n")
    assert engine_main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "line 2" in err and "MISMATCH: deal 1: commitment does not match" in err
    assert f"the commitment published before the deal is {'0' * 64}" in err
