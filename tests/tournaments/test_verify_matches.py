"""Issue 11, item 6: ``manage.py verify_matches [--since DATE] [--ladder SLUG]`` replays every stored finished match
from its seeds and plies, reports every mismatch (match id, deal, ply, expected, found) and exits non-zero when there
is one. Real PostgreSQL; matches stored quickly by tests/support/stored_matches.py, pinned to the worker's rows."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import F
from django.utils import timezone

from eights_engine import Ruleset
from games.models import Deal, Match, Move, Seat
from games.selectors import match_export
from games.services import match_advance, match_create
from stored_matches import store_house_matches
from tournaments.management.commands.verify_matches import commitments_since
from tournaments.models import LadderMatch

SHORT = Ruleset.preset("pagat", target=60)


def _verify(*args) -> tuple[str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_matches", *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def _comparable(record: dict) -> dict:
    """A record without what differs between two stores of the same match: ids, times, salts and the signature."""
    deals = [{k: v for k, v in d.items() if k not in ("salt",)} for d in record["deals"]]
    return {**{k: v for k, v in record.items() if k not in ("match", "created_at", "finished_at", "signature")},
            "deals": deals}


@pytest.mark.django_db
def test_a_match_stored_in_bulk_is_the_match_the_worker_stores(house_bots):
    players = [house_bots[0], house_bots[3]]
    played = match_create(players=players, ruleset=SHORT, preset="pagat", seed=4242)
    assert match_advance(match_id=played.pk) == "finished"
    [stored] = store_house_matches(players=players, ruleset=SHORT, preset="pagat", seeds=[4242])
    worker, bulk = (match_export(match=Match.objects.get(pk=pk)) for pk in (played.pk, stored))
    assert _comparable(worker) == _comparable(bulk)
    assert all(d["commitment"] and d["key"] for d in worker["deals"] + bulk["deals"])
    assert worker["secret"] == bulk["secret"] and worker["engine_version"] == bulk["engine_version"] == "2"


@pytest.mark.django_db
def test_it_verifies_a_few_hundred_matches_with_no_mismatch(house_bots):
    ids = store_house_matches(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat",
                              seeds=range(1, 301))
    ids += store_house_matches(players=house_bots[1:4], ruleset=Ruleset.preset("crazy-eights"),
                               preset="crazy-eights", seeds=range(1, 31))
    played = match_create(players=house_bots[2:4], ruleset=SHORT, preset="pagat", seed=9)  # one the worker played
    match_advance(match_id=played.pk)
    match_create(players=house_bots[:2], ruleset=SHORT, seed=10)  # a running match is not verified
    out, error = _verify("--chunk", "64")
    assert error is None, out
    plies = Move.objects.filter(deal__match__status=Match.Status.FINISHED).count()
    assert f"verified {len(ids) + 1} finished match(es)" in out and f"{plies} plies" in out
    assert "0 mismatch(es)" in out and "matches/s" in out and "MISMATCH" not in out


@pytest.mark.django_db
def test_it_reports_every_tampered_match_and_exits_non_zero(house_bots):
    ids = store_house_matches(players=house_bots[:2], ruleset=SHORT, preset="pagat", seeds=range(1, 41))
    # one action changed: a play of deal 2 of one match becomes an announcement (no such action in pagat)
    move = Move.objects.filter(deal__match_id=ids[5], deal__number=2, action__type="play").order_by("ply")[2]
    move.action = {"type": "announce"}
    move.save(update_fields=["action"])
    # another match's deal 1: its commitment changed after the fact
    Deal.objects.filter(match_id=ids[20], number=1).update(commitment="0" * 64)
    out, error = _verify("--no-progress")
    assert error is not None and error.returncode == 1
    lines = [line for line in out.splitlines() if line.startswith("MISMATCH")]
    assert len(lines) == 2, out
    assert lines[0].startswith(f"MISMATCH match {ids[5]} deal 2 ply {move.ply + 1}: ")
    assert "expected one of" in lines[0] and "found {'type': 'announce'}" in lines[0]
    assert lines[1].startswith(f"MISMATCH match {ids[20]} deal 1: deal 1: commitment expected")
    assert "verified 40 finished match(es)" in out and "2 mismatch(es)" in out


@pytest.mark.django_db
def test_a_deal_stored_before_commitments_passes_with_a_note(house_bots):
    ids = store_house_matches(players=house_bots[:2], ruleset=SHORT, seeds=[3, 4], version="1")
    Deal.objects.filter(match_id=ids[0]).update(salt="", commitment="")
    # a match created before the migration that added commitments was applied here
    Match.objects.filter(pk=ids[0]).update(created_at=commitments_since() - timedelta(days=1))
    out, error = _verify()
    assert error is None, out
    count = Deal.objects.filter(match_id=ids[0]).count()
    assert f"{count} deal(s) with no commitment (dealt before commitments)" in out
    # a salt without its commitment (or the reverse) is no old deal: it is refused
    Deal.objects.filter(match_id=ids[1], number=1).update(commitment="")
    out, error = _verify()
    assert error is not None and f"MISMATCH match {ids[1]} deal 1: deal 1: commitment cannot be checked" in out


@pytest.mark.django_db
def test_since_and_ladder_choose_the_matches(house_bots, ladder):
    old = store_house_matches(players=house_bots[:2], ruleset=SHORT, seeds=[1, 2])
    Match.objects.filter(pk__in=old).update(finished_at=F("finished_at") - timedelta(days=3))
    on_ladder = store_house_matches(players=house_bots[:2], ruleset=SHORT, seeds=[5, 6, 7],
                                    after=lambda m: LadderMatch.objects.create(ladder=ladder, match=m))
    Move.objects.filter(deal__match_id=old[0]).update(action={"type": "announce"})  # only an old match is broken
    since = (timezone.now() - timedelta(days=1)).date().isoformat()
    out, error = _verify("--since", since)
    assert error is None and "verified 3 finished match(es)" in out, out
    out, error = _verify("--ladder", ladder.slug)
    assert error is None and f"verified {len(on_ladder)} finished match(es)" in out, out
    out, error = _verify()
    assert error is not None and f"MISMATCH match {old[0]} deal 1 ply 1" in out
    with pytest.raises(CommandError, match="no ladder with slug 'nope'"):
        call_command("verify_matches", "--ladder", "nope", stdout=io.StringIO())


@pytest.mark.django_db(transaction=True)
def test_the_command_line_exits_1_on_a_mismatch_and_0_without(house_bots, capsys):
    from django.core.management import ManagementUtility

    ids = store_house_matches(players=house_bots[:2], ruleset=SHORT, seeds=[11, 12])
    ManagementUtility(["manage.py", "verify_matches"]).execute()  # exit status 0: it returns
    assert "0 mismatch(es)" in capsys.readouterr().out
    Move.objects.filter(deal__match_id=ids[1], deal__number=1, ply=0).update(action={"type": "announce"})
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", "verify_matches"]).execute()
    assert exited.value.code == 1
    captured = capsys.readouterr()
    assert f"MISMATCH match {ids[1]} deal 1 ply 1" in captured.out
    assert "verifying" in captured.err  # the progress bar


@pytest.mark.django_db
@pytest.mark.parametrize("since", ["2026-02-30", "2026-13-45T99:99", "2026-02-30T00:00:00Z",
                                   "9999-12-31T23:59:59-23:59", "\u0661\u0662"])
@pytest.mark.parametrize("command", ["verify_matches", "export_matches"])
def test_a_since_that_is_no_real_date_is_a_command_error_naming_it(tmp_path, command, since):
    args = ["--since", since] + ([str(tmp_path / "out.ndjson")] if command == "export_matches" else [])
    with pytest.raises(CommandError, match="--since takes a date") as refused:
        call_command(command, *args, stdout=io.StringIO(), stderr=io.StringIO())
    assert repr(since) in str(refused.value)


@pytest.mark.django_db
@pytest.mark.parametrize("tamper, says", [
    # the winner's total as pages show it (Seat.total), the match's totals left alone
    (lambda m: Seat.objects.filter(match_id=m, index=0).update(total=999), "match: seat 0's total expected"),
    # salt and commitment both blanked on a match dealt after commitments existed: no old deal
    (lambda m: Deal.objects.filter(match_id=m, number=1).update(salt="", commitment=""),
     "deal 1: expected a commitment and its salt (the match was created after commitments existed"),
    # an old match (before commitments) whose later deal was committed: one blanked after it is no old deal
    (lambda m: (Match.objects.filter(pk=m).update(created_at=commitments_since() - timedelta(days=1)),
                Deal.objects.filter(match_id=m, number__gte=2).update(salt="", commitment="")),
     "deal 2: expected a commitment and its salt (an earlier deal of the match has one)"),
])
def test_a_tampered_seat_total_or_a_blanked_commitment_is_a_mismatch(house_bots, tamper, says):
    ids = store_house_matches(players=house_bots[:2], ruleset=Ruleset.preset("pagat", target=200), seeds=[21],
                              version="1")  # a database from before engine version 2
    assert Deal.objects.filter(match_id=ids[0]).count() >= 2
    tamper(ids[0])
    out, error = _verify("--no-progress")
    assert error is not None and error.returncode == 1, out
    assert f"MISMATCH match {ids[0]}" in out and says in out, out


@pytest.mark.django_db
@pytest.mark.parametrize("tamper, says", [
    (lambda m: Deal.objects.filter(match_id=m, number=2).update(commitment=""), "deal 2: commitment expected"),
    (lambda m: Match.objects.filter(pk=m).update(secret="ab" * 32), "the secret is not the one seed 21 gives"),
    (lambda m: Match.objects.filter(pk=m).update(secret="ab" * 32, seed=None), "match: commitment expected"),
    (lambda m: Match.objects.filter(pk=m).update(commitment="ab" * 32), "match: commitment expected"),
    (lambda m: Deal.objects.filter(match_id=m, number=2).update(key="ab" * 32), "deal 2: key expected"),
    (lambda m: Deal.objects.filter(match_id=m, number=1).update(code="U0000000000000"[:13]), "deal 1: code expected"),
])
def test_a_version_2_match_with_a_changed_secret_key_code_or_commitment_is_a_mismatch(house_bots, tamper, says):
    ids = store_house_matches(players=house_bots[:2], ruleset=Ruleset.preset("pagat", target=200), seeds=[21])
    assert Deal.objects.filter(match_id=ids[0]).count() >= 2
    out, error = _verify("--no-progress")
    assert error is None, out
    tamper(ids[0])
    out, error = _verify("--no-progress")
    assert error is not None and error.returncode == 1, out
    assert f"MISMATCH match {ids[0]}" in out and says in out, out


@pytest.mark.django_db
def test_version_1_and_version_2_matches_verify_side_by_side(house_bots):
    old = store_house_matches(players=house_bots[:2], ruleset=SHORT, seeds=[31, 32], version="1")
    new = store_house_matches(players=house_bots[:2], ruleset=SHORT, seeds=[31, 32])
    assert {Match.objects.get(pk=pk).engine_version for pk in old} == {"1"}
    assert {Match.objects.get(pk=pk).engine_version for pk in new} == {"2"}
    out, error = _verify("--no-progress")
    assert error is None and "verified 4 finished match(es)" in out and "0 mismatch(es)" in out, out


@pytest.mark.django_db
def test_export_matches_reads_in_chunks_not_per_match(house_bots, tmp_path, django_assert_max_num_queries):
    """export_matches goes through match_exports: a few queries per 200 matches, however many matches there are,
    and every exported line is the record the API gives for that match."""
    ids = store_house_matches(players=house_bots[:2], ruleset=SHORT, preset="pagat", seeds=range(1, 251))
    path = tmp_path / "all.ndjson"
    with django_assert_max_num_queries(14):  # count + ids + 2 chunks x 4 reads (+ a savepoint or two)
        call_command("export_matches", str(path), stderr=io.StringIO())
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["match"] for r in lines] == ids
    assert lines[7] == match_export(match=Match.objects.get(pk=ids[7]))
