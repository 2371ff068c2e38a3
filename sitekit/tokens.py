"""API tokens resolved from a per-process cache: DRF's ``TokenAuthentication`` without a database query on every
request (a person's two hot requests, the seat view and the move, and every bot author's call).

A token seen once is kept in this process (``TOKEN_CACHE_SECONDS``, default 60 s; at most ``MAX_ENTRIES``) with the
shared cache's *token generation* (``GENERATION_KEY``: a random string in ``CACHES["default"]``, Redis in
production, files on ``make run``) as read then. Every request reads the generation (one cache round trip instead
of a query and its ORM compile); a cached token is used only while the generation is unchanged and its time is
not up. Deleting or saving a token (logout: ``DELETE /api/auth/token/``, rotation, the admin) and saving or
deleting a user (deactivation, a new password) sets a new generation in any process (``bump``, connected to the
models' signals by ``connect``), so every process looks its tokens up again on its next request. Writes that send
no signals (``QuerySet.update``, raw SQL) are seen within ``TOKEN_CACHE_SECONDS``. While the shared cache cannot
be read, nothing is cached: every request is looked up (degraded, never wrong).

The answers are DRF's own (401 "Invalid token.", 401 "User inactive or deleted."): a miss calls DRF's lookup.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

#: the shared cache's key of the token generation (any change invalidates every process's cached tokens)
GENERATION_KEY = "auth-tokens:generation"
#: tokens one process keeps at most (a full cache is emptied and refilled by the requests that follow)
MAX_ENTRIES = 20_000


@dataclass(frozen=True)
class _Entry:
    generation: str
    until: float  # time.monotonic() after which the token is looked up again
    user_fields: tuple[tuple[str, object], ...]  # the user's concrete fields (attname, value)
    token_fields: tuple[tuple[str, object], ...]


_entries: dict[str, _Entry] = {}
_lock = threading.Lock()


def _generation() -> str | None:
    """The shared token generation, set when missing (a new or emptied cache); None when the cache cannot be read."""
    try:
        value = cache.get(GENERATION_KEY)
        if value is None:
            cache.add(GENERATION_KEY, secrets.token_hex(16), timeout=None)
            value = cache.get(GENERATION_KEY)
    except Exception:  # noqa: BLE001 (an unreachable cache: look every token up, cache nothing)
        return None
    return value if isinstance(value, str) else None


def bump(**_signal) -> None:
    """Invalidate every process's cached tokens: a new shared generation, and this process's entries dropped (also
    when the shared cache is away). A signal receiver (``connect``)."""
    with _lock:
        _entries.clear()
    try:
        cache.set(GENERATION_KEY, secrets.token_hex(16), timeout=None)
    except Exception:  # noqa: BLE001 (the other processes catch up within TOKEN_CACHE_SECONDS)
        pass


def _user_saved(sender, update_fields=None, **signal) -> None:
    if update_fields is not None and set(update_fields) <= {"last_login"}:  # a log-in changes nothing a token checks
        return
    bump()


def connect() -> None:
    """Connect ``bump`` to the token's and the user's saves and deletions (``GamesConfig.ready``)."""
    user_model = get_user_model()
    post_save.connect(bump, sender=Token, dispatch_uid="sitekit.tokens.token_saved")
    post_delete.connect(bump, sender=Token, dispatch_uid="sitekit.tokens.token_deleted")
    post_save.connect(_user_saved, sender=user_model, dispatch_uid="sitekit.tokens.user_saved")
    post_delete.connect(bump, sender=user_model, dispatch_uid="sitekit.tokens.user_deleted")


def _fields(instance) -> tuple[tuple[str, object], ...]:
    return tuple((field.attname, getattr(instance, field.attname)) for field in instance._meta.concrete_fields)


def _rebuilt(model, fields: tuple[tuple[str, object], ...]):
    """A fresh instance per request (nothing one request loads onto it reaches another)."""
    return model.from_db("default", [name for name, _value in fields], [value for _name, value in fields])


class CachedTokenAuthentication(TokenAuthentication):
    """DRF's ``TokenAuthentication`` ("Authorization: Token <key>") with this module's per-process cache. Returns
    ``(user, token)``; raises DRF's ``AuthenticationFailed`` (401) for an unknown token or an inactive user."""

    def authenticate_credentials(self, key: str):
        generation = _generation()
        entry = _entries.get(key)
        if entry is not None and entry.generation == generation and entry.until > time.monotonic():
            return _rebuilt(get_user_model(), entry.user_fields), _rebuilt(Token, entry.token_fields)
        user, token = super().authenticate_credentials(key)
        seconds = settings.TOKEN_CACHE_SECONDS
        if generation is not None and seconds > 0:
            with _lock:
                if len(_entries) >= MAX_ENTRIES:
                    _entries.clear()
                _entries[key] = _Entry(generation, time.monotonic() + seconds, _fields(user), _fields(token))
        return user, token
