"""Concurrent changes to one bot over real HTTP (a live server: each request in its own thread with its own
database connection): a bot deleted while it is being changed answers 404, never 500, and is never re-inserted.

Personas: an owner (ada, with a token).
"""

from __future__ import annotations

import threading

import httpx
import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.throttling import SimpleRateThrottle

from bots_api.models import Bot
from games.models import Player

ROUNDS = 20


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", [
    ("PATCH", "", {"name": "Renamed{n}", "is_enabled": False}),
    ("PATCH", "", {"endpoint_url": "http://127.0.0.1:10/"}),
    ("POST", "rotate-secret/", None),
    ("POST", "verify/", None),
])
def test_a_bot_deleted_while_it_is_changed_answers_404_and_stays_deleted(live_server, change, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "bot_verify", "1000/min")
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "user", "1000/min")
    owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
    headers = {"Authorization": f"Token {Token.objects.create(user=owner).key}"}
    method, suffix, body = change
    answers: list[tuple[str, int]] = []
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as setup:
        for n in range(ROUNDS):
            created = setup.post("/api/bots/", json={"name": f"Racer{n}", "endpoint_url": "http://127.0.0.1:9/"})
            assert created.status_code == 201, created.text
            bot_id = created.json()["id"]
            gate = threading.Barrier(2)

            def send(verb: str, path: str, payload) -> None:
                with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as client:
                    gate.wait()
                    kwargs = {} if payload is None else {
                        "json": {k: v.format(n=n) if isinstance(v, str) else v for k, v in payload.items()}}
                    answers.append((verb, client.request(verb, path, **kwargs).status_code))

            threads = [threading.Thread(target=send, args=(method, f"/api/bots/{bot_id}/{suffix}", body)),
                       threading.Thread(target=send, args=("DELETE", f"/api/bots/{bot_id}/", None))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not Bot.objects.filter(pk=bot_id).exists(), f"round {n}: the deleted bot came back"
            assert not Player.objects.filter(name__in=[f"Racer{n}", f"Renamed{n}"]).exists()
    assert len(answers) == 2 * ROUNDS
    assert {status for verb, status in answers if verb == "DELETE"} == {204}
    changed = {status for verb, status in answers if verb != "DELETE"}
    assert changed <= {200, 202, 404}, answers
