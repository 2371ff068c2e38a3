"""The production web server for real (Procfile's web line: gunicorn with uvicorn workers, ``config.asgi``) against
this run's test database and Redis: a watcher gets every ply pushed, and idle streams hold no database connection."""

from __future__ import annotations

import re
import threading
import time

import httpx
from django.db import connection

from eights_engine import Ruleset
from games.services import match_advance, match_create, player_for_user

from test_live import _assert_nothing_hidden, _read_stream

from web_servers import APP_NAME, _free_port, production_web_server


def _server_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE application_name = %s", [APP_NAME])
        rows = cursor.fetchall()
        return len(rows)


def test_under_asgi_idle_streams_hold_no_connection_and_a_watcher_gets_every_ply(asgi_server, house_bots):
    url, log = asgi_server
    from django.contrib.auth import get_user_model

    ruth = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    waiting = match_create(players=[house_bots[3], player_for_user(user=ruth)], ruleset=Ruleset.preset("pagat"),
                           seed=2)
    match_advance(match_id=waiting.pk)  # the house bot plays; then it waits for ruth: an idle match
    before = _server_connections()  # (the server's own, e.g. opened at start-up)
    clients = [httpx.Client(timeout=30) for _ in range(20)]
    streams = []
    try:
        for client in clients:  # twenty watchers of a match waiting for a person
            stream = client.stream("GET", f"{url}/api/matches/{waiting.pk}/events/")
            response = stream.__enter__()
            assert response.status_code == 200
            streams.append((stream, response))
        first = next(streams[0][1].iter_text())  # ": connected" (then pings): the streams are open
        assert first.startswith("retry: ")
        time.sleep(1.5)
        assert _server_connections() == before <= 1, "an idle stream keeps a database connection"

        match = match_create(players=[house_bots[1], house_bots[2]], ruleset=Ruleset.preset("pagat"), seed=9)
        got: list = []
        reader = threading.Thread(target=lambda: got.extend(_read_stream(
            f"{url}/api/matches/{match.pk}/events/", {"Last-Event-ID": "0"}, timeout=120)))
        reader.start()
        time.sleep(0.5)
        while match_advance(match_id=match.pk, ply_budget=5) == "budget":
            time.sleep(0.02)
        reader.join(120)
        match.refresh_from_db()
        assert [e["id"] for e in got if e["event"] == "ply"] == list(range(1, match.ply_count + 1))
        assert got[-1]["event"] == "end"
        _assert_nothing_hidden(got, match)
    finally:
        for stream, _response in streams:
            stream.__exit__(None, None, None)
        for client in clients:
            client.close()
    assert not re.search(r"Traceback|Exception in ASGI", log.read_text()), log.read_text()[-3000:]


def test_while_redis_is_away_a_watcher_is_told_of_each_ply_by_polling(transactional_db, tmp_path, house_bots):
    """Issue 21: with the live events' Redis unreachable the streams poll the database every LIVE_POLL_SECONDS
    (not every LIVE_RECHECK_SECONDS or keep-alive, kept for a missed wake-up when Redis is there): watching goes
    on, and the end is told within a poll."""
    with production_web_server(tmp_path, LIVE_REDIS_URL=f"redis://127.0.0.1:{_free_port()}/0", LIVE_RECHECK_SECONDS="30",
                     LIVE_KEEPALIVE_SECONDS="15", LIVE_POLL_SECONDS="0.2") as (url, log):
        match = match_create(players=[house_bots[1], house_bots[2]], ruleset=Ruleset.preset("pagat"), seed=11)
        got: list = []
        done = {}

        def read():
            got.extend(_read_stream(f"{url}/api/matches/{match.pk}/events/", {"Last-Event-ID": "0"}, timeout=60))
            done["at"] = time.monotonic()

        reader = threading.Thread(target=read)
        reader.start()
        time.sleep(3)  # the stream is open and idle: its first wait has begun
        while match_advance(match_id=match.pk) == "budget":
            pass
        finished = time.monotonic()
        reader.join(60)
        match.refresh_from_db()
        assert [e["id"] for e in got if e["event"] == "ply"] == list(range(1, match.ply_count + 1))
        assert got[-1]["event"] == "end"
        assert done["at"] - finished < 3, "the watcher waited for a recheck, not a poll"
        assert not re.search(r"Traceback|Exception in ASGI", log.read_text()), log.read_text()[-3000:]
