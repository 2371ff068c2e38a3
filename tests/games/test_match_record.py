"""Issue 11, items 4 and 5: a finished match's record (API, NDJSON export) and its offline replay with the engine
alone (``python -m eights_engine replay``); a running or aborted match's record is never given."""

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from eights_engine import PRESETS, Ruleset
from eights_engine.__main__ import main as engine_main
from games.models import Deal, Match
from games.selectors import MatchNotFinished, match_export
from games.services import match_abort, match_advance, match_create, player_for_user

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "match-record.schema.json").read_text())


def _finished(bots, preset="pagat", seed=7):
    ruleset = Ruleset.preset(preset)
    match = match_create(players=bots[:ruleset.seats_min], ruleset=ruleset, preset=preset, seed=seed)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    return match


def _client(user=None):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _replay(tmp_path, text, capsys, name="rec.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    rc = engine_main(["replay", str(path)])
    return rc, capsys.readouterr()


@pytest.fixture
def people(db):
    users = [get_user_model().objects.create_user(username=n, password="pw-12345-xyz") for n in ("ann", "bob")]
    return users


@pytest.mark.django_db
def test_record_of_a_finished_match_is_public_and_valid(house_bots, people):
    match = _finished(house_bots)
    for user in (None, people[1]):
        response = _client(user).get(f"/api/matches/{match.pk}/record/")
        assert response.status_code == 200, response.content
        record = response.json()
        jsonschema.validate(record, SCHEMA)
        assert record == json.loads(json.dumps(match_export(match=match)))
    assert record["match"] == match.pk and record["secret"] == match.secret and record["engine_version"] == "2"
    assert record["commitment"] == match.commitment and record.get("seed") == match.seed
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    assert [d["key"] for d in record["deals"]] == [d.key for d in deals]
    assert [d["dealer"] for d in record["deals"]] == [d.dealer for d in deals]
    assert sum(len(d["actions"]) for d in record["deals"]) == match.ply_count
    assert record["result"]["totals"] == match.totals


@pytest.mark.django_db
def test_record_of_a_running_or_aborted_match_is_refused_to_everyone(house_bots, people):
    ann_player = player_for_user(user=people[0])
    running = match_create(players=[ann_player, house_bots[0]], ruleset=Ruleset.preset("pagat"), preset="pagat",
                           seed=987_654_321_011)  # no match id or other number in a reply contains it
    aborted = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=987_654_321_012)
    match_advance(match_id=aborted.pk, ply_budget=5)
    match_abort(match_id=aborted.pk, reason="test")
    for match in (running, aborted):
        secrets = [d.key for d in Deal.objects.filter(match=match)] + [
            d.code for d in Deal.objects.filter(match=match)] + [str(match.seed), match.secret]
        for user in (people[0], people[1], None):  # its player, another user, anonymous
            response = _client(user).get(f"/api/matches/{match.pk}/record/")
            assert response.status_code == 403, (match.status, user, response.content)
            body = response.json()
            assert set(body) == {"error", "detail"} and body["error"] == "permission_denied"
            assert not any(s in response.content.decode() for s in secrets)
        with pytest.raises(MatchNotFinished):
            match_export(match=match)
    response = _client().get("/api/matches/999999/record/")
    assert response.status_code == 404 and set(response.json()) == {"error", "detail"}


@pytest.mark.django_db
def test_match_page_links_the_record_only_when_finished(client, house_bots):
    finished = _finished(house_bots)
    running = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=3)
    assert f"/api/matches/{finished.pk}/record/" in client.get(f"/matches/{finished.pk}/").content.decode()
    assert "/record/" not in client.get(f"/matches/{running.pk}/").content.decode()
    download = client.get(f"/api/matches/{finished.pk}/record/?download=1",
                          HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    assert download.status_code == 200, download.content
    assert download["Content-Type"].startswith("application/json")
    assert download["Content-Disposition"] == f'attachment; filename="match-{finished.pk}.json"'
    jsonschema.validate(download.json(), SCHEMA)


@pytest.mark.django_db
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_export_then_offline_replay_round_trip(preset, house_bots, tmp_path, capsys):
    match = _finished(house_bots, preset=preset, seed=20 + sorted(PRESETS).index(preset))
    record = _client().get(f"/api/matches/{match.pk}/record/").json()
    jsonschema.validate(record, SCHEMA)
    assert all(len(d["key"]) == 64 and len(d["commitment"]) == 64 for d in record["deals"])  # docs/FAIRNESS.md
    rc, out = _replay(tmp_path, json.dumps(record), capsys)
    assert rc == 0, out.err
    assert f"match {match.pk} ({preset}" in out.out
    assert "the secret opened the match's commitment and every deal's key its own, signed by" in out.out


@pytest.mark.django_db
def test_a_tampered_action_is_refused_naming_deal_and_ply(house_bots, tmp_path, capsys):
    record = match_export(match=_finished(house_bots))
    deal = record["deals"][0]
    ply = next(i for i, a in enumerate(deal["actions"]) if a["type"] == "play")
    tampered = copy.deepcopy(record)
    tampered["deals"][0]["actions"][ply] = {"type": "play", "card": "XX"}
    rc, out = _replay(tmp_path, json.dumps(tampered), capsys)
    assert rc == 1
    assert f"deal 1 ply {ply + 1}: expected one of" in out.err and "'XX'" in out.err
    # a card that exists but is not in hand at that ply
    hand_cards = {a.get("card") for a in deal["actions"]}
    other = next(r + s for s in "SHDC" for r in "A2K7Q3456"  # a card deal 1 never played
                 if r + s not in hand_cards)
    tampered["deals"][0]["actions"][ply] = {"type": "play", "card": other}
    rc, out = _replay(tmp_path, json.dumps(tampered), capsys)
    assert rc == 1 and f"deal 1 ply {ply + 1}" in out.err
    # a stored result changed
    changed = copy.deepcopy(record)
    changed["deals"][-1]["points"] = [p + 1 for p in changed["deals"][-1]["points"]]
    rc, out = _replay(tmp_path, json.dumps(changed), capsys)
    assert rc == 1 and f"deal {len(record['deals'])}: points expected" in out.err
    changed = copy.deepcopy(record)
    changed["deals"][0]["dealer"] = (changed["deals"][0]["dealer"] + 1) % record["seats"]
    rc, out = _replay(tmp_path, json.dumps(changed), capsys)
    assert rc == 1 and "deal 1: dealer expected" in out.err
    changed = copy.deepcopy(record)
    changed["result"]["places"] = list(reversed(changed["result"]["places"]))
    changed["result"]["totals"] = list(reversed(changed["result"]["totals"]))
    rc, out = _replay(tmp_path, json.dumps(changed), capsys)
    assert rc == 1 and "match: totals expected" in out.err


def _swap_places(r):
    r["players"][0]["place"], r["players"][1]["place"] = r["players"][1]["place"], r["players"][0]["place"]
    return r


def _result_dropped_and_cut(r):
    """A finished match passed off as one still to be played: no result, its first deal cut after 3 plies."""
    del r["result"]
    r["deals"] = [{k: v for k, v in r["deals"][0].items() if k not in ("outcome", "winner", "hand_values", "points")}
                  | {"actions": r["deals"][0]["actions"][:3]}]
    return r


@pytest.mark.django_db
@pytest.mark.parametrize("forge, says", [
    (lambda r: r["players"].reverse() or r, "match: seat 0's seat expected 0, found 1"),
    (_swap_places, "match: seat 0's place expected"),
    (lambda r: r["players"][0].update(total=999) or r, "match: seat 0's total expected"),
    (lambda r: r["players"][1].update(forfeited=True) or r, "match: seat 1's forfeited expected False, found True"),
    (lambda r: r.update(players=None) or r, "match: players expected a list of 2 seats, found None"),
    (lambda r: r["players"].pop() and r, "match: players expected a list of 2 seats"),
    (_result_dropped_and_cut, "match: expected the match's result (an exported record is of a finished match)"),
    (lambda r: r["result"].pop("places") and r, "match: expected the result's places, found none"),
])
def test_forged_players_or_a_missing_result_are_refused(house_bots, tmp_path, capsys, forge, says):
    record = match_export(match=_finished(house_bots))
    rc, _ = _replay(tmp_path, json.dumps(record), capsys)
    assert rc == 0
    rc, out = _replay(tmp_path, json.dumps(forge(copy.deepcopy(record))), capsys)
    assert rc == 1 and says in out.err, out.err


@pytest.mark.parametrize("text", ["[" * 200000 + "]" * 200000, '{"a": ' * 5000 + "1" + "}" * 5000 + "\n"])
def test_json_nested_too_deeply_exits_2_saying_so(tmp_path, capsys, text):
    rc, out = _replay(tmp_path, text, capsys)
    assert rc == 2 and "not JSON: nested too deeply" in out.err and "Traceback" not in out.err


@pytest.mark.django_db
def test_export_matches_ndjson_with_since_and_ladder(house_bots, ladder, tmp_path, capsys):
    from tournaments.models import LadderMatch

    old = _finished(house_bots, seed=1)
    Match.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timezone.timedelta(days=10))
    new = _finished(house_bots, seed=2)
    on_ladder = _finished(house_bots, seed=3)
    LadderMatch.objects.create(ladder=ladder, match=on_ladder)
    running = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=987654321987)
    match_advance(match_id=running.pk, ply_budget=3)
    running_secrets = [str(running.seed)] + [str(d.seed) for d in Deal.objects.filter(match=running)] + [
        d.code for d in Deal.objects.filter(match=running)]

    def export(*args):
        path = tmp_path / "out.ndjson"
        call_command("export_matches", str(path), *args)
        err = capsys.readouterr().err
        text = path.read_text()
        assert not any(s in text or s in err for s in running_secrets)
        return [json.loads(line) for line in text.splitlines()], err, path

    records, err, path = export()
    assert [r["match"] for r in records] == [old.pk, new.pk, on_ladder.pk]
    assert "3/3 matches" in err and "3 finished match records written" in err
    for r in records:
        jsonschema.validate(r, SCHEMA)
    rc = engine_main(["replay", str(path)])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert "3 records replayed: no mismatch" in out.out
    since = (timezone.now() - timezone.timedelta(days=1)).date().isoformat()
    assert [r["match"] for r in export("--since", since)[0]] == [new.pk, on_ladder.pk]
    assert [r["match"] for r in export("--ladder", ladder.slug)[0]] == [on_ladder.pk]
    with pytest.raises(CommandError, match="--since takes a date"):
        call_command("export_matches", str(tmp_path / "x"), "--since", "yesterday")
    with pytest.raises(CommandError, match="no ladder"):
        call_command("export_matches", str(tmp_path / "x"), "--ladder", "nope")
    # one tampered line of many: the replay names that line and stops
    path = export()[2]
    lines = path.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["deals"][0]["actions"][0] = {"type": "play", "card": "ZZ"}
    lines[1] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    rc = engine_main(["replay", str(path)])
    out = capsys.readouterr()
    assert rc == 1 and f"line 2 (match {bad['match']}): MISMATCH: deal 1 ply 1" in out.err
