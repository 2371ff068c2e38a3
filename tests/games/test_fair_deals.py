"""Provably fair deals (issue 11, item 7; docs/FAIRNESS.md): every seat view and every bot's turn request carries the
current deal's commitment from the deal's start; once the match is finished its record publishes each deal's seed
and salt, and SHA-256 of "seed:salt" is exactly the commitment shown before. A real bot over HTTP on loopback."""

from __future__ import annotations

import hashlib

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from bot_servers import BotServer
from bots_api.models import Bot
from bots_api.protocol import schema_errors
from bots_api.services import bot_register
from games.engine import Ruleset
from games.models import Deal, Match
from games.services import match_advance, match_create, player_for_user

SHORT = Ruleset.preset("pagat", target=50)


def _opens(seed: int, salt: str) -> str:
    """What anyone can compute from a published record (docs/FAIRNESS.md), without the project's code."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


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
    match = match_create(players=[bot.player, house_bots[3]], ruleset=SHORT, seed=99, turn_timeout_ms=1000)
    assert match_advance(match_id=match.pk) == "finished"
    turns = server.bodies("turn")
    assert turns and all(not schema_errors("turn", t) for t in turns)
    seen: dict[int, set] = {}
    for turn in turns:
        seen.setdefault(turn["deal_number"], set()).add(turn["commitment"])
    record = APIClient().get(f"/api/matches/{match.pk}/record/").json()
    assert len(record["deals"]) > 1 and set(seen) == {d["number"] for d in record["deals"]}
    for deal in record["deals"]:
        assert seen[deal["number"]] == {deal["commitment"]}  # one commitment per deal, the same in every turn
        assert _opens(deal["seed"], deal["salt"]) == deal["commitment"]
        assert not any(deal["salt"] in raw.decode() for _headers, raw in server.requests)


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
        assert view["commitment"] == row.commitment and row.salt not in str(view)  # never the salt while it runs
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
        assert seen[deal["number"]] == {deal["commitment"]} == {_opens(deal["seed"], deal["salt"])}


@pytest.mark.django_db
def test_the_match_page_shows_commitments_while_running_and_seeds_and_salts_once_finished(house_bots, client):
    running = match_create(players=house_bots[:2], ruleset=SHORT, seed=8)
    deal = running.deals.get()
    page = client.get(f"/matches/{running.pk}/").content.decode()
    assert deal.commitment in page and deal.salt not in page and str(deal.seed) not in page
    finished = match_create(players=house_bots[:2], ruleset=SHORT, seed=9)
    match_advance(match_id=finished.pk)
    page = client.get(f"/matches/{finished.pk}/").content.decode()
    for row in finished.deals.all():
        assert row.commitment in page and row.salt in page and str(row.seed) in page
    assert "docs/FAIRNESS.md" in page or "FAIRNESS" in page


@pytest.mark.django_db
def test_the_five_line_check_in_fairness_md_opens_a_real_record_and_catches_a_changed_salt(house_bots, tmp_path):
    """docs/FAIRNESS.md's own Python, run as written (a separate interpreter, no project code) on a real record."""
    import json
    import re
    import subprocess
    import sys
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "FAIRNESS.md").read_text()
    [snippet] = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(snippet.strip().splitlines()) <= 5
    (tmp_path / "check.py").write_text(snippet)
    match = match_create(players=house_bots[:2], ruleset=SHORT, seed=12)
    match_advance(match_id=match.pk)
    record = APIClient().get(f"/api/matches/{match.pk}/record/").json()
    (tmp_path / "match.json").write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-I", str(tmp_path / "check.py"), str(tmp_path / "match.json")],
                         capture_output=True, text=True, cwd=tmp_path, check=True)
    lines = run.stdout.splitlines()
    assert len(lines) == len(record["deals"]) and all(line.endswith(" opens") for line in lines), run.stdout
    record["deals"][-1]["salt"] = "0" * 32
    (tmp_path / "match.json").write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-I", str(tmp_path / "check.py"), str(tmp_path / "match.json")],
                         capture_output=True, text=True, cwd=tmp_path, check=True)
    assert run.stdout.splitlines()[-1].endswith("DOES NOT OPEN")


def test_the_turn_schema_takes_a_commitment_or_null_and_nothing_else():
    """An optional field added to protocol v1: bodies without it stay valid; a deal stored before commitments
    sends null; anything but 64 lowercase hex digits is refused by the engine before a bot is asked."""
    from games.engine import MatchState
    from games.engine.referee import turn_for
    from bots_api.protocol import turn_request

    state = MatchState.start(SHORT, 2, 3)
    body = turn_request(turn_for(state, match_id=1, deadline_ms=1000, time_bank_ms=0))
    assert body["commitment"] is None and not schema_errors("turn", body)
    del body["commitment"]
    assert not schema_errors("turn", body)  # what a v1 bot got before: still valid
    body["commitment"] = "AB" * 32
    assert schema_errors("turn", body)
    with pytest.raises(ValueError, match="64 lowercase hex digits"):
        turn_for(state, match_id=1, deadline_ms=1000, time_bank_ms=0, commitment="xyz")
