"""Shared personas (tests/support/personas.py): a person (lin), a bot owner (ada) and a stranger (bob) with their
API clients, real HTTP bot servers (``servers``) and the owner's verified bot on one, house bots of each strategy
and a demo-like ladder (a guest is a browser that pressed Deal: ``personas.press_deal``); a real browser; the run's
own test database (stale ones of dead runs dropped, this run's dropped even when a session lingers)."""

import warnings

import pytest


def pytest_collection_modifyitems(config, items):
    """Mark the slow tests (``tests/support/slow.py``): ``pytest -m "not slow"`` runs the rest in a few minutes."""
    from slow import SLOW_FOLDERS, SLOW_MARKERS, SLOW_TESTS

    for item in items:
        if (item.nodeid.startswith(SLOW_FOLDERS) or item.nodeid.split("[")[0] in SLOW_TESTS
                or any(item.get_closest_marker(name) for name in SLOW_MARKERS)):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, plus: drop what dead runs left behind (``testdb``), and at the end close
    sessions that would keep pytest-django from dropping this run's database, naming them as a warning (each is
    a leak to fix: a thread, a server or a browser context that kept a connection)."""
    from django.db import connection

    from testdb import other_sessions, sweep_stale_test_databases

    with django_db_blocker.unblock():
        if connection.vendor == "postgresql":
            sweep_stale_test_databases(connection)
    yield
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            return
        lingering = other_sessions(connection)
        if lingering:
            warnings.warn(f"sessions still on the test database at the end of the run (closed now): {lingering}")
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        connection.close()


@pytest.fixture
def browser(monkeypatch):
    """Debian's Chromium driven by Playwright (``browsers.chromium``: closes the DB connections made inside)."""
    from browsers import chromium

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM calls are still synchronous
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium() as launched:
        yield launched


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """API throttle counters live in the cache: start every test with none (of this run's; see run_cache)."""
    from run_cache import clear_this_runs_cache

    clear_this_runs_cache()


@pytest.fixture
def person(db):
    """A signed-up person, "lin" (``personas.PASSWORDS``)."""
    from personas import user

    return user("lin")


@pytest.fixture
def owner(db):
    """A bot owner, "ada" (``personas.PASSWORDS``)."""
    from personas import user

    return user("ada")


@pytest.fixture
def stranger(db):
    """Someone else, "bob": owns nothing of the others'."""
    from personas import user

    return user("bob")


@pytest.fixture
def as_person(person):
    """DRF's test client, authenticated as ``person``."""
    from personas import api_client

    return api_client(person)


@pytest.fixture
def as_stranger(stranger):
    """DRF's test client, authenticated as ``stranger``."""
    from personas import api_client

    return api_client(stranger)


@pytest.fixture
def servers():
    """``servers(behaviour="good", secret="s3cret", name="TestBot")`` starts a real HTTP bot server on loopback
    (tests/support/bot_servers.py); every one started is stopped after the test."""
    from bot_servers import BotServer

    started = []

    def start(behaviour="good", secret="s3cret", name="TestBot"):
        server = BotServer(behaviour, secret, name)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def verified_bot(owner, servers):
    """``owner``'s bot "Probe" on a good bot server, verified and active (``personas.bot_of``)."""
    from personas import bot_of

    return bot_of(owner, servers(), "Probe", active=True)


@pytest.fixture
def asgi_server(transactional_db, tmp_path):
    """The production web server (``web_servers.production_web_server``) on this run's database: (url, log path)."""
    from web_servers import production_web_server

    with production_web_server(tmp_path) as server:
        yield server


@pytest.fixture
def house_bots(db):
    """Four house bots, weakest to strongest: Rando, Eager, Greedy, Professor."""
    from games.services import player_house_create

    return [
        player_house_create(name="Rando", strategy="random"),
        player_house_create(name="Eager", strategy="eager"),
        player_house_create(name="Greedy", strategy="greedy"),
        player_house_create(name="Professor", strategy="heuristic"),
    ]


@pytest.fixture
def ladder(house_bots):
    """A two-seat pagat ladder to 100 with the four house bots on it."""
    from tournaments.services import ladder_create, ladder_entry_create

    lad = ladder_create(name="Test ladder", slug="test", preset="pagat", seats_per_match=2, max_running_matches=4)
    for bot in house_bots:
        ladder_entry_create(ladder=lad, player=bot)
    return lad
