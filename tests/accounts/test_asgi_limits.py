"""Breaker: limits of the production web server (Procfile's web line: gunicorn with uvicorn workers,
``config.asgi``), run for real against this run's database and Redis.

1. X-Forwarded-For is trusted although ``NUM_PROXIES`` is 0. ``sitekit.limits`` says "with 0, the default, the header
   is never read, so a forged one buys no new budget", but uvicorn's worker runs with ``proxy_headers`` on and
   gunicorn's default ``forwarded_allow_ips`` (127.0.0.1): for every connection from loopback it rewrites the client
   address (``REMOTE_ADDR``) from X-Forwarded-For before Django sees it. The Procfile binds 127.0.0.1, i.e. it is
   reached through something local (a reverse proxy, a tunnel, a sidecar): each forged header is a fresh throttle
   budget (every per-address limit: API throttles, sign-ups, guest deals, failed logins), and the loopback rule of
   ``/metrics`` depends on a header. Reproduction: spend the ``live_public`` budget from 127.0.0.1, then send the same
   request with ``X-Forwarded-For: 198.51.100.N``: 200 instead of 429. Fix: ``--forwarded-allow-ips ''`` (or
   ``FORWARDED_ALLOW_IPS`` derived from ``NUM_PROXIES``) on the web line / Dockerfile / compose, or a worker class
   with ``proxy_headers=False``, so that Django's one rule (``client_address``) decides.

2. Event streams per client are unbounded: ``live_events`` counts stream *openings* (120/min) but a stream lives
   ``LIVE_STREAM_MAX_SECONDS`` (600 s), so one address can hold ~1,200 open streams per worker, each re-reading the
   database every ``LIVE_RECHECK_SECONDS`` (and, in the zero-setup WSGI server, holding a thread and polling SQLite
   every 0.3 s). Reproduction: open 40 streams of one match from one address: all 200. Fix: a cap on concurrent
   streams per client address (e.g. a Redis counter incremented at open, decremented in the stream's finally;
   429 past ``LIVE_STREAMS_PER_ADDRESS``).
"""

from __future__ import annotations

import contextlib


import httpx
import pytest

from eights_engine import Ruleset
from games.services import match_advance, match_create
from web_servers import production_web_server



@pytest.fixture
def web(transactional_db, tmp_path):
    """``web(**env)`` starts the production web server with ``env`` (``web_servers.production_web_server``, in its
    own folder each); all are stopped after the test."""
    with contextlib.ExitStack() as stack:
        started = []

        def start(**extra):
            url, _log = stack.enter_context(production_web_server(tmp_path / str(len(started)), **extra))
            started.append(url)
            return url

        yield start


def test_breaker_a_forged_x_forwarded_for_buys_no_new_budget_under_the_production_server(web, house_bots):
    url = web(LIVE_PUBLIC_RATE="3/min", NUM_PROXIES="0")
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=4)
    public = f"{url}/api/matches/{match.pk}/public/"
    assert [httpx.get(public).status_code for _ in range(3)] == [200, 200, 200]
    refused = httpx.get(public)
    assert refused.status_code == 429 and refused.json()["error"]  # the address's budget is spent
    forged = [httpx.get(public, headers={"X-Forwarded-For": f"198.51.100.{n}"}).status_code for n in range(1, 6)]
    assert forged == [429] * 5, f"each forged X-Forwarded-For got a fresh budget: {forged}"


def test_breaker_one_address_cannot_hold_dozens_of_event_streams_open(web, house_bots):
    url = web()
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=4)
    match_advance(match_id=match.pk, ply_budget=2)
    clients = [httpx.Client(timeout=30) for _ in range(40)]
    opened, statuses = [], []
    try:
        for client in clients:
            stream = client.stream("GET", f"{url}/api/matches/{match.pk}/events/")
            response = stream.__enter__()
            opened.append(stream)
            statuses.append(response.status_code)
        assert 429 in statuses, f"40 concurrent streams from one address, all accepted: {set(statuses)}"
    finally:
        for stream in opened:
            stream.__exit__(None, None, None)
        for client in clients:
            client.close()
