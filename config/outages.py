"""A database that went away answers 503 with Retry-After, never 500; a read retries once on a fresh connection.

A pooled PostgreSQL connection can die under the pool (``pg_terminate_backend``, a restart, a failover): the pool
checks each connection before handing it out (``psycopg_pool.ConnectionPool.check_connection``, config/settings.py),
so a dead one is replaced, but a connection can still die between that check and the query, and the database can be
briefly down. A trial saw 11 of 566 seat views answer 500 in the 30 s after the service's connections were
terminated. ``DatabaseAwayMiddleware``:

- hears of every uncaught error of a request through Django's ``got_request_exception`` signal (sent for a view's
  error and a middleware's alike, before Django builds its 500), and notes the database's (``OperationalError``,
  ``InterfaceError``) on the request;
- closes the request's connection, so a dead one goes back to the pool to be thrown away, and runs a read (GET,
  HEAD, OPTIONS) once more: a dead pooled connection costs the person nothing;
- answers whatever still fails on the database's account ``503`` with ``Retry-After`` (JSON ``{"error":
  "database_unavailable", "detail"}`` under ``/api/``, a short page elsewhere): a write is never run twice (a move
  retried by the client carries its ``ply``, so it is stored at most once).

Outermost in ``MIDDLEWARE`` but for Django's security middleware, so it sees every inner middleware's error too.
"""

from __future__ import annotations

import logging
import sys

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpResponse, JsonResponse

log = logging.getLogger(__name__)

DATABASE_AWAY = (OperationalError, InterfaceError)
#: Seconds a client is asked to wait before trying again (Retry-After).
RETRY_AFTER_SECONDS = 5
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
_NOTE = "_database_away"


def _note_database_error(sender, request=None, **kwargs) -> None:
    error = sys.exc_info()[1]
    if request is not None and isinstance(error, DATABASE_AWAY):
        setattr(request, _NOTE, error)


got_request_exception.connect(_note_database_error, dispatch_uid="config.outages.database_away")


def _close_connections() -> None:
    for conn in connections.all(initialized_only=True):
        try:
            conn.close()  # pooled: the pool discards a broken connection it gets back
        except Exception:  # closing a dead connection may raise too; it is gone either way
            pass


def _unavailable(request) -> HttpResponse:
    detail = (f"the database is unavailable for a moment; nothing was lost: try again in {RETRY_AFTER_SECONDS} s "
              "(a move carries its ply, so it is never stored twice)")
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"error": "database_unavailable", "detail": detail}, status=503)
    else:
        response = HttpResponse(f"503 Service Unavailable: {detail}\n", status=503,
                                content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseAwayMiddleware:
    """A read retried once on a fresh connection, and 503 + Retry-After instead of 500 when the database is away
    (module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        error = getattr(request, _NOTE, None)
        if error is None:
            return response
        _close_connections()
        if request.method in _SAFE_METHODS:
            delattr(request, _NOTE)
            log.warning("%s %s: the database connection failed (%s); trying once more", request.method,
                        request.path, type(error).__name__)
            response = self.get_response(request)
            error = getattr(request, _NOTE, None)
            if error is None:
                return response
            _close_connections()
        log.warning("%s %s: the database is unavailable (%s): 503", request.method, request.path,
                    type(error).__name__)
        return _unavailable(request)
