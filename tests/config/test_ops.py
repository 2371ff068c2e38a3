"""Operations (issue 13): /healthz names its checks and fails on a real unreachable broker or cache; /metrics is read
from loopback or with the token only, and its figures move when a real worker process plays a match."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import reverse
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    """A loopback port nobody listens on (bound, then closed: connecting is refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _no_secrets(text: str) -> None:
    for needle in ("redis://", "postgres", "127.0.0.1", settings.SECRET_KEY, "Error "):
        assert needle not in text


@pytest.mark.django_db
def test_healthz_names_each_check_and_shows_no_address(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "broker", "cache"}
    assert all(c["ok"] is True and c["ms"] >= 0 for c in body["checks"].values())
    assert response["Cache-Control"] == "no-store"
    _no_secrets(response.content.decode())


@pytest.mark.django_db
def test_healthz_is_503_when_the_broker_is_unreachable(client):
    port = _closed_port()
    with override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{port}/0"):
        started = time.monotonic()
        response = client.get(reverse("healthz"))
        assert time.monotonic() - started < 5  # a refused connection, not a hang
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"  # the database answers: people keep playing
    assert set(body["degraded"]) == {"broker"} and "moves are stored" in body["degraded"]["broker"]
    assert body["checks"]["broker"]["ok"] is False and body["checks"]["broker"]["error"] == "ConnectionError"
    assert body["checks"]["database"]["ok"] is True and body["checks"]["cache"]["ok"] is True
    _no_secrets(response.content.decode())
    assert str(port) not in response.content.decode()
    assert client.get(reverse("healthz")).status_code == 200  # the real broker again


@pytest.mark.django_db
def test_healthz_is_503_when_the_cache_is_unreachable(client):
    port = _closed_port()
    caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": f"redis://127.0.0.1:{port}/0"}}
    with override_settings(CACHES=caches):
        response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["status"] == "degraded" and set(response.json()["degraded"]) == {"cache"}
    assert response.json()["checks"]["cache"] == {"ok": False, "ms": response.json()["checks"]["cache"]["ms"],
                                                  "error": "ConnectionError"}
    assert response.json()["checks"]["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_is_not_throttled(client):
    """Anonymous API callers get 30 calls a minute; a load balancer's health checks are not API calls."""
    assert [client.get(reverse("healthz")).status_code for _ in range(40)] == [200] * 40


@pytest.mark.django_db
def test_metrics_are_read_from_loopback_or_with_the_token_only(client):
    url = reverse("metrics")
    assert client.get(url).status_code == 200  # the test client connects from 127.0.0.1
    outside = {"REMOTE_ADDR": "203.0.113.9"}
    assert client.get(url, **outside).status_code == 403
    assert client.get(url, HTTP_X_FORWARDED_FOR="127.0.0.1", **outside).status_code == 403  # no header is trusted
    assert client.get(url, HTTP_X_REAL_IP="127.0.0.1", **outside).status_code == 403
    assert client.get(url, REMOTE_ADDR="::1").status_code == 200
    with override_settings(METRICS_TOKEN="t0ken-for-the-scraper"):
        assert client.get(url, HTTP_AUTHORIZATION="Bearer t0ken-for-the-scraper", **outside).status_code == 200
        assert client.get(url, HTTP_AUTHORIZATION="Bearer t0ken-for-the-scrapeR", **outside).status_code == 403
        assert client.get(url, HTTP_AUTHORIZATION="t0ken-for-the-scraper", **outside).status_code == 403
        with override_settings(NUM_PROXIES=1):  # behind a proxy everyone arrives from loopback: the token only
            assert client.get(url).status_code == 403
            assert client.get(url, HTTP_AUTHORIZATION="Bearer t0ken-for-the-scraper").status_code == 200
    with override_settings(METRICS_TOKEN=""):
        assert client.get(url, HTTP_AUTHORIZATION="Bearer ", **outside).status_code == 403  # no token: none fits
    refused = client.get(url, **outside)
    assert b"eights_" not in refused.content


def _scrape(client) -> dict[tuple, float]:
    response = client.get(reverse("metrics"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def _total(samples: dict, name: str, **labels) -> float:
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_metrics_move_when_a_worker_process_plays_a_bot_match(client, house_bots):
    """A real ``celery worker`` process (its own pid, so its own metrics file) plays a match between an HTTP bot that
    plays cards it does not hold and a house bot: /metrics in this process sees the queue fill and drain, the match
    running and then not, the plies counted, and the worker's bot calls and illegal-move faults."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from bot_servers import BotServer
    from bots_api.models import Bot
    from bots_api.services import bot_register
    from config.celery import app
    from eights_engine import Ruleset
    from games.models import Match, Move
    from games.services import match_create, match_wake

    app.control.purge()
    server = BotServer("notheld", "s3cret")
    owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
    bot, _ = bot_register(owner=owner, name="Probe", endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
    queue = settings.MATCH_QUEUE_BOTS  # a match with a bot seated goes to the bots' queue (games.tasks.match_queue)
    before = _scrape(client)
    match = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=11)
    match_wake(match_id=match.pk)
    queued = _scrape(client)
    assert _total(queued, "eights_celery_queue_length", queue=queue) >= 1
    assert _total(queued, "eights_matches_running") == _total(before, "eights_matches_running") + 1
    client.get(reverse("api-match-list"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings", "TEST_DATABASE_URL":
           f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}"}
    assert env["PROMETHEUS_MULTIPROC_DIR"] == settings.METRICS_DIR  # the worker writes where /metrics reads
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
                               "--loglevel", "WARNING"], cwd=ROOT, env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            match.refresh_from_db()
            if match.status != Match.Status.RUNNING:
                break
            time.sleep(0.3)
        # the match's end queues the bot's end notice on the same queue: let the worker take it before it stops
        while time.monotonic() < deadline and _total(_scrape(client), "eights_celery_queue_length", queue=queue):
            time.sleep(0.3)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        server.stop()
    assert match.status != Match.Status.RUNNING
    after = _scrape(client)
    plies = Move.objects.filter(deal__match=match).count()
    assert plies > 0
    assert _total(after, "eights_plies_stored_total") >= _total(before, "eights_plies_stored_total") + plies
    assert _total(after, "eights_matches_running") == _total(before, "eights_matches_running")
    assert _total(after, "eights_celery_queue_length", queue=queue) == 0
    bot_turns = Move.objects.filter(deal__match=match, seat=0).count()
    illegal = Move.objects.filter(deal__match=match, seat=0, fault_kind="illegal").count()
    assert illegal > 0
    calls = _total(after, "eights_bot_call_duration_seconds_count") - _total(before, "eights_bot_call_duration_seconds_count")
    assert calls == bot_turns
    assert (_total(after, "eights_bot_faults_total", kind="illegal")
            - _total(before, "eights_bot_faults_total", kind="illegal")) == illegal
    assert _total(after, "eights_bot_call_duration_seconds_sum") > _total(before, "eights_bot_call_duration_seconds_sum")
    view = {"view": "api-match-list", "method": "GET", "status": "2xx"}
    assert (_total(after, "eights_http_request_duration_seconds_count", **view)
            - _total(before, "eights_http_request_duration_seconds_count", **view)) == 1


def test_metrics_serve_sums_this_machines_processes_for_a_worker_only_machine():
    """``manage.py metrics_serve`` (its own process) serves what another process (this test) counted."""
    import httpx

    from games.operations import metrics

    port = _closed_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    server = subprocess.Popen([sys.executable, "manage.py", "metrics_serve", "--port", str(port)], cwd=ROOT, env=env,
                              start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def faults() -> float:
        for _ in range(100):
            try:
                text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                   for family in text_string_to_metric_families(text) for s in family.samples}
        return _total(samples, "eights_bot_faults_total", kind="timeout")

    try:
        before = faults()
        metrics.BOT_FAULTS.labels("timeout").inc(3)
        assert faults() == before + 3
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "serving" in server.stdout.read()


@pytest.mark.django_db
def test_queue_lengths_cover_every_queue_the_settings_name(client):
    """Separate queues for bot matches, house-only matches and housekeeping, however the settings name them."""
    import redis
    from kombu import Queue

    run = settings.CELERY_TASK_DEFAULT_QUEUE
    bots, house, chores = f"{run}.bots", f"{run}.house", f"{run}.housekeeping"
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete(bots, house, chores)
    try:
        broker.lpush(bots, "m1", "m2")
        broker.lpush(f"{house}\x06\x163", "m3")  # kombu's list for priority 3
        with override_settings(CELERY_TASK_QUEUES=[Queue(bots)], CELERY_TASK_ROUTES={"t": {"queue": house}},
                               CELERY_HOUSEKEEPING_QUEUE=chores):
            samples = _scrape(client)
    finally:
        broker.delete(bots, f"{house}\x06\x163", chores)
    assert _total(samples, "eights_celery_queue_length", queue=bots) == 2
    assert _total(samples, "eights_celery_queue_length", queue=house) == 1
    assert ("eights_celery_queue_length", (("queue", chores),)) in samples
    assert ("eights_celery_queue_length", (("queue", run),)) in samples


@pytest.mark.django_db(transaction=True)
def test_request_latency_is_timed_under_asgi_too(client):
    """The production web server is ASGI (docs/LIVE.md): the middleware times requests there without a thread hop."""
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    from games.operations.metrics import RequestMetricsMiddleware

    labels = {"view": "healthz", "method": "GET", "status": "2xx"}
    before = _total(_scrape(client), "eights_http_request_duration_seconds_count", **labels)
    response = async_to_sync(AsyncClient().get)(reverse("healthz"))
    assert response.status_code == 200
    assert _total(_scrape(client), "eights_http_request_duration_seconds_count", **labels) == before + 1

    async def view(request):
        return None

    from asgiref.sync import iscoroutinefunction

    assert iscoroutinefunction(RequestMetricsMiddleware(view))  # Django keeps the chain async through it
