"""Watching a match (docs/LIVE.md): the public view and its 304, the seat view's 304, and the events stream walked
as a stranger over real HTTP (pytest-django's live server: WSGI, threaded): every ply in order, nothing hidden, a
reconnect with Last-Event-ID without a gap, and pushes after the commit while the match is played."""

from __future__ import annotations

import json
import re
import threading
import time

import httpx
import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from match_secrets import match_secrets
from eights_engine import Ruleset
from eights_engine.match import start_from_record
from eights_engine.cards import card_code
from games.models import Deal, Match
from games.selectors import match_snapshot
from games.services import match_advance, match_create, player_for_user

CARD = re.compile(r'"([2-9TJQKA][CDHS])"')


def _events(text: str) -> list[dict]:
    """The SSE messages of ``text``: ``{"id", "event", "data"}`` (comments left out)."""
    out = []
    for block in text.split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if line and not line.startswith(":") and ":" in line:
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
        if "event" in fields:
            event_id = fields.get("id")
            out.append({"id": int(event_id) if event_id and event_id.isdigit() else event_id, "event": fields["event"],
                        "data": json.loads(fields["data"]), "raw": fields["data"]})
    return out


def _read_stream(url: str, headers: dict | None = None, stop_after: int | None = None, timeout: float = 60) -> list:
    """Read the event stream at ``url`` until its end event (or ``stop_after`` ply events): the parsed events."""
    events, buffer = [], ""
    with httpx.Client(timeout=timeout) as client:
        with client.stream("GET", url, headers=headers or {}) as response:
            assert response.status_code == 200, response.read()
            assert response.headers["content-type"].startswith("text/event-stream")
            for chunk in response.iter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    for event in _events(block + "\n\n"):
                        event["received_ms"] = time.time() * 1000
                        events.append(event)
                        if event["event"] == "end":
                            return events
                        if stop_after is not None and sum(e["event"] == "ply" for e in events) >= stop_after:
                            return events
    return events


def _true_positions(match: Match) -> list[tuple[set[str], set[str], list[int]]]:
    """Per ply count 0..n: the cards hidden after it (every hand and the stock, from the true engine state), the
    cards public then (played or turned up in the current deal so far, and the card this ply played, which may
    have ended the previous deal) and the true hand sizes."""
    record = match_snapshot(match=match).record
    state = start_from_record(record)

    def hidden(state):
        deal = state.deal
        return {c for s in range(deal.seats) for c in deal.hand(s)} | {card_code(c) for c in deal.stock}

    def public(state, action=None):
        seen = {entry["card"] for entry in state.deal.history if entry.get("card")}
        seen.update(card_code(c) for c in state.deal.discard)
        if action and action.get("card"):
            seen.add(action["card"])
        return seen

    out = [(hidden(state), public(state), list(state.deal.sizes))]
    for deal in record["deals"]:
        for action in deal["actions"]:
            state.apply(action)
            out.append((hidden(state), public(state, action), list(state.deal.sizes)))
    return out


def _assert_nothing_hidden(events: list[dict], match: Match) -> None:
    """No event shows a card that is in a hand or the stock and was never public, nor a seed, code or salt of any
    deal of the match (all unfinished while it ran), nor any hand; the hand counts are the true ones."""
    positions = _true_positions(match)
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    assert deals and all(d.key for d in deals)
    hidden_words = match_secrets(match)  # the secret, each deal's key and code
    for event in events:
        if event["event"] != "ply":
            continue
        ply = event["id"]
        hidden, public, sizes = positions[ply]
        shown = set(CARD.findall(event["raw"]))
        assert not (shown & (hidden - public)), f"ply {ply} shows hidden cards {shown & (hidden - public)}"
        for word in ('"hand"', '"hands"', '"stock"', '"seed"', '"salt"', '"code"'):
            assert word not in event["raw"]
        for secret in hidden_words:
            assert secret not in event["raw"], f"ply {ply} shows a secret of the match"
        view = event["data"]["public"]
        assert view["ply"] == ply and event["data"]["ply"]["ply"] == ply
        assert view["hand_counts"] == sizes


@pytest.fixture
def played(transactional_db, house_bots):
    """A finished two-seat pagat match between two house bots (stored by the worker's path, ply by ply)."""
    match = match_create(players=[house_bots[2], house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=7)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    return match


def test_a_stranger_walks_every_event_of_a_whole_match_and_sees_nothing_hidden(live_server, played):
    events = _read_stream(f"{live_server.url}/api/matches/{played.pk}/events/", {"Last-Event-ID": "0"})
    plies = [e for e in events if e["event"] == "ply"]
    assert [e["id"] for e in plies] == list(range(1, played.ply_count + 1))
    assert events[-1]["event"] == "end"
    assert events[-1]["data"]["status"] == "finished" and events[-1]["data"]["totals"] == played.totals
    assert events[-1]["data"]["replay_url"] == f"/matches/{played.pk}/replay/"
    _assert_nothing_hidden(events, played)
    # the public view of the last event is the public view the endpoint gives
    final = httpx.get(f"{live_server.url}/api/matches/{played.pk}/public/").json()
    assert plies[-1]["data"]["public"] == final


@pytest.mark.parametrize("preset, options, seats", [
    ("crazy-eights", {"twos": "stack", "queen_of_spades_draw": 5, "last_card_penalty": 2}, 3),  # penalty draws and reshuffles
    ("web-table", {}, 3), ("eights-classic", {}, 4)])
def test_a_stranger_sees_nothing_hidden_under_other_rules(live_server, transactional_db, house_bots, preset, options,
                                                          seats):
    match = match_create(players=house_bots[:seats], ruleset=Ruleset.preset(preset, **options), seed=21)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    events = _read_stream(f"{live_server.url}/api/matches/{match.pk}/events/?last_event_id=0")
    assert [e["id"] for e in events if e["event"] == "ply"] == list(range(1, match.ply_count + 1))
    _assert_nothing_hidden(events, match)
    drew = sum(e["data"]["ply"]["drew"] for e in events if e["event"] == "ply")
    assert drew > 0


def test_a_reconnect_with_last_event_id_resumes_without_a_gap(live_server, played):
    url = f"{live_server.url}/api/matches/{played.pk}/events/"
    first = _read_stream(url, {"Last-Event-ID": "0"}, stop_after=10)
    last = first[-1]["id"]
    rest = _read_stream(url, {"Last-Event-ID": str(last)})
    again = _read_stream(f"{url}?last_event_id={last}")
    ids = [e["id"] for e in first + rest if e["event"] == "ply"]
    assert ids == list(range(1, played.ply_count + 1))
    assert [e["raw"] for e in again] == [e["raw"] for e in rest]


def test_the_end_event_has_the_id_end_and_a_reconnect_with_it_is_told_to_stop(live_server, played):
    url = f"{live_server.url}/api/matches/{played.pk}/events/"
    events = _read_stream(url, {"Last-Event-ID": str(played.ply_count)})  # after the last ply: only the end
    assert [(e["event"], e["id"]) for e in events] == [("end", "end")]
    for answer in (httpx.get(url, headers={"Last-Event-ID": "end"}), httpx.get(f"{url}?last_event_id=end")):
        assert answer.status_code == 204 and answer.content == b""  # EventSource stops reconnecting on 204
    again = _read_stream(url, {"Last-Event-ID": str(played.ply_count)})  # one that missed the end gets it again
    assert [e["event"] for e in again] == ["end"]


def test_end_is_no_event_id_while_the_match_runs(live_server, transactional_db, house_bots):
    person = player_for_user(user=get_user_model().objects.create_user("rae", password="pw-rae-12345"))
    running = match_create(players=[person, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=3)
    answer = httpx.get(f"{live_server.url}/api/matches/{running.pk}/events/?last_event_id=end")
    assert answer.status_code == 400 and answer.json()["error"] == "unknown_event_id"
    assert "or end once the match is over" in answer.json()["detail"]


def test_a_bad_last_event_id_is_a_400_that_says_what_is_right(live_server, played):
    for bad in ("\u0663", "+3", " 3", "3.0"):  # an Arabic-Indic three, a sign, a space, a fraction: ids are ASCII
        refused = httpx.get(f"{live_server.url}/api/matches/{played.pk}/events/", params={"last_event_id": bad})
        assert refused.status_code == 400 and refused.json()["error"] == "unknown_event_id", bad
    answer = httpx.get(f"{live_server.url}/api/matches/{played.pk}/events/?last_event_id=99999")
    assert answer.status_code == 400
    assert answer.json()["error"] == "unknown_event_id" and "from 0 to" in answer.json()["detail"]
    assert httpx.get(f"{live_server.url}/api/matches/999999/events/").status_code == 404


def test_a_watcher_gets_each_ply_pushed_after_its_commit_while_the_match_is_played(live_server, transactional_db,
                                                                                  house_bots):
    match = match_create(players=[house_bots[0], house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=11)
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(_read_stream(
        f"{live_server.url}/api/matches/{match.pk}/events/", {"Last-Event-ID": "0"}, timeout=120)))
    reader.start()
    time.sleep(0.5)
    while match_advance(match_id=match.pk, ply_budget=3) == "budget":
        time.sleep(0.05)  # a watcher sees the match grow, three plies a commit... each ply its own commit here
    reader.join(120)
    match.refresh_from_db()
    plies = [e for e in got if e["event"] == "ply"]
    assert [e["id"] for e in plies] == list(range(1, match.ply_count + 1))
    assert got[-1]["event"] == "end"
    # published after the commit: never received before the ply's store time
    assert all(e["received_ms"] >= e["data"]["published_at_ms"] - 5 for e in plies)
    _assert_nothing_hidden(got, match)


@pytest.mark.django_db
def test_the_public_view_answers_304_to_its_etag_and_a_new_tag_after_a_ply(house_bots):
    match = match_create(players=[house_bots[0], house_bots[1]], ruleset=Ruleset.preset("pagat"), seed=3)
    client = APIClient()
    first = client.get(f"/api/matches/{match.pk}/public/")
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag == f'W/"{match.pk}.0.running"'
    body = first.json()
    assert body["ply"] == 0 and body["status"] == "running" and body["history"] == []
    assert set(body) >= {"match_id", "deal_number", "dealer", "to_play", "top_card", "suit_to_follow",
                         "hand_counts", "stock_size", "discard_size", "totals", "seats", "clock", "replay_url"}
    again = client.get(f"/api/matches/{match.pk}/public/", HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again.content == b""
    match_advance(match_id=match.pk, ply_budget=1)
    moved = client.get(f"/api/matches/{match.pk}/public/", HTTP_IF_NONE_MATCH=tag)
    assert moved.status_code == 200 and moved["ETag"] == f'W/"{match.pk}.1.running"'
    assert moved.json()["history"][0]["ply"] == 1


@pytest.mark.django_db
def test_a_duplicate_sets_match_is_refused_until_its_set_is_public(house_bots):
    first = match_create(players=[house_bots[0], house_bots[1]], ruleset=Ruleset.preset("pagat"), seed=3,
                         reveal_group="set1")
    match_create(players=[house_bots[1], house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=3,
                 reveal_group="set1", after=first)
    client = APIClient()
    for path in ("public", "events"):
        answer = client.get(f"/api/matches/{first.pk}/{path}/")
        assert answer.status_code == 403 and "duplicate set" in answer.json()["detail"]


@pytest.mark.django_db
def test_the_seat_view_answers_304_until_the_position_moves(house_bots):
    ruth = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    match = match_create(players=[player_for_user(user=ruth), house_bots[3]], ruleset=Ruleset.preset("pagat"),
                         seed=5)
    client = APIClient()
    client.force_authenticate(ruth)
    url = f"/api/matches/{match.pk}/seats/0/"
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    stranger = APIClient()
    stranger.force_authenticate(get_user_model().objects.create_user("eve", password="pw-eve-123456"))
    assert stranger.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 403  # the tag opens nothing
    view = first.json()
    if view["your_turn"]:
        client.post(f"{url}actions/", {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
    else:
        match_advance(match_id=match.pk, ply_budget=1)
    moved = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
