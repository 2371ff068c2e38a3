"""Fixtures shared by the bot tests: a bot's owner (ada), a stranger (bob), and real HTTP bot servers on loopback
(``servers(behaviour)`` starts one with the secret ``s3cret``; all are stopped after the test)."""

import pytest
from django.contrib.auth import get_user_model

from bot_servers import BotServer


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("ada", password="pw-ada-123")


@pytest.fixture
def stranger(db):
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def servers():
    started = []

    def start(behaviour="good"):
        server = BotServer(behaviour, "s3cret")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
