"""One error shape for the whole API: ``{"error": code, "detail": message}``."""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.urls import Resolver404, resolve
from rest_framework import exceptions
from rest_framework.exceptions import NotFound
from rest_framework.views import exception_handler as drf_exception_handler

from eights_engine import IllegalAction
from games.matches.reasons import reason_words
from sitekit.errors import ApiError
from sitekit.limits import limit_words


class _Refused(exceptions.APIException):
    """An ``ApiError`` (or the engine's ``IllegalAction``) as DRF answers it: its status, code and words."""

    def __init__(self, error: ApiError) -> None:
        self.status_code, self.default_code = error.status, error.code
        if error.retry_after is not None:
            self.wait = error.retry_after  # DRF's handler sends Retry-After
        super().__init__(error.detail, error.code)


def exception_handler(exc, context):
    """DRF's handler, with the body rewritten to ``{"error": code, "detail": message}``: the one place where the
    application's errors (``sitekit.errors.ApiError`` and its subclasses; the engine's ``IllegalAction``: 400
    ``illegal_action`` with the engine's reason) become answers."""
    if isinstance(exc, IllegalAction):
        exc = ApiError("illegal_action", reason_words(str(exc)), 400)  # the reader's language (the code stays)
    if isinstance(exc, ApiError):
        exc = _Refused(exc)
    elif isinstance(exc, Http404):
        exc = NotFound(str(exc) or "not found")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.Throttled) and not getattr(exc, "says_which_limit", False):  # say which limit
        hit = getattr(context.get("request"), "limits_hit", None) or _view_limits(context.get("view"))
        words = ", ".join(limit_words(scope=scope, rate=rate) for scope, rate in hit)
        exc.detail = f"{exc.detail} Limit reached: {words or 'see the API docs'}."
        response.data = {"detail": exc.detail}
    code = getattr(exc, "default_code", "error")
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        detail = detail["detail"]
    response.data = {"error": str(code), "detail": detail}
    return response


def _view_limits(view) -> list[tuple[str, str]]:
    """``[(scope, rate)]`` of ``view``'s throttles (a scoped throttle's rate is the view's ``throttle_scope``'s)."""
    from rest_framework.settings import api_settings

    limits = []
    for throttle in view.get_throttles() if view is not None else []:
        scope = getattr(throttle, "scope", None) or getattr(view, "throttle_scope", None)
        rate = getattr(throttle, "rate", None) or api_settings.DEFAULT_THROTTLE_RATES.get(scope or "")
        if rate:
            limits.append((scope, rate))
    return limits


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
        data = getattr(response, "data", None)  # DRF's error rendered for a browser (the browsable API): keep its words
        if isinstance(data, dict) and set(data) == {"error", "detail"}:
            error = JsonResponse(data, status=status_code)
            for header in ("Allow", "Retry-After", "Content-Security-Policy"):
                if header in response:
                    error[header] = response[header]
            return error
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
        for header in ("Allow", "Retry-After", "Content-Security-Policy"):
            if header in response:
                error[header] = response[header]
        return error


class RefuseNulMiddleware:
    """Answers 400 to a request whose path, query string, cookies or form or JSON body hold a NUL character
    (U+0000), before any view or query sees it: PostgreSQL text cannot hold NUL, so a page passing such text to a
    query would fail with 500. Under ``/api/`` the JSON ``{"error": "bad_request", "detail": ...}``; pages a plain
    text page. (DRF's serializers refuse NUL too; this covers the pages and the URL.)

    Placed last in ``MIDDLEWARE``: its answer still passes the others (Content-Security-Policy, JSON errors), and
    nothing before it reads the session, the user or the form."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        where = _nul_where(request)
        if where is None:
            return self.get_response(request)
        detail = (f"the request's {where} contains a NUL character (U+0000, %00), which no field, name or address "
                  "here accepts: remove it")
        if request.path_info.startswith("/api/"):
            return _json_error(400, detail)
        return HttpResponseBadRequest(f"Bad request: {detail}.\n", content_type="text/plain; charset=utf-8")


def _nul_where(request) -> str | None:
    """Which part of ``request`` holds a NUL character ("path", "query string", "cookies", "form", "JSON body"),
    or None. A body Django cannot parse (too big, malformed) is left for the view to refuse as before."""
    if "\x00" in request.path_info or "\x00" in request.path:
        return "path"
    if _has_nul(request.GET.lists()):
        return "query string"
    if _has_nul(request.COOKIES.items()):
        return "cookies"
    content_type = request.content_type or ""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    try:
        if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            if _has_nul(request.POST.lists()) or any("\x00" in (f.name or "") for f in request.FILES.values()):
                return "form"
        elif content_type.endswith("json"):
            body = request.body
            if b"\x00" in body or (b"\\u0000" in body.lower() and _has_nul(json.loads(body))):
                return "JSON body"
    except (RequestDataTooBig, TooManyFieldsSent, ValueError, RecursionError, MultiPartParserError,
            UnreadablePostError):  # a JSON body nested too deeply: the API's JSONParser says so (400 parse_error)
        return None
    return None


def _has_nul(value) -> bool:
    """Whether any text in ``value`` (text, bytes, or lists, tuples, dicts and iterables of them, keys too)
    holds NUL."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, bytes):
        return b"\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, (int, float, bool)) or value is None:
        return False
    return any(_has_nul(item) for item in value)


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


#: The answers any API operation may give, whatever it does (drf-spectacular adds them to every operation that does
#: not describe its own): a request refused before any view (``RefuseNulMiddleware``), a throttle, the database
#: away (``config.outages.DatabaseAwayMiddleware``).
COMMON_ERRORS = {
    "400": "bad_request: the request cannot be read (e.g. a NUL character in its path, query string, cookies or "
           "body); the detail says which part",
    "429": "throttled: too many requests; the detail names the limit and Retry-After says when to try again",
    "503": "database_unavailable: the database is away for a moment; try again after Retry-After",
}


def schema_common_errors(result, generator, request, public):
    """drf-spectacular postprocessing hook: every operation lists ``COMMON_ERRORS`` (with the one error shape,
    ``{"error", "detail"}``) unless it documents that status itself, so no operation gives an answer its schema
    does not list."""
    if "ErrorOutput" not in result.get("components", {}).get("schemas", {}):  # drf-spectacular built it from the
        # serializer (sitekit.errors.ErrorOutput) for the operations that document an error: one source for its shape
        raise RuntimeError("the schema has no ErrorOutput component: document an error of some operation with "
                           "sitekit.errors.error_response")
    body = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOutput"}}}
    for path in result.get("paths", {}).values():
        for method, operation in path.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, words in COMMON_ERRORS.items():
                operation["responses"].setdefault(status, {"description": words, "content": body})
    return result
