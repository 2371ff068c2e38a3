"""The tournaments app's refusals: one error type (``sitekit.errors.ApiError``) naming its codes."""

from __future__ import annotations

from sitekit.errors import ApiError


class TournamentError(ApiError):
    """A refused tournament operation: ``code`` for programs, ``detail`` for people (what is wrong and what would be
    right), ``status`` the HTTP status the API answers with (400 bad input, 403, 404, 409 the state forbids it: the
    default)."""

    status = 409
