"""HTTP for the authors' tools (``bots_api.localrun``, ``bots_api.check``): the service's call rules, no Django.

The same rules as ``bots_api.client.post_json`` (the service's client): a signed POST of compact JSON, redirects
not followed (a 3xx is a ``redirect`` fault), a total deadline per call in ms, a 64 KiB cap on the reply body,
JSON only; failures raise ``BotFault(kind, cause, elapsed_ms)`` with the service's fault kinds. What it leaves
out: the address guard (the tools are for your own machine, so loopback and private addresses are fine) and
Django settings (it runs without ``DJANGO_SETTINGS_MODULE``). One pooled keep-alive ``httpx.Client`` per tool run.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import httpx

from bots_api.protocol import MAX_BODY_BYTES, BotFault, sign

USER_AGENT = "EightsLadder-tools/1 (+bot protocol v1)"


def make_client() -> httpx.Client:
    """A pooled client that never follows redirects and never retries."""
    return httpx.Client(transport=httpx.HTTPTransport(retries=0), follow_redirects=False,
                        headers={"User-Agent": USER_AGENT})


def encode(body: dict) -> bytes:
    """The raw bytes the service sends (and signs): compact JSON."""
    return json.dumps(body, separators=(",", ":")).encode()


@dataclass
class Reply:
    status: int
    data: bytes
    elapsed_ms: int
    location: str | None = None


def send(client: httpx.Client, url: str, raw: bytes, headers: dict[str, str], timeout_ms: int) -> Reply:
    """POST ``raw`` with ``headers``; returns the status and body whatever the status is.

    Raises ``BotFault`` only for a timeout (the whole call), a connection failure and a body over 64 KiB.
    """
    deadline = timeout_ms / 1000
    started = time.perf_counter()

    def elapsed_ms() -> int:
        return int((time.perf_counter() - started) * 1000)

    try:
        with client.stream("POST", url, content=raw, headers={"Content-Type": "application/json", **headers},
                           timeout=httpx.Timeout(deadline)) as response:
            data = bytearray()
            for chunk in response.iter_raw():
                data += chunk
                if len(data) > MAX_BODY_BYTES:
                    raise BotFault("oversize", f"reply body over {MAX_BODY_BYTES // 1024} KiB", elapsed_ms())
                if time.perf_counter() - started > deadline:
                    raise BotFault("timeout", f"no complete answer within {timeout_ms} ms", elapsed_ms())
            return Reply(response.status_code, bytes(data), elapsed_ms(), response.headers.get("location"))
    except httpx.TimeoutException:
        raise BotFault("timeout", f"no answer within {timeout_ms} ms", elapsed_ms()) from None
    except httpx.ConnectError as exc:
        raise BotFault("connection", f"could not connect: {exc}", elapsed_ms()) from None
    except httpx.HTTPError as exc:
        raise BotFault("connection", f"{type(exc).__name__}: {exc or 'connection closed'}", elapsed_ms()) from None


def post_signed(client: httpx.Client, url: str, secret: str, body: dict, timeout_ms: int) -> tuple[object, int]:
    """What the service does for each call: returns (parsed JSON reply, elapsed ms) or raises ``BotFault``
    (timeout, connection, redirect, http_status, oversize, bad_json)."""
    raw = encode(body)
    reply = send(client, url, raw, sign(secret, raw), timeout_ms)
    if 300 <= reply.status < 400:
        raise BotFault("redirect", f"answered HTTP {reply.status} (to {reply.location or '?'}); redirects are not "
                       "followed", reply.elapsed_ms)
    if not 200 <= reply.status < 300:
        raise BotFault("http_status", f"answered HTTP {reply.status}", reply.elapsed_ms)
    if reply.elapsed_ms > timeout_ms:
        raise BotFault("timeout", f"answered after {reply.elapsed_ms} ms; the deadline was {timeout_ms} ms",
                       reply.elapsed_ms)
    try:
        return json.loads(reply.data), reply.elapsed_ms
    except (ValueError, UnicodeDecodeError) as exc:
        raise BotFault("bad_json", f"reply is not JSON ({exc})", reply.elapsed_ms) from None
