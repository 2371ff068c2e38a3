"""The one way the service talks to bots: a hardened HTTP POST (healthchecks' curl.py in spirit).

* http and https only, no credentials in URLs, no redirects followed (a 3xx is the bot's ``redirect`` fault);
* the address guard: private, loopback, link-local, multicast, reserved and unspecified addresses (IPv4 and IPv6)
  are refused at registration (``check_endpoint_url``) and again at connect time, after DNS, for every address
  the name resolves to (``GuardedBackend``), so a name that later resolves elsewhere cannot reach inside.
  ``BOTS_ALLOW_LOOPBACK`` lets loopback through (development, tests, the demo); nothing else is ever allowed;
* one pooled keep-alive ``httpx.Client`` per process (a new client per call costs ~20 ms, docs/measurements.md);
* a total deadline per call (ms), a 64 KiB cap on the reply body, JSON only.

Failures raise ``BotFault(kind, cause)``; ``kind`` is one of ``FAULT_KINDS``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
from urllib.parse import urlsplit

import httpcore
import httpx
from django.conf import settings

from eights_engine.bots.bot_calls import TrackingBackend, make_client, post_signed
from eights_engine.bots.protocol import BotFault

_BLOCKED_PREFIX = "blocked address"


#: NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address a NAT64 gateway would reach
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
#: IPv4-compatible IPv6 (RFC 4291, deprecated but still parsed): ::a.b.c.d, except :: and ::1 themselves
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
#: Ranges refused by name whatever Python's ``is_global`` says (it calls some of them public), with their words
_REFUSED_NETWORKS = [(ipaddress.ip_network(net), words) for net, words in (
    ("fec0::/10", "a site-local address (deprecated, RFC 3879)"),
    ("192.0.0.0/24", "an IETF protocol assignment address (RFC 6890), not a public address"),
    ("192.88.99.0/24", "a 6to4 relay anycast address (deprecated, RFC 7526), not a public address"),
    ("3fff::/20", "a documentation address (RFC 9637)"),
    ("2001:db8::/32", "a documentation address (RFC 3849)"),
    ("100::/64", "a discard-only address (RFC 6666)"),
    ("192.0.2.0/24", "a documentation address (RFC 5737)"),
    ("198.51.100.0/24", "a documentation address (RFC 5737)"),
    ("203.0.113.0/24", "a documentation address (RFC 5737)"),
    ("198.18.0.0/15", "a benchmarking address (RFC 2544), not a public address"),
    ("2001:2::/48", "a benchmarking address (RFC 5180), not a public address"),
)]


def _embedded_ipv4(addr: ipaddress.IPv6Address) -> list[tuple[str, ipaddress.IPv4Address]]:
    """The IPv4 addresses an IPv6 transition address leads to, each with the form's name: IPv4-mapped,
    IPv4-compatible, NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: its server and its client)."""
    if addr.ipv4_mapped:
        return [("an IPv4-mapped address", addr.ipv4_mapped)]
    if addr in _NAT64:
        return [("a NAT64 address", ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF))]
    if addr in _IPV4_COMPATIBLE and int(addr) > 1:
        return [("an IPv4-compatible address", ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF))]
    if addr.sixtofour:
        return [("a 6to4 address", addr.sixtofour)]
    if addr.teredo:
        server, client = addr.teredo
        return [("a Teredo address", client), ("a Teredo address (server)", server)]
    return []


def address_problem(ip: str) -> str | None:
    """Why ``ip`` may not be called, as words that follow "which is" (None when it may be called): "a private
    address", "a loopback address" (unless ``BOTS_ALLOW_LOOPBACK``), "not a public address", ... An IPv6
    transition address (6to4, Teredo, NAT64, IPv4-mapped or -compatible) is judged by the IPv4 address it
    leads to: "a 6to4 address of 10.0.0.1, a private address". Some ranges are refused by name
    (``_REFUSED_NETWORKS``: site-local fec0::/10, 192.0.0.0/24, 192.88.99.0/24, documentation, discard,
    benchmarking), since ``is_global`` calls some of them public."""
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(addr, ipaddress.IPv6Address):
        for form, inner in _embedded_ipv4(addr):
            problem = address_problem(str(inner))
            if problem:
                return f"{form} of {inner}, {problem}"
        if addr.ipv4_mapped or addr in _NAT64 or (addr in _IPV4_COMPATIBLE and int(addr) > 1):
            return None  # wholly judged by the IPv4 address it carries
    if addr.is_loopback:
        return None if settings.BOTS_ALLOW_LOOPBACK else "a loopback address"
    for net, words in _REFUSED_NETWORKS:
        if addr.version == net.version and addr in net:
            return words
    for word, article in (("unspecified", "an"), ("link_local", "a"), ("multicast", "a"), ("reserved", "a"),
                          ("private", "a")):  # most specific first: Python counts 0.0.0.0 and 240/4 as private too
        if getattr(addr, f"is_{word}"):
            return f"{article} {word.replace('_', '-')} address"
    if not addr.is_global:
        return "not a public address"
    return None


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def check_endpoint_url(url: object) -> str:
    """Validate a bot endpoint URL for registration; returns it. ``ValueError`` says what is wrong."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError("give the endpoint as an absolute URL, e.g. https://bot.example.com/eights")
    url = url.strip()
    if len(url) > 300:
        raise ValueError("the endpoint URL is longer than 300 characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{url!r} is not a valid URL: {exc}") from None
    allowed = ("https", "http") if settings.BOTS_ALLOW_HTTP else ("https",)
    if parts.scheme not in allowed:
        raise ValueError(f"the endpoint must use {' or '.join(allowed)}, not {parts.scheme or 'no scheme'!r}")
    if any(ord(ch) < 33 or ord(ch) == 127 for ch in url):
        raise ValueError("the endpoint URL must not contain spaces or control characters")
    if parts.username or parts.password:
        raise ValueError("the endpoint URL must not contain a user name or password: bots are authenticated by "
                         "the request signature")
    if not parts.hostname:
        raise ValueError(f"{url!r} has no host name")
    if port == 0:
        raise ValueError("the endpoint URL's port must be from 1 to 65535")
    if parts.fragment:
        raise ValueError("the endpoint URL must not have a #fragment")
    try:
        addresses = _resolve(parts.hostname, port or (443 if parts.scheme == "https" else 80))
    except (socket.gaierror, UnicodeError) as exc:
        raise ValueError(f"the host {parts.hostname!r} does not resolve ({exc})") from None
    for ip in addresses:
        problem = address_problem(ip)
        if problem:
            raise ValueError(f"the host {parts.hostname!r} resolves to {ip}, which is {problem}: bots must be "
                             "reachable on a public address")
    return url


class GuardedBackend(TrackingBackend):
    """The tools' tracking backend, resolving the host itself and connecting only to addresses the guard allows."""

    def _connect(self, host, port, timeout, local_address, socket_options):
        try:
            addresses = _resolve(host, port)
        except (socket.gaierror, UnicodeError) as exc:
            raise httpcore.ConnectError(f"{host} does not resolve: {exc}") from exc
        refused = []
        for ip in addresses:
            problem = address_problem(ip)
            if problem:
                refused.append(f"{ip} ({problem})")  # e.g. "10.0.0.1 (a private address)"
                continue
            return super()._connect(ip, port, timeout, local_address, socket_options)
        raise httpcore.ConnectError(f"{_BLOCKED_PREFIX}: {host} resolves only to {', '.join(refused)}")


_local = threading.local()


def _client() -> httpx.Client:
    """This thread's pooled client (recreated after a fork: Celery's prefork workers)."""
    client = getattr(_local, "client", None)
    if client is None or _local.pid != os.getpid():
        client = make_client(GuardedBackend())
        client.headers["User-Agent"] = "EightsLadder/1 (+bot protocol v1)"
        _local.client, _local.pid = client, os.getpid()
    return client


def post_json(url: str, secret: str, body: dict, timeout_ms: int, trace: dict | None = None) -> tuple[object, int]:
    """POST ``body`` signed with ``secret``; returns (parsed JSON reply, elapsed ms).

    The call rules are ``bot_calls.post_signed``'s (shared with the authors' tools): a hard deadline for the whole
    call in ms, no redirects, 64 KiB cap, JSON only, one retry of a dropped connection. Raises ``BotFault`` for
    every failure, with ``address`` when the guard refused every address the host resolves to. ``trace``: as
    ``post_signed``'s (the raw request and reply bytes, for the turn log).
    """
    try:
        return post_signed(_client(), url, secret, body, timeout_ms, trace)
    except BotFault as fault:
        if fault.kind == "connection" and _BLOCKED_PREFIX in fault.cause:
            raise BotFault("address", fault.cause, fault.elapsed_ms) from None
        raise


def guarded_client() -> httpx.Client:
    """This thread's pooled client, with the address guard, for the service's own uses of the tools' send
    functions (the conformance check a Verify runs, ``eights_engine.bots.check.run_checks``)."""
    return _client()
