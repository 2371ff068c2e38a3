"""Records prove the result, not only the cards (issue 20 item 5; docs/MATCH_RECORD.md, format 2): a forfeit must
follow from the plies under the fault policy, the commitment binds who sat where, and the service signs every
exported record, so a record with a winner marked forfeited, a forfeit invented after deal 1, swapped seats or
changed names is refused offline and by ``manage.py verify_matches``."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from bot_servers import BotServer
from bots_api.models import Bot
from bots_api.services import bot_register
from eights_engine import Ruleset
from eights_engine.__main__ import main as engine_main
from eights_engine.match import ReplayMismatch
from eights_engine.record import verify_record
from games.models import Match, Seat
from games.services import match_advance, match_create

#: the records exported at engine version 1, kept by the engine package's tests
RECORDS_V1 = Path(__file__).resolve().parents[2] / "engine" / "tests" / "records_v1"

SHORT = Ruleset.preset("pagat", target=60)


def _record(match) -> dict:
    return APIClient().get(f"/api/matches/{match.pk}/record/").json()


@pytest.fixture
def finished(house_bots):
    match = match_create(players=house_bots[:2], ruleset=SHORT)
    assert match_advance(match_id=match.pk) == "finished"
    return match


@pytest.fixture
def forfeited(db, house_bots):
    """A match a bot forfeits: it answers HTTP 500 to every turn, and three faults in a row forfeit it."""
    owner = get_user_model().objects.create_user("ada", password="pw-ada-12345")
    server = BotServer("status:500", "s3cret")
    try:
        bot, _ = bot_register(owner=owner, name="Broken", endpoint_url=server.url)
        Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
        match = match_create(players=[house_bots[3], bot.player], ruleset=SHORT, turn_timeout_ms=500,
                             seed=11)  # (a fixed seed: the house seat plays a card before the forfeit)
        assert match_advance(match_id=match.pk) == "finished"
    finally:
        server.stop()
    assert Seat.objects.get(match=match, index=1).forfeited
    return match


@pytest.mark.django_db
def test_a_record_is_format_2_signed_and_binds_its_seating(finished, house_bots):
    record = _record(finished)
    assert record["format"] == "eights-match-record/2"
    assert record["seating"] == [p.pk for p in house_bots[:2]] == [p["player_id"] for p in record["players"]]
    assert [p["max_faults"] for p in record["players"]] == [None, None]  # house seats never forfeit
    assert all(d["faults"] == [] for d in record["deals"])
    key = APIClient().get("/api/records/signing-key/").json()
    assert key["algorithm"] == "ed25519" and record["signature"]["public_key"] == key["public_key"]
    verify_record(record, public_key=key["public_key"], require_signature=True, require_commitments=True)
    with pytest.raises(ReplayMismatch, match="expected the service's"):
        verify_record(record, public_key="ab" * 32)


@pytest.mark.django_db
@pytest.mark.parametrize("change, says", [
    (lambda r: r["players"][0].update(name="Somebody else"), "the signature does not verify"),
    (lambda r: r["players"].reverse() or [p.update(seat=i) for i, p in enumerate(r["players"])],
     "match: seat 0's total expected"),
    (lambda r: r.update(seating=list(reversed(r["seating"]))), "match: commitment expected"),
    (lambda r: r.pop("signature"), None),  # an unsigned record still replays, unless a signature is required
])
def test_changed_names_or_seats_are_refused(finished, change, says):
    record = _record(finished)
    change(record)
    if says is None:
        verify_record(record)
        with pytest.raises(ReplayMismatch, match="expected the service's signature"):
            verify_record(record, require_signature=True)
        return
    with pytest.raises(ReplayMismatch, match=says):
        verify_record(record)


@pytest.mark.django_db
def test_a_real_forfeit_is_proved_by_its_faulted_plies(forfeited):
    record = _record(forfeited)
    faults = [(d["number"], ply, kind) for d in record["deals"] for ply, kind in d["faults"]]
    assert len(faults) >= 3 and faults[-1][2] == "http_status"
    assert record["result"]["forfeited"] == 1 and record["players"][1]["max_faults"] == 3
    verify_record(record, require_signature=True)
    # the faults taken out: nothing proves the forfeit any more
    unproved = copy.deepcopy(record)
    for deal in unproved["deals"]:
        deal["faults"] = []
    with pytest.raises(ReplayMismatch, match="forfeited expected None"):
        verify_record({k: v for k, v in unproved.items() if k != "signature"})
    # one fault too few: the limit is not reached, so the match did not end there
    short = copy.deepcopy(record)
    short["deals"][-1]["faults"] = short["deals"][-1]["faults"][:-1]
    with pytest.raises(ReplayMismatch, match="forfeited expected None"):
        verify_record({k: v for k, v in short.items() if k != "signature"})


@pytest.mark.django_db
def test_a_winner_marked_forfeited_or_a_forfeit_invented_after_deal_1_is_refused(finished):
    record = {k: v for k, v in _record(finished).items() if k != "signature"}  # a forger has no signing key
    winner = record["result"]["places"].index(1)
    loser = 1 - winner
    marked = copy.deepcopy(record)  # the winner marked forfeited and placed last
    marked["result"].update(forfeited=winner, places=[2 if s == winner else 1 for s in range(2)])
    for p in marked["players"]:
        p.update(forfeited=p["seat"] == winner, place=marked["result"]["places"][p["seat"]])
    with pytest.raises(ReplayMismatch, match=f"forfeited expected None .*found {winner}"):
        verify_record(marked)
    assert loser != winner
    cut = copy.deepcopy(record)  # cut after deal 1, a forfeit invented for the seat that went out
    out = cut["deals"][0]["winner"]
    cut["deals"] = cut["deals"][:1]
    cut["result"].update(forfeited=out)
    with pytest.raises(ReplayMismatch, match="forfeited expected None"):
        verify_record(cut)


@pytest.mark.django_db
def test_a_faulted_ply_must_be_the_fallback(forfeited):
    record = {k: v for k, v in _record(forfeited).items() if k != "signature"}
    deal = next(d for d in record["deals"] if any(a["type"] == "play" for a in d["actions"]))
    ply = next(i for i, a in enumerate(deal["actions"]) if a["type"] == "play") + 1
    deal["faults"].append([ply, "timeout"])  # a ply that stood, claimed as a fault
    with pytest.raises(ReplayMismatch, match=f"deal {deal['number']} ply {ply}: a faulted ply"):
        verify_record(record)


@pytest.mark.django_db
def test_the_command_line_checks_signature_key_and_commitments(finished, tmp_path, capsys):
    record = _record(finished)
    key = record["signature"]["public_key"]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record))
    assert engine_main(["replay", str(path), "--public-key", key, "--require-signature",
                        "--require-commitments"]) == 0
    assert "signed by" in capsys.readouterr().out
    assert engine_main(["replay", str(path), "--public-key", "cd" * 32]) == 1
    assert "expected the service's" in capsys.readouterr().err
    v1 = json.loads((RECORDS_V1 / "pagat.json").read_text())
    for deal in v1["deals"]:
        deal.pop("salt"), deal.pop("commitment")
    path.write_text(json.dumps(v1))
    assert engine_main(["replay", str(path)]) == 0  # a deal from before commitments passes...
    capsys.readouterr()
    assert engine_main(["replay", str(path), "--require-commitments"]) == 1  # ...unless commitments are required
    assert "every deal must have one" in capsys.readouterr().err


@pytest.mark.django_db
def test_verify_matches_compares_the_seats_with_the_seating_committed_to(finished, house_bots):
    call_command("verify_matches", "--no-progress", stdout=io.StringIO())
    Seat.objects.filter(match=finished, index=0).update(player=house_bots[2])  # seat 0 given to another player
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_matches", "--no-progress", stdout=out)
    assert f"seat 0's player expected {house_bots[0].pk}" in out.getvalue() or "commitment" in out.getvalue()
    assert Match.objects.get(pk=finished.pk).seating[0] == house_bots[0].pk


@pytest.mark.django_db
@pytest.mark.parametrize("change, says", [
    # a format downgrade or a missing format does not switch the forfeit proof off for a version 2 match
    (lambda r: r.update(format="eights-match-record/1"), "a version 2 match's record is format"),
    (lambda r: (r.pop("format"), r["result"].update(forfeited=0)), "forfeited expected None"),
    # contributions where none can be: deal 1, a match dealt from a chosen seed
    (lambda r: r["deals"][0].update(contributions=["ab" * 32, None]), "deal 1: contributions expected none"),
    (lambda r: r.update(seed=5), "secret is not the one seed 5 gives"),
    # a full record passed off as one deal played again
    (lambda r: r.update(single_deal={"key": r["deals"][0]["key"], "dealer": 1}), "one deal played again"),
    # a house seat given a fault limit, so that one invented fault would "prove" its forfeit
    (lambda r: r["players"][0].update(max_faults=1), "a house seat never forfeits"),
    (lambda r: r["deals"][0].update(faults=[[float("inf"), "timeout"]]), "faults are"),
    (lambda r: r["deals"][0].update(faults=[[1.0, "timeout"]]), "faults are"),
    (lambda r: r.update(result=[1]), "'result' must be an object"),
])
def test_forged_records_are_refused_with_words_never_a_traceback(finished, change, says):
    record = {k: v for k, v in _record(finished).items() if k != "signature"}
    change(record)
    with pytest.raises(ReplayMismatch, match=says):
        verify_record(record)


@pytest.mark.django_db
def test_the_command_line_refuses_a_signature_check_without_the_services_key(finished, tmp_path, capsys):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(_record(finished)))
    for args in (["--require-signature"], ["--public-key", ""], ["--public-key", "zz"], ["--public-key", "ab" * 31]):
        with pytest.raises(SystemExit) as refused:
            engine_main(["replay", str(path), *args])
        assert refused.value.code == 2, args
        assert "public" in capsys.readouterr().err
    path.write_text('{"seats": ' + "9" * 5000 + "}")  # an integer Python will not read: unreadable, not a mismatch
    assert engine_main(["replay", str(path)]) == 2
