"""One error shape for the whole API: ``{"error": code, "detail": message}``."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.exceptions import NotFound
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    """DRF's handler, with the body rewritten to ``{"error": code, "detail": message}``."""
    if isinstance(exc, Http404):
        exc = NotFound(str(exc) or "not found")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.Throttled) and not getattr(exc, "says_which_limit", False):  # say which limit
        view = context.get("view")
        rates = [f"{getattr(t, 'rate', '?')} ({getattr(t, 'scope', type(t).__name__)})"
                 for t in (view.get_throttles() if view is not None else []) if getattr(t, "rate", None)]
        exc.detail = f"{exc.detail} Limits here: {', '.join(rates) or 'see the API docs'}."
        response.data = {"detail": exc.detail}
    code = getattr(exc, "default_code", "error")
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        detail = detail["detail"]
    response.data = {"error": str(code), "detail": detail}
    return response
