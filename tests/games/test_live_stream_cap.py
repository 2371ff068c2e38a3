"""The cap on open event streams per client address (``LIVE_STREAMS_PER_ADDRESS``, games.live.api): past it a new
stream is a 429 in the usual error shape with Retry-After, and a stream that ends (closed by its watcher, or at the
end of its match) gives its slot back, under WSGI (Django's handler, as in the zero-setup server) and under the
production server (gunicorn + uvicorn workers: the ``asgi_server`` fixture)."""

from __future__ import annotations

import time

import httpx
import pytest
from django.test import Client

from eights_engine import Ruleset
from games.services import match_advance, match_create



def _open(client: Client, match_id: int):
    return client.get(f"/api/matches/{match_id}/events/", HTTP_ACCEPT="text/event-stream")


@pytest.mark.django_db(transaction=True)  # closing a response closes the connection (request_finished)
def test_past_the_cap_a_stream_is_a_429_and_a_closed_or_ended_stream_gives_its_slot_back(house_bots, settings):
    settings.LIVE_STREAMS_PER_ADDRESS = 2
    settings.LIVE_STREAM_MAX_SECONDS = 0.2
    running = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=4)
    client = Client()
    first, second = _open(client, running.pk), _open(client, running.pk)
    assert first.status_code == second.status_code == 200
    refused = _open(client, running.pk)
    assert refused.status_code == 429
    body = refused.json()
    assert body["error"] == "too_many_streams" and "LIVE_STREAMS_PER_ADDRESS" in body["detail"]
    assert int(refused["Retry-After"]) >= 1
    first.close()  # the watcher went away before reading anything
    third = _open(client, running.pk)
    assert third.status_code == 200
    assert _open(client, running.pk).status_code == 429
    b"".join(second.streaming_content)  # read to its end of life (LIVE_STREAM_MAX_SECONDS)
    assert _open(client, running.pk).status_code == 200
    assert _open(client, running.pk).status_code == 429
    settings.LIVE_STREAMS_PER_ADDRESS = 0  # no cap
    assert all(_open(client, running.pk).status_code == 200 for _ in range(5))


def test_under_the_production_server_closed_streams_give_their_slots_back(asgi_server, house_bots):  # noqa: F811
    url, _log = asgi_server
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=4)
    match_advance(match_id=match.pk, ply_budget=2)
    for _round in range(2):  # the second round opens as many: the first round's slots came back
        clients = [httpx.Client(timeout=30) for _ in range(20)]
        opened, statuses = [], []
        try:
            for client in clients:
                stream = client.stream("GET", f"{url}/api/matches/{match.pk}/events/")
                statuses.append(stream.__enter__().status_code)
                opened.append(stream)
            assert statuses == [200] * 20, statuses
            refused = httpx.get(f"{url}/api/matches/{match.pk}/events/", timeout=30)
            assert refused.status_code == 429 and refused.json()["error"] == "too_many_streams"
            assert refused.headers["Retry-After"]
        finally:
            for stream in opened:
                stream.__exit__(None, None, None)
            for client in clients:
                client.close()
        time.sleep(3)  # the server has seen the disconnects (at its next write: a ping a second here)


# ---- issue 21: slots are leases ---------------------------------------------------------------------------------
from games.live.stream_slots import StreamSlot, TooManyStreams  # noqa: E402


def _slot(address="203.0.113.9") -> StreamSlot:
    return StreamSlot(address)


def test_the_slots_of_a_process_that_died_free_themselves_within_a_lease(settings):
    settings.LIVE_STREAMS_PER_ADDRESS, settings.LIVE_STREAM_LEASE_SECONDS = 2, 1
    _slot().take(), _slot().take()  # two streams of a process killed before it could release them
    with pytest.raises(TooManyStreams):
        _slot().take()
    time.sleep(1.2)
    _slot().take()
    _slot().take()


def test_a_refused_attempt_never_extends_a_lease(settings):
    settings.LIVE_STREAMS_PER_ADDRESS, settings.LIVE_STREAM_LEASE_SECONDS = 1, 1
    _slot().take()  # held by a stream whose process died
    refused, deadline = 0, time.monotonic() + 0.9
    while time.monotonic() < deadline:  # an address that keeps retrying
        with pytest.raises(TooManyStreams):
            _slot().take()
        refused += 1
        time.sleep(0.05)
    time.sleep(0.3)
    _slot().take()  # the lease ran out on time, whatever the retries
    assert refused > 5


def test_a_living_stream_keeps_its_slot_by_renewing_and_gives_it_back(settings):
    settings.LIVE_STREAMS_PER_ADDRESS, settings.LIVE_STREAM_LEASE_SECONDS = 1, 1
    living = _slot()
    living.take()
    for _ in range(8):  # 2 s: twice the lease
        time.sleep(0.25)
        living.renew()
    with pytest.raises(TooManyStreams):
        _slot().take()
    living.release()
    _slot().take()


def test_a_killed_web_server_leaves_no_address_locked_out(transactional_db, tmp_path, house_bots):
    """The production server for real: three streams fill the address's cap, the server is SIGKILLed (no stream
    ends), a new one starts on the same cache: the address is refused only until the dead streams' leases run out."""
    import os
    import signal

    from web_servers import production_web_server

    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=4)
    env = {"LIVE_STREAMS_PER_ADDRESS": "3", "LIVE_STREAM_LEASE_SECONDS": "3"}

    def open_streams(url, count):
        clients = [httpx.Client(timeout=30) for _ in range(count)]
        streams = [c.stream("GET", f"{url}/api/matches/{match.pk}/events/") for c in clients]
        return clients, streams, [s.__enter__().status_code for s in streams]

    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    with production_web_server(tmp_path / "first", **env) as (url, _log):
        clients, _streams, statuses = open_streams(url, 3)
        assert statuses == [200] * 3
        server_pids = {int(line) for line in os.popen(f"pgrep -f 'bind 127.0.0.1:{url.rsplit(':', 1)[1]}'")}
        for pid in server_pids:  # the master and its worker, killed with the streams open: no release runs
            os.kill(pid, signal.SIGKILL)
        for client in clients:
            client.close()
    with production_web_server(tmp_path / "second", **env) as (url, _log):
        with httpx.Client(timeout=10) as client:  # the dead streams still hold their slots for now
            with client.stream("GET", f"{url}/api/matches/{match.pk}/events/") as refused:
                assert refused.status_code == 429
        time.sleep(3.5)  # their leases run out
        clients, streams, statuses = open_streams(url, 3)
        try:
            assert statuses == [200] * 3, statuses
        finally:
            for stream in streams:
                stream.__exit__(None, None, None)
            for client in clients:
                client.close()
