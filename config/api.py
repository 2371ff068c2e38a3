"""One error shape for the whole API: ``{"error": code, "detail": message}``."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.urls import Resolver404, resolve
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


#: error codes for statuses that reach the API without passing DRF (Django's URL resolver, middleware, a crash)
_STATUS_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
                 413: "too_large", 500: "server_error"}


class ApiErrorMiddleware:
    """Answers under ``/api/`` are JSON ``{"error", "detail"}`` also where DRF never ran: an unknown path (Django
    answers its HTML 404, and with DEBUG its debug page), a POST to a path missing its slash (APPEND_SLASH would
    redirect it, dropping the body; with DEBUG it raises), a crash (DEBUG's HTML 500). Pages keep Django's pages.

    Placed before ``CommonMiddleware`` (it must see the request before APPEND_SLASH does)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path_info.startswith("/api/"):
            return self.get_response(request)
        if request.method not in ("GET", "HEAD") and not request.path_info.endswith("/"):
            slashed = _resolves(request.path_info + "/") and not _resolves(request.path_info)
            if slashed:
                return _json_error(404, f"no API endpoint at {request.path}: {request.method} to "
                                        f"{request.path}/ (API paths end with a slash)")
        response = self.get_response(request)
        if response.status_code < 400 or response.get("Content-Type", "").startswith("application/json"):
            return response
        status_code = response.status_code
        if status_code == 404:
            detail = f"no API endpoint at {request.path}: the endpoints are listed at /api/docs/"
        elif status_code == 405:
            detail = (f"{request.method} is not allowed at {request.path}; allowed: "
                      f"{response.get('Allow', 'see /api/docs/')}")
        elif status_code >= 500:
            detail = "the server failed on this request (it is logged); try again later"
        else:
            detail = response.reason_phrase
        error = _json_error(status_code, detail)
        for header in ("Allow", "Retry-After"):
            if header in response:
                error[header] = response[header]
        return error


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def _json_error(status_code: int, detail: str):
    return JsonResponse({"error": _STATUS_CODES.get(status_code, "error"), "detail": detail}, status=status_code)


def schema_refuse_nul(result, generator, request, public):
    """drf-spectacular postprocessing hook: every free text of a request body (fields and list items) says it
    takes no NUL character (DRF refuses "\\x00" in any CharField, and PostgreSQL could not store it), as a
    ``pattern``."""

    def walk(node: dict) -> None:
        if node.get("type") == "string" and not ({"enum", "format", "pattern", "$ref"} & set(node)):
            node["pattern"] = "^[^\\u0000]*$"
        for child in node.get("properties", {}).values():
            walk(child)
        if isinstance(node.get("items"), dict):
            walk(node["items"])

    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            walk(component)
    return result
