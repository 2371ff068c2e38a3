"""Breaker: the events stream's per-process cache (``games.live.streams.SHARED``: a ``MatchFeed`` with its engine state
and the last 50 built events per match) is keyed by the match id alone. ``games.state_cache`` keys its states by
(id, seed, created_at) precisely because "a match id that a test database or a restored backup hands out again"
must never meet another match's state (tests/games/test_state_cache.py); the live cache has no such guard. Once an
id is handed out again (a restored backup, ``manage.py flush``/``TRUNCATE ... RESTART IDENTITY``, a test database
whose sequences are reset) while a web process lives, watchers of the new match are sent the old match's plies and
public views (another game's cards and totals, ids past the new match's ply count), without any error.

Reproduction (one web process): watch match A to its end (its events are now cached); delete A and reset the match
id sequence so that match B gets A's id; play a few plies of B; open ``/api/matches/<id>/events/?last_event_id=0``:
the stream sends A's plies as B's.
Fix: key ``_SharedEvents`` entries by (id, seed, created_at) like ``state_cache.key_of``, or check the feed's match
(seed, created_at) against the row ``MatchFeed.advance`` reads and drop the entry when they differ.
"""

from __future__ import annotations

import json

import httpx
from django.db import connection

from games import live
from eights_engine import Ruleset
from games.models import Match
from games.services import match_advance, match_create



def _read_stream(url: str, stop_after: int | None = None, timeout: float = 60) -> list[dict]:
    """The SSE events at ``url`` (``{"id", "event", "data"}``) until the end event or ``stop_after`` ply events."""
    events, buffer = [], ""
    with httpx.Client(timeout=timeout) as client, client.stream("GET", url) as response:
        assert response.status_code == 200, response.read()
        for chunk in response.iter_text():
            buffer += chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                fields = {}
                for line in block.split("\n"):
                    if line and not line.startswith(":") and ":" in line:
                        name, _, value = line.partition(":")
                        fields[name] = value[1:] if value.startswith(" ") else value
                if "event" not in fields:
                    continue
                event_id = fields.get("id")  # the end event's id is "end"
                events.append({"id": int(event_id) if event_id and event_id.isdigit() else event_id,
                               "event": fields["event"],
                               "data": json.loads(fields["data"])})
                if fields["event"] == "end" or (
                        stop_after is not None and sum(e["event"] == "ply" for e in events) >= stop_after):
                    return events
    return events


def test_breaker_a_reused_match_id_never_gets_the_old_matchs_events(live_server, transactional_db, house_bots):
    for deal_seed in range(12345, 12385):  # one deal, at most 50 plies: a short match, all of it kept
        old = match_create(players=[house_bots[0], house_bots[1]], ruleset=Ruleset.preset("pagat"), seed=5,
                           single_deal={"seed": deal_seed, "dealer": 0})
        assert match_advance(match_id=old.pk) == "finished"
        old.refresh_from_db()
        if old.ply_count <= 50:
            break
    assert old.ply_count <= 50
    url = f"{live_server.url}/api/matches/{old.pk}/events/"
    seen = _read_stream(f"{url}?last_event_id=0")  # the web process now holds old's events
    assert seen[-1]["event"] == "end"

    reused = old.pk
    Match.objects.filter(pk=reused).delete()
    with connection.cursor() as cursor:  # what a restored backup or a flush with sequences reset gives
        cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), %s, false)",
                       [Match._meta.db_table, reused])
    new = match_create(players=[house_bots[2], house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=99)
    assert new.pk == reused
    assert match_advance(match_id=new.pk, ply_budget=3) == "budget"
    new.refresh_from_db()

    truth, _end, _count = live.match_public_events(match=new, after=0)  # from the database, no cache
    got = _read_stream(f"{url}?last_event_id=0", stop_after=new.ply_count, timeout=20)
    plies = [e for e in got if e["event"] == "ply"]
    assert [e["id"] for e in plies] == [ply for ply, _data in truth]
    assert [e["data"]["ply"] for e in plies] == [data["ply"] for _ply, data in truth]
    assert [e["data"]["public"]["seats"] for e in plies] == [data["public"]["seats"] for _ply, data in truth]
