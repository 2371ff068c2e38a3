"""The API's one application error: ``ApiError(code, detail, status)``, answered once by the error handler
(``config.api.exception_handler``) as ``{"error": code, "detail": detail}`` with its HTTP status (and Retry-After
when it has ``retry_after``). A service raises its app's error (a subclass naming the app's codes in one place);
a view lets it pass: no view translates errors by hand."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ApiError(Exception):
    """A refused request. ``code``: a short word for programs (``stale_ply``, ``name_taken``); ``detail``: words for
    people saying what is wrong and what would be right (or ``{field: [messages]}``); ``status``: the HTTP status
    (400 bad input, 403 not yours, 404 no such thing, 409 the state forbids it, 429 a limit); ``retry_after``:
    seconds until a new try may pass (sent as Retry-After). Subclasses set a default ``status`` and may derive it
    from the code (``status_for``)."""

    status = 400

    def __init__(self, code: str, detail, status: int | None = None, *, retry_after: int | None = None) -> None:
        super().__init__(detail if isinstance(detail, str) else str(detail))
        self.code, self.detail = code, detail
        self.status = status if status is not None else self.status_for(code)
        self.retry_after = None if retry_after is None else max(1, int(retry_after))

    def status_for(self, code: str) -> int:
        """The status of ``code`` when the raiser gave none: the class's ``status``."""
        return type(self).status


class ErrorOutput(serializers.Serializer):
    """Every API error: a code for programs and words for people (``config.api.exception_handler``)."""

    error = serializers.CharField(help_text="a short code, e.g. name_taken, invalid_endpoint, not_found")
    detail = serializers.JSONField(help_text="what is wrong (a message; field errors as {field: [messages]})")


def error_response(description: str) -> OpenApiResponse:
    """A documented error answer (``@extend_schema(responses={409: error_response("...")})``)."""
    return OpenApiResponse(ErrorOutput, description=description)


def refuse_unknown_fields(data: object, allowed, what: str) -> None:
    """``ApiError`` 400 ``unknown_field`` when the request body ``data`` (a dict; anything else is left to the
    serializer) has a field not in ``allowed``, naming it and the fields ``what`` (e.g. "a table") has: a misspelt
    field is an error, never silently ignored."""
    if not isinstance(data, dict):
        return
    unknown = sorted(str(name) for name in set(data) - set(allowed))
    if unknown:
        raise ApiError("unknown_field", f"{unknown[0][:40]!r} is not a field of {what}: use "
                                        f"{', '.join(sorted(allowed))}")
