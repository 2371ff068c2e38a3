"""Bot checks (verification) never hold a web request: ``POST /api/bots/{id}/verify/`` and the page's Verify button
queue a check and answer at once (202, "checking..."); a Celery worker (or, without a broker, a short-lived
thread) sends the bot the conformance checks, and the owner polls ``GET /api/bots/{id}/checks/{check_id}/``.

Real bots on loopback (the reference bot, and a listening socket that never answers), a real Redis broker and a
real Celery worker where the outcome depends on one, a live server for the concurrent requests.

Personas: an owner (ada, with a token).
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bot_servers import BotServer
from eights_engine.bots import check as conformance
from bots_api.models import Bot, BotCheck
from bots_api.services import bot_check_request, bot_check_run, bot_rotate_secret
from config.celery import app


@pytest.fixture
def token(owner):
    return Token.objects.create(user=owner).key


@pytest.fixture
def as_owner(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def silent_url():
    """A loopback endpoint that accepts connections and never answers (a hung bot): the kernel completes the
    handshake from the listen backlog, the request is sent, and no byte ever comes back."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"


@pytest.fixture
def good_server(servers):
    """``good_server(secret)``: a good bot server named Checked with that secret."""
    return lambda secret: servers("good", secret, "Checked")


@pytest.fixture
def empty_queue():
    """No task left in this run's Redis database by an earlier test (a worker would run it against a dropped
    row) or by this one."""
    app.control.purge()
    yield
    app.control.purge()


def _register(client, url: str, name: str = "Checked") -> dict:
    response = client.post("/api/bots/", {"name": name, "endpoint_url": url}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _verify(client, bot_id: int) -> tuple[dict, float]:
    started = time.monotonic()
    response = client.post(f"/api/bots/{bot_id}/verify/")
    took = time.monotonic() - started
    assert response.status_code == 202, response.content
    body = response.json()
    assert response["Location"] == f"/api/bots/{bot_id}/checks/{body['id']}/"
    return body, took


def _wait_until_done(client, bot_id: int, check_id: int, seconds: float = 30) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = client.get(f"/api/bots/{bot_id}/checks/{check_id}/").json()
        if body["state"] in ("passed", "failed"):
            return body
        time.sleep(0.1)
    raise AssertionError(f"check {check_id} still {body['state']} after {seconds} s")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_verify_answers_at_once_and_the_worker_fails_the_check_of_a_bot_that_never_answers(
        as_owner, silent_url, empty_queue):
    bot = _register(as_owner, silent_url)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        queued, took = _verify(as_owner, bot["id"])
        assert took < 0.5  # the request never waits for the bot (it used to hold the worker for the 3 s ping)
        assert queued["state"] in ("queued", "running") and queued["finished_at"] is None
        done = _wait_until_done(as_owner, bot["id"], queued["id"])
    assert done["state"] == "failed"
    # a check's first request is a turn (the ping comes last), given the deadline and the time bank plus 1 s
    assert done["detail"].startswith("turn: ") and "timeout: no answer within 7000 ms" in done["detail"]
    assert len(done["checks"]) == 1  # nothing else is sent to a bot that does not answer
    assert done["started_at"] and done["finished_at"]
    assert Bot.objects.get(pk=bot["id"]).verified_at is None


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_good_bot_is_verified_once_the_worker_has_run_every_conformance_check(as_owner, good_server, empty_queue):
    bot = _register(as_owner, "http://127.0.0.1:9/")
    server = good_server(bot["secret"])
    assert as_owner.patch(f"/api/bots/{bot['id']}/", {"endpoint_url": server.url}, format="json").status_code == 200
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        queued, took = _verify(as_owner, bot["id"])
        assert took < 0.5
        done = _wait_until_done(as_owner, bot["id"], queued["id"])
    assert done["state"] == "passed", done
    assert len(done["checks"]) == conformance.TURN_CHECKS + 5
    assert all(c["status"] == "PASS" for c in done["checks"])
    assert done["latency_ms"] is not None and done["latency_ms"] >= 0
    detail = as_owner.get(f"/api/bots/{bot['id']}/").json()
    assert detail["verified_at"] and detail["can_play"] and detail["reported_name"] == "Checked"
    kinds = [body["type"] for body in (server.bodies("ping") + server.bodies("turn") + server.bodies("match_end"))]
    assert kinds.count("turn") >= conformance.TURN_CHECKS  # several positions, not one ping


@pytest.mark.django_db(transaction=True)
def test_four_verifications_of_a_dead_endpoint_leave_every_request_fast(live_server, owner, token, silent_url,
                                                                        empty_queue):
    """The breaker's trial: four verifications of a hung bot pushed /healthz from 89 ms to 4 s."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    ids = [_register(api, silent_url, name=f"Dead{i}")["id"] for i in range(4)]
    timings: dict[str, float] = {}
    statuses: dict[str, int] = {}

    clients = {key: httpx.Client(base_url=live_server.url, headers={"Authorization": f"Token {token}"})
               for key in ["healthz"] + [f"verify{i}" for i in range(4)]}  # made beforehand: each loads TLS roots

    def call(key: str, method: str, path: str) -> None:
        started = time.monotonic()
        statuses[key] = clients[key].request(method, path).status_code
        timings[key] = time.monotonic() - started

    threads = [threading.Thread(target=call, args=(f"verify{i}", "POST", f"/api/bots/{bot_id}/verify/"))
               for i, bot_id in enumerate(ids)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    call("healthz", "GET", "/healthz")
    for t in threads:
        t.join()
    for client in clients.values():
        client.close()
    assert statuses == {**{f"verify{i}": 202 for i in range(4)}, "healthz": 200}
    assert max(timings.values()) < 1.0, timings


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_check_runs_in_a_thread_after_the_answer(as_owner, silent_url, good_server, settings):
    """Zero-setup mode (no broker: Celery tasks would run eagerly, inside the request): a check still runs
    outside the request, in a short-lived thread started when the request's transaction commits."""
    settings.TASKS = "eager"
    dead = _register(as_owner, silent_url, name="Dead")
    queued, took = _verify(as_owner, dead["id"])
    assert took < 0.5 and queued["state"] in ("queued", "running")
    assert _wait_until_done(as_owner, dead["id"], queued["id"])["state"] == "failed"

    bot = _register(as_owner, "http://127.0.0.1:9/", name="Alive")
    server = good_server(bot["secret"])
    Bot.objects.filter(pk=bot["id"]).update(endpoint_url=server.url)
    queued, _took = _verify(as_owner, bot["id"])
    assert _wait_until_done(as_owner, bot["id"], queued["id"])["state"] == "passed"
    assert Bot.objects.get(pk=bot["id"]).can_play


@pytest.mark.django_db
def test_a_second_verify_while_one_is_pending_answers_the_same_check(as_owner, silent_url):
    bot = _register(as_owner, silent_url)
    first, _ = _verify(as_owner, bot["id"])
    second, _ = _verify(as_owner, bot["id"])
    assert second["id"] == first["id"] and BotCheck.objects.filter(bot_id=bot["id"]).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_check_whose_secret_was_rotated_while_it_ran_does_not_verify_the_bot(owner):
    bot = Bot.objects.get(pk=_register(_client(owner), "http://127.0.0.1:9/")["id"])
    server = BotServer("sleep:300", bot.secret, "Slow")  # every turn position takes 300 ms: a check of ~2 s
    try:
        Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
        bot.refresh_from_db()
        check = bot_check_request(bot=bot)
        outcome = {}
        runner = threading.Thread(target=lambda: outcome.update(check=bot_check_run(check_id=check.pk)))
        runner.start()
        while not server.bodies("turn"):
            time.sleep(0.02)
        bot_rotate_secret(bot=bot)  # the owner rotates the secret while the check runs with the old one
        runner.join()
    finally:
        server.stop()
    done = outcome["check"]
    assert done.state == BotCheck.State.FAILED and "changed during the check" in done.detail
    assert all(c["status"] == "PASS" for c in done.checks)  # the bot answered well, but with the old secret
    assert Bot.objects.get(pk=bot.pk).verified_at is None


@pytest.mark.django_db
def test_another_owners_check_is_404(as_owner, owner, silent_url):
    bot = _register(as_owner, silent_url)
    queued, _ = _verify(as_owner, bot["id"])
    stranger = get_user_model().objects.create_user("bob", password="pw-bob-123")
    response = _client(stranger).get(f"/api/bots/{bot['id']}/checks/{queued['id']}/")
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert as_owner.get(f"/api/bots/{bot['id']}/checks/{queued['id'] + 1}/").status_code == 404


def _client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client
