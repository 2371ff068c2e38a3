"""Who a request limit counts: the client's address, one rule for every limit (the API throttles, sign-ups and
the failed-login limits in ``games.people.accounts``).

The address is the connection's (``REMOTE_ADDR``) unless ``REST_FRAMEWORK["NUM_PROXIES"]`` (settings
``NUM_PROXIES``) says N reverse proxies of ours append to X-Forwarded-For: then the N-th entry from the right
(DRF's rule). With 0, the default, the header is never read, so a forged one buys no new budget. An IPv6 address
counts as its /64 network: one host may use any address of its /64 at no cost.

Use the throttle classes here instead of DRF's: they differ only in counting by ``client_address``.
"""

from __future__ import annotations

import ipaddress
import math

from rest_framework import throttling

from sitekit.errors import ApiError


def client_address(request) -> str:
    """The client as every limit counts it: an IPv4 address (``"192.0.2.1"``), an IPv6 address's /64 network
    written as its first address (``"2001:db8:1:2::"``: an address still, as django-axes stores it), or the raw
    value when it is not an address.

    ``request``: Django's or DRF's request. Also django-axes' ``AXES_CLIENT_IP_CALLABLE``.
    """
    ident = throttling.BaseThrottle().get_ident(request)
    try:
        address = ipaddress.ip_address(ident)
    except ValueError:
        return ident
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return str(address)


#: what each throttle scope counts, for the 429's message (``config.api.exception_handler``); "per player": per
#: account, or per guest for a guest (``ScopedRateThrottle``)
SCOPE_WORDS = {"anon": "API calls per address without an account", "user": "API calls per account",
               "seat_view": "seat views per player", "seat_action": "moves per player",
               "bot_verify": "bot verifications per account", "signup": "accounts created per address",
               "signup_attempt": "sign-up form posts per address", "guest_match": "new guest matches per address",
               "casual_match": "new casual matches per account",
               "live_public": "public match views per address", "live_events": "event streams opened per address",
               "record_open": "records opened in the replay viewer per address",
               "report": "reports on players per account",
               "analysis_request": "match analyses asked for per account"}


class LimitRefused(ApiError):
    """Something refused by a limit outside DRF's throttles (a guest Deal: ``games.people.guests.GuestRefused``; a casual
    match: ``games.people.casual.CasualRefused``; a trial): 429 ``throttled``. ``detail``: plain words naming the limit and
    what to do; ``retry_after``: seconds (>= 1) until a new try may pass (the 429's Retry-After)."""

    def __init__(self, detail: str, retry_after: int):
        super().__init__("throttled", detail, 429, retry_after=retry_after)


def limit_words(*, scope: str | None, rate: str | None) -> str:
    """A limit as a 429 names it: ``"600/min (seat views per account)"``."""
    return f"{rate} ({SCOPE_WORDS.get(scope or '', scope or 'requests')})"


class _ByClientAddress:
    """Counts by ``client_address``; a refused request remembers which limit refused it
    (``request.limits_hit``: ``[(scope, rate)]``) so the 429 can name it."""

    def get_ident(self, request) -> str:
        return client_address(request)

    def allow_request(self, request, view) -> bool:
        allowed = super().allow_request(request, view)
        if not allowed:
            request.limits_hit = [*getattr(request, "limits_hit", []), (self.scope, self.rate)]
        return allowed


class AnonRateThrottle(_ByClientAddress, throttling.AnonRateThrottle):
    """DRF's ``anon`` rate, per ``client_address``."""


class UserRateThrottle(_ByClientAddress, throttling.UserRateThrottle):
    """DRF's ``user`` rate: per account, per ``client_address`` when anonymous."""


class ScopedRateThrottle(_ByClientAddress, throttling.ScopedRateThrottle):
    """DRF's per-view ``throttle_scope`` rates: per account, per guest (``request.guest``, set by the seat views'
    permission: several guests behind one address each have their own budget), per ``client_address`` otherwise."""

    def get_cache_key(self, request, view):
        guest = getattr(request, "guest", None)
        if guest is not None and not (request.user and request.user.is_authenticated):
            return self.cache_format % {"scope": self.scope, "ident": f"guest{guest.pk}"}
        return super().get_cache_key(request, view)


class AddressBudget(throttling.SimpleRateThrottle):
    """A budget of counted events (accounts created, guest matches dealt), not of requests, per ``client_address``:
    ``full(request)`` asks whether the address has used it (nothing counted), ``count(request)`` counts one event
    after it happened; DRF's ``allow_request`` (ask and count at once) works too. Subclasses set ``scope``; the rate
    is ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]`` as configured when the throttle is made (DRF's class
    attribute would keep the rates read at import)."""

    def get_rate(self) -> str | None:
        from rest_framework.settings import api_settings

        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}

    def full(self, request) -> bool:
        """Whether ``request``'s address has used its budget (nothing counted)."""
        self.key = self.get_cache_key(request, None)
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def count(self, request) -> None:
        """One more event for ``request``'s address."""
        self.full(request)
        self.throttle_success()

    def retry_after(self) -> int:
        """Whole seconds (>= 1) until the address asked last (``full``) may try again: the Retry-After of a 429."""
        return max(1, math.ceil(self.wait() or 60))
