"""Strict helpers for reading settings from the environment: typos fail loudly at start-up."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """The variable's value, or ``default``; ``NAME_FILE`` (a path) is read instead when it is set."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={path!r} cannot be read: {exc.strerror}") from None
    return os.environ.get(name, default)


def env_rate(name: str, default: str) -> str:
    """A rate of DRF's throttles ("20/hour": a whole number from 1 to 9,999,999 per s, min, hour or day), or
    ``default``. ``ImproperlyConfigured`` for anything else, with an example."""
    import re

    value = env_str(name, default)
    if not re.fullmatch(r"[1-9][0-9]{0,6}/(s|sec|second|m|min|minute|h|hour|d|day)", value):
        raise ImproperlyConfigured(f"{name}={value!r}: write a count per period, e.g. {default}")
    return value


def env_bool(name: str, default: bool) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off``; anything else raises ``ImproperlyConfigured``."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use 1/0, true/false, yes/no or on/off")


def env_int(name: str, default: int, minimum: int = 0, maximum: int = 10**9) -> int:
    """A whole number from ``minimum`` to ``maximum``; anything else raises ``ImproperlyConfigured``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None
    if not minimum <= value <= maximum:
        raise ImproperlyConfigured(f"{name}={value} is out of range: use {minimum} to {maximum}")
    return value


def env_float(name: str, default: float, minimum: float, maximum: float) -> float:
    """A finite number from ``minimum`` to ``maximum``; anything else raises ``ImproperlyConfigured``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if not minimum <= value <= maximum:  # also refuses nan
        raise ImproperlyConfigured(f"{name}={value} is out of range: use {minimum} to {maximum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
