"""Operations: ``/healthz`` and the Prometheus metrics at ``/metrics`` (docs/SCALING.md, "Watching it").

Two kinds of figures, so that every process's work is counted however many processes run:

- **Measured in the process** where it happens (prometheus_client's *multiprocess mode*: each process writes its
  counters and histograms to memory-mapped files in ``PROMETHEUS_MULTIPROC_DIR``, ``var/metrics`` by default, and
  ``/metrics`` sums the files of every process on the machine): request latency by view
  (``eights_http_request_duration_seconds``, ``RequestMetricsMiddleware``), bot call latency
  (``eights_bot_call_duration_seconds``) and bot faults by kind (``eights_bot_faults_total``), both from
  ``bots_api.agent``. Only counters and histograms live there (no live gauges), so a process that exits leaves its
  counts in the sum and nothing needs cleaning up when one dies; a deployment empties the directory when it starts.
- **Read at scrape time** from the shared stores, identical whoever is asked: matches running
  (``eights_matches_running``), plies stored (``eights_plies_stored_total``: the newest ``Move`` id, one index probe;
  ``rate()`` of it is plies stored per second over all workers on all machines), Celery queue lengths
  (``eights_celery_queue_length``: Redis ``LLEN`` of every queue named in the settings).

Who may read ``/metrics``: a caller presenting ``Authorization: Bearer <METRICS_TOKEN>`` (when that is set), and,
when no proxy is configured (``NUM_PROXIES`` 0), a caller connecting from loopback (the connection's own address;
no forwarded header is trusted). Everyone else gets 403. ``/healthz`` is open to all and unthrottled: it names each
check and its time, never an address, URL or error text (only the error's class).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import re
import time

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings

os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(getattr(settings, "METRICS_DIR", "var/metrics")))
os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

from prometheus_client import (  # noqa: E402 (after PROMETHEUS_MULTIPROC_DIR: the library reads it on import)
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest, multiprocess)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily  # noqa: E402

from sitekit.dispatch import tasks_mode  # noqa: E402

log = logging.getLogger(__name__)

#: request latency buckets (s): the issue's goal is p95 under 50 ms
_REQUEST_BUCKETS = (.005, .01, .025, .05, .075, .1, .25, .5, 1, 2.5, 5, 10)
#: bot call buckets (s): loopback bots answer in ~1.5 ms, the default turn deadline is 1 s plus a 5 s time bank
_BOT_BUCKETS = (.002, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5, 10)

REQUEST_SECONDS = Histogram(
    "eights_http_request_duration_seconds", "Time from a request's arrival to its response's headers, by view "
    "(the URL pattern's name; 'unresolved' for unknown paths), method and status class", ["view", "method", "status"],
    buckets=_REQUEST_BUCKETS)
BOT_CALL_SECONDS = Histogram(
    "eights_bot_call_duration_seconds", "A bot's turn: the signed HTTP request's round trip, faults included",
    buckets=_BOT_BUCKETS)
BOT_FAULTS = Counter(
    "eights_bot_faults_total", "Bot turns that faulted, by kind (timeout, connection, http, schema, illegal, ...)",
    ["kind"])

_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def bot_call_observed(answer, turn) -> None:
    """Count one bot turn: ``answer`` (referee ``Answer``, ``think_ms`` in ms) to ``turn`` (referee ``Turn``). A
    fault counts under its kind; an action outside the turn's legal actions as sent counts as ``illegal`` (the
    referee then plays the fallback). Never raises."""
    try:
        BOT_CALL_SECONDS.observe(max(0, answer.think_ms) / 1000)
        if answer.fault is not None:
            BOT_FAULTS.labels(answer.fault.kind[:20] or "unknown").inc()
        elif answer.action not in turn.legal_actions:
            BOT_FAULTS.labels("illegal").inc()
    except Exception:  # a metric must never fail a turn
        log.exception("bot call metric")


class RequestMetricsMiddleware:
    """Times every request (sync under WSGI, async under ASGI: no thread hop), labelled by the URL pattern's name.
    A streaming response (server-sent events) is timed to its headers, not to the stream's end."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self._acall(request)
        started = time.perf_counter()
        response = self.get_response(request)
        self._observe(request, response, started)
        return response

    async def _acall(self, request):
        started = time.perf_counter()
        response = await self.get_response(request)
        self._observe(request, response, started)
        return response

    @staticmethod
    def _observe(request, response, started: float) -> None:
        match = getattr(request, "resolver_match", None)
        view = (match.view_name or "unnamed") if match else "unresolved"
        method = request.method if request.method in _METHODS else "other"
        REQUEST_SECONDS.labels(view[:80], method, f"{response.status_code // 100}xx").observe(
            time.perf_counter() - started)


_QUEUE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _queue_names() -> list[str]:
    """Every Celery queue the settings name, however they are written: the default queue, ``CELERY_TASK_QUEUES``
    (kombu ``Queue`` objects or names), the queues of ``CELERY_TASK_ROUTES`` (a dict or a list of dicts), and any
    other ``CELERY_*QUEUE*`` setting holding a name or a list or dict of names (e.g. one queue per kind of match)."""
    found: list = [settings.CELERY_TASK_DEFAULT_QUEUE]

    def take(value) -> None:
        if isinstance(value, str):
            found.append(value)
        elif hasattr(value, "name") and isinstance(getattr(value, "name"), str):  # a kombu Queue
            found.append(value.name)
        elif isinstance(value, dict):
            if "queue" in value:
                take(value["queue"])
            else:
                for item in value.values():
                    take(item)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                take(item)

    for name in dir(settings):
        if name.startswith("CELERY") and ("QUEUE" in name or name == "CELERY_TASK_ROUTES"):
            take(getattr(settings, name, None))
    return sorted({n for n in found if isinstance(n, str) and _QUEUE_NAME.fullmatch(n)})


_redis_clients: dict[str, object] = {}


def _redis(url: str):
    """A Redis client for ``url`` with 1 s timeouts, one per URL and process (its connection pool is reused)."""
    client = _redis_clients.get(url)
    if client is None:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1, health_check_interval=30)
        _redis_clients[url] = client
    return client


def _broker_is_redis() -> bool:
    return settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://", "unix://"))


class ScrapeCollector:
    """The figures read from the database and the broker when /metrics is asked (the same for every process)."""

    def collect(self):
        from django.db.models import Count, Max

        from games.models import Match, Move

        running = GaugeMetricFamily("eights_matches_running", "Matches running now, by whether they wait for a "
                                    "person's move", labels=["waiting_for"])
        counts = {row["awaiting_human"]: row["n"] for row in
                  Match.objects.filter(status=Match.Status.RUNNING).values("awaiting_human").annotate(n=Count("id"))}
        running.add_metric(["person"], counts.get(True, 0))
        running.add_metric(["play"], counts.get(False, 0))
        yield running
        plies = CounterMetricFamily(
            "eights_plies_stored", "Plies stored since the database was created, over every worker (the newest "
            "move's id: an insert rolled back burns an id, so it can run slightly ahead); rate() = plies stored/s")
        plies.add_metric([], Move.objects.aggregate(m=Max("id"))["m"] or 0)
        yield plies
        if _broker_is_redis():
            queues = GaugeMetricFamily("eights_celery_queue_length", "Tasks waiting in each Celery queue (Redis "
                                       "LLEN, priority lists included)", labels=["queue"])
            client = _redis(settings.CELERY_BROKER_URL)
            with client.pipeline(transaction=False) as pipe:
                names = _queue_names()
                for name in names:
                    for key in _priority_keys(name):
                        pipe.llen(key)
                lengths = pipe.execute()
            per = len(_priority_keys(""))
            for i, name in enumerate(names):
                queues.add_metric([name], sum(lengths[i * per:(i + 1) * per]))
            yield queues


def _priority_keys(name: str) -> list[str]:
    """The Redis lists kombu keeps for one queue: the queue's own and one per priority step (3, 6, 9)."""
    return [name] + [f"{name}\x06\x16{p}" for p in (3, 6, 9)]


def _may_read_metrics(request) -> bool:
    token = getattr(settings, "METRICS_TOKEN", "")
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:].encode(), token.encode()):
        return True
    if settings.NUM_PROXIES or not getattr(settings, "METRICS_ALLOW_LOOPBACK", True):
        return False  # behind a proxy every caller arrives from the proxy's address: only the token counts
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


def metrics_view(request):
    """``GET /metrics``: Prometheus text format (module docstring); 403 for callers who may not read it."""
    from django.http import HttpResponse

    if not _may_read_metrics(request):
        return HttpResponse("403: /metrics is read from loopback or with Authorization: Bearer <METRICS_TOKEN>\n",
                            status=403, content_type="text/plain; charset=utf-8")
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    registry.register(ScrapeCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def _check(name: str, probe) -> dict:
    started = time.perf_counter()
    try:
        detail = probe()
    except Exception as exc:  # the class only: an error's text can hold a host, a port or a user name
        log.warning("healthz: %s failed: %r", name, exc)
        return {"ok": False, "ms": round((time.perf_counter() - started) * 1000, 1), "error": type(exc).__name__}
    result = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
    if detail:
        result["detail"] = detail
    return result


def _database() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _broker() -> str | None:
    if tasks_mode() != "celery":
        return "no broker: tasks run in-process"
    if _broker_is_redis():
        _redis(settings.CELERY_BROKER_URL).ping()
        return None
    from kombu import Connection

    with Connection(settings.CELERY_BROKER_URL, connect_timeout=1) as conn:
        conn.ensure_connection(max_retries=1)
    return None


def _cache() -> None:
    from django.core.cache import caches

    config = settings.CACHES["default"]
    if config["BACKEND"].endswith("RedisCache"):
        location = config["LOCATION"]
        _redis((location if isinstance(location, str) else location[0]).split(",")[0]).ping()
    else:
        caches["default"].get("eights-healthz")


#: What the service does instead while a check fails (``/healthz``'s ``degraded``): people keep playing on PostgreSQL.
FALLBACKS = {
    "broker": "matches already in a worker's hands play on; people's moves are stored and new matches wait for the "
              "broker (the watchdog queues them when it is back)",
    "cache": "limits count in each process; live watching polls the database",
}


def healthz(request):
    """``GET /healthz``: 200 ``{"status": "ok", "checks": {"database": {"ok": true, "ms": 0.4}, "broker": {...},
    "cache": {...}}}`` when every check passes. 503 otherwise, with the failed check's ``"error"`` (the exception's
    class name) and a ``"status"`` that says how bad it is: ``"degraded"`` while the database answers (people keep
    playing; ``"degraded"`` lists what falls back, ``FALLBACKS``), ``"failing"`` when the database does not. Each
    check waits at most ~1 s."""
    from django.http import JsonResponse

    from django.core.cache import caches

    checks = {"database": _check("database", _database), "broker": _check("broker", _broker),
              "cache": _check("cache", _cache)}
    fallback = getattr(caches["default"], "_fallback", None)  # config.cache.ResilientRedisCache
    if fallback is not None and fallback.down_since is not None:
        checks["cache"]["local_since"] = int(fallback.down_since)  # this process counts locally (config/cache.py)
    ok = all(c["ok"] for c in checks.values())
    body = {"status": "ok" if ok else "degraded" if checks["database"]["ok"] else "failing", "checks": checks}
    if not ok and checks["database"]["ok"]:
        body["degraded"] = {name: FALLBACKS[name] for name, check in checks.items() if not check["ok"]}
    response = JsonResponse(body, status=200 if ok else 503)
    response["Cache-Control"] = "no-store"
    return response
