"""Provably fair deals (issue 11 item 7, issue 20; docs/FAIRNESS.md): every seat view and every bot's turn request
carries the current deal's commitment from the deal's start; once the match is finished its record publishes the
match secret and each deal's key (engine version 2), and the hashes anyone can compute from them are exactly the
commitments shown before. A real bot over HTTP on loopback."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from bot_servers import BotServer
from bots_api.models import Bot
from eights_engine.bots.protocol import schema_errors
from bots_api.services import bot_register
from eights_engine import Ruleset
from games.models import Deal, Match
from games.services import match_advance, match_create, player_for_user

#: the records exported at engine version 1, kept by the engine package's tests
RECORDS_V1 = Path(__file__).resolve().parents[2] / "engine" / "tests" / "records_v1"

SHORT = Ruleset.preset("pagat", target=50)


def _opens(key: str) -> str:
    """What anyone can compute from a published key (docs/FAIRNESS.md, version 2), without the project's code."""
    return hashlib.sha256(b"eights-ladder/v2/deal-commitment\0" + bytes.fromhex(key)).hexdigest()


def _derived(record: dict, number: int) -> str:
    """Deal ``number``'s key from the published secret and contributions, as docs/FAIRNESS.md writes it."""
    parts = [bytes.fromhex(c or "") for c in record["deals"][number - 1].get("contributions") or []]
    tail = bytes([len(parts)]) + b"".join(bytes([len(p)]) + p for p in parts) if any(parts) else b"\0"
    return hashlib.sha256(b"eights-ladder/v2/deal\0" + bytes.fromhex(record["secret"]) + number.to_bytes(4, "big")
                          + tail).hexdigest()


@pytest.fixture
def server():
    started = BotServer("good", "s3cret")
    yield started
    started.stop()


@pytest.mark.django_db
def test_a_bots_turn_requests_carry_the_commitment_that_the_finished_record_opens(house_bots, server):
    owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
    bot, _ = bot_register(owner=owner, name="Probe", endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
    match = match_create(players=[bot.player, house_bots[3]], ruleset=SHORT, turn_timeout_ms=1000)  # a fresh secret
    assert match_advance(match_id=match.pk) == "finished"
    turns = server.bodies("turn")
    assert turns and all(not schema_errors("turn", t) for t in turns)
    seen: dict[int, set] = {}
    for turn in turns:
        seen.setdefault(turn["deal_number"], set()).add(turn["commitment"])
    record = APIClient().get(f"/api/matches/{match.pk}/record/").json()
    assert len(record["deals"]) > 1 and set(seen) == {d["number"] for d in record["deals"]}
    assert record["engine_version"] == "2" and "seed" not in record
    seating = bytes([len(record["seating"])]) + b"".join(i.to_bytes(8, "big") for i in record["seating"])
    assert record["seating"] == [bot.player_id, house_bots[3].pk]
    assert record["commitment"] == hashlib.sha256(b"eights-ladder/v2/secret-commitment\0"
                                                  + bytes.fromhex(record["secret"]) + seating).hexdigest()
    sent = b"".join(raw for _headers, raw in server.requests).decode()
    assert record["secret"] not in sent and record["commitment"] not in sent
    for deal in record["deals"]:
        assert seen[deal["number"]] == {deal["commitment"]}  # one commitment per deal, the same in every turn
        assert _opens(deal["key"]) == deal["commitment"] and deal["key"] == _derived(record, deal["number"])
        assert deal["key"] not in sent and "salt" not in deal and "seed" not in deal


@pytest.mark.django_db
def test_a_persons_seat_view_carries_the_commitment_from_the_deals_start(house_bots):
    person = get_user_model().objects.create_user("lin", password="pw-lin-12345")
    match = match_create(players=[player_for_user(user=person), house_bots[3]], ruleset=SHORT, seed=5)
    client = APIClient()
    client.force_authenticate(person)
    seen: dict[int, set] = {}
    first = client.get(f"/api/matches/{match.pk}/seats/0/").json()  # before the first ply of the match
    assert (first["ply"], first["deal_number"], first["commitment"]) == (0, 1, match.deals.get().commitment)
    for _ in range(2000):
        view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
        seen.setdefault(view["deal_number"], set()).add(view["commitment"])
        if view["status"] != "running":
            break
        row = Deal.objects.get(match=match, number=view["deal_number"])
        assert view["commitment"] == row.commitment and row.key not in str(view)  # never the key while it runs
        assert match.secret not in str(view)
        if view["your_turn"]:
            moved = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                                {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
            assert moved.status_code == 200, moved.content
        match_advance(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    record = client.get(f"/api/matches/{match.pk}/record/").json()
    assert len(record["deals"]) > 1
    for deal in record["deals"]:
        assert seen[deal["number"]] == {deal["commitment"]} == {_opens(deal["key"])}


@pytest.mark.django_db
def test_the_match_page_shows_commitments_while_running_and_the_secret_and_keys_once_finished(house_bots, client):
    running = match_create(players=house_bots[:2], ruleset=SHORT)
    deal = running.deals.get()
    page = client.get(f"/matches/{running.pk}/").content.decode()
    assert deal.commitment in page and running.commitment in page
    assert deal.key not in page and running.secret not in page and deal.code not in page
    api = APIClient().get(f"/api/matches/{running.pk}/").json()
    assert running.secret not in str(api) and deal.key not in str(api) and api["commitment"] == running.commitment
    finished = match_create(players=house_bots[:2], ruleset=SHORT)
    match_advance(match_id=finished.pk)
    finished.refresh_from_db()
    page = client.get(f"/matches/{finished.pk}/").content.decode()
    assert finished.secret in page and finished.commitment in page
    for row in finished.deals.all():
        assert row.commitment in page and row.key in page
    api = APIClient().get(f"/api/matches/{finished.pk}/").json()
    assert api["secret"] == finished.secret and [d["key"] for d in api["deals"]] == [
        d.key for d in finished.deals.order_by("number")]
    assert "docs/FAIRNESS.md" in page or "FAIRNESS" in page


def _snippets() -> list[str]:
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "FAIRNESS.md").read_text()
    return re.findall(r"```python\n(.*?)```", doc, re.S)


def _run(snippet: str, record: dict, tmp_path) -> list[str]:
    import json
    import subprocess
    import sys

    (tmp_path / "check.py").write_text(snippet)
    (tmp_path / "match.json").write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-I", str(tmp_path / "check.py"), str(tmp_path / "match.json")],
                         capture_output=True, text=True, cwd=tmp_path, check=True)
    return run.stdout.splitlines()


@pytest.mark.django_db
def test_the_version_2_check_in_fairness_md_opens_a_real_record_and_catches_a_changed_key(house_bots, tmp_path):
    """docs/FAIRNESS.md's own Python, run as written (a separate interpreter, no project code) on a real record."""
    v2, _v1 = _snippets()
    match = match_create(players=house_bots[:2], ruleset=SHORT)
    match_advance(match_id=match.pk)
    record = APIClient().get(f"/api/matches/{match.pk}/record/").json()
    lines = _run(v2, record, tmp_path)
    assert len(lines) == 1 + len(record["deals"]) and all(line.endswith(" opens") for line in lines), lines
    record["deals"][-1]["key"] = "0" * 64
    assert _run(v2, record, tmp_path)[-1].endswith("DOES NOT OPEN")
    record["secret"] = "1" * 64
    assert _run(v2, record, tmp_path)[0] == "secret DOES NOT OPEN"


def test_the_version_1_check_in_fairness_md_still_opens_a_record_exported_before_version_2(tmp_path):
    import json

    _v2, v1 = _snippets()
    record = json.loads((RECORDS_V1 / "pagat.json").read_text())
    lines = _run(v1, record, tmp_path)
    assert len(lines) == len(record["deals"]) and all(line.endswith(" opens") for line in lines), lines
    record["deals"][-1]["salt"] = "0" * 32
    assert _run(v1, record, tmp_path)[-1].endswith("DOES NOT OPEN")


def test_the_turn_schema_takes_a_commitment_or_null_and_nothing_else():
    """An optional field added to protocol v1: bodies without it stay valid; a deal stored before commitments
    sends null; anything but 64 lowercase hex digits is refused by the engine before a bot is asked."""
    from eights_engine import MatchState
    from eights_engine.referee import turn_for
    from eights_engine.bots.protocol import turn_request

    state = MatchState.start(SHORT, 2, 3)
    body = turn_request(turn_for(state, match_id=1, deadline_ms=1000, time_bank_ms=0))
    assert body["commitment"] is None and not schema_errors("turn", body)
    del body["commitment"]
    assert not schema_errors("turn", body)  # what a v1 bot got before: still valid
    body["commitment"] = "AB" * 32
    assert schema_errors("turn", body)
    with pytest.raises(ValueError, match="64 lowercase hex digits"):
        turn_for(state, match_id=1, deadline_ms=1000, time_bank_ms=0, commitment="xyz")
