"""The bot call rules, shared by the service (``bots_api.client``, ``bots_api.agent``) and the authors' tools
(``eights_engine.bots.localrun``, ``eights_engine.bots.check``); no Django.

The same rules as ``bots_api.client.post_json`` (the service's client): a signed POST of compact JSON, redirects
not followed (a 3xx is a ``redirect`` fault), a total deadline per call in ms, a 64 KiB cap on the reply body,
JSON only; failures raise ``BotFault(kind, cause, elapsed_ms)`` with the service's fault kinds. What it leaves
out: the address guard (the tools are for your own machine, so loopback and private addresses are fine) and
Django settings (it runs without ``DJANGO_SETTINGS_MODULE``). One pooled keep-alive ``httpx.Client`` per tool run.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import weakref
from dataclasses import dataclass

import httpcore
import httpx

from eights_engine.bots.protocol import MAX_BODY_BYTES, BotFault, reply_contribution, schema_errors, sign, turn_request
from eights_engine.referee import Answer, Fault, Turn

USER_AGENT = "EightsLadder-tools/1 (+bot protocol v1)"


class TrackingBackend(httpcore.SyncBackend):
    """httpcore's network backend, remembering the sockets it opened so that a call past its deadline can be cut
    off: ``abort()`` shuts them down, which wakes a read blocked on a bot that trickles bytes (httpx's timeouts
    restart with every byte, so they cannot bound a whole call)."""

    def __init__(self) -> None:
        self._sockets: weakref.WeakSet = weakref.WeakSet()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._connect(host, port, timeout, local_address, socket_options)
        sock = getattr(stream, "_sock", None)
        if sock is not None:
            self._sockets.add(sock)
        return stream

    def _connect(self, host, port, timeout, local_address, socket_options):
        return super().connect_tcp(host, port, timeout, local_address, socket_options)

    def abort(self) -> None:
        for sock in list(self._sockets):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def make_client(backend: TrackingBackend | None = None) -> httpx.Client:
    """A pooled keep-alive client that never follows redirects, never retries by itself, asks for uncompressed
    replies (the 64 KiB cap counts the bytes the bot sends), and can be cut off at a deadline (``send``)."""
    transport = httpx.HTTPTransport(retries=0)
    backend = backend or TrackingBackend()
    transport._pool = httpcore.ConnectionPool(max_connections=100, max_keepalive_connections=20,
                                              keepalive_expiry=30.0, network_backend=backend)
    client = httpx.Client(transport=transport, follow_redirects=False,
                          headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
    client.eights_backend = backend  # type: ignore[attr-defined]
    return client


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

    The whole call (connect, headers, body) ends at ``timeout_ms``: a timer cuts the connection off then. Raises
    ``BotFault`` only for a timeout, a connection failure (any transport error) and a body over 64 KiB.
    """
    deadline = timeout_ms / 1000
    started = time.perf_counter()
    backend = getattr(client, "eights_backend", None)
    cut_off = threading.Event()

    def elapsed_ms() -> int:
        return int((time.perf_counter() - started) * 1000)

    def abort() -> None:
        cut_off.set()
        if backend is not None:
            backend.abort()

    timer = threading.Timer(deadline + 0.02, abort)
    timer.daemon = True
    timer.start()
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
    except BotFault:
        raise
    except httpx.TimeoutException:
        raise BotFault("timeout", f"no answer within {timeout_ms} ms", elapsed_ms()) from None
    except Exception as exc:  # any transport failure (httpx, httpcore, OS) is the call's failure, never a crash
        if cut_off.is_set():
            raise BotFault("timeout", f"no complete answer within {timeout_ms} ms", elapsed_ms()) from None
        words = "could not connect" if isinstance(exc, httpx.ConnectError) else type(exc).__name__
        raise BotFault("connection", f"{words}: {exc or 'connection closed'}", elapsed_ms()) from None
    finally:
        timer.cancel()


def post_signed(client: httpx.Client, url: str, secret: str, body: dict, timeout_ms: int,
                trace: dict | None = None) -> tuple[object, int]:
    """What the service does for each call: returns (parsed JSON reply, elapsed ms) or raises ``BotFault``
    (timeout, connection, redirect, http_status, oversize, bad_json). A connection failure in the first half of
    the deadline is tried once more on a fresh connection: a keep-alive connection the bot closed (a restart) is
    the pool's problem, not the bot's fault.

    ``trace`` (a dict, optional) receives what went over the wire, for the turn log (``bots_api.turnlog``):
    ``request`` (the exact raw body bytes sent and signed), and once an answer came ``status`` (int) and
    ``reply`` (the raw body bytes read, at most 64 KiB), and ``json`` (the parsed reply) when it was JSON."""
    try:
        return _post_signed_once(client, url, secret, body, timeout_ms, trace)
    except BotFault as fault:
        if fault.kind != "connection" or fault.elapsed_ms * 2 > timeout_ms:
            raise
        reply, took = _post_signed_once(client, url, secret, body, timeout_ms - fault.elapsed_ms, trace)
        return reply, took + fault.elapsed_ms


def _post_signed_once(client: httpx.Client, url: str, secret: str, body: dict, timeout_ms: int,
                      trace: dict | None = None) -> tuple[object, int]:
    raw = encode(body)
    if trace is not None:
        trace["request"] = raw
    reply = send(client, url, raw, sign(secret, raw), timeout_ms)
    if trace is not None:
        trace["status"], trace["reply"] = reply.status, reply.data
    if 300 <= reply.status < 400:
        raise BotFault("redirect", f"answered HTTP {reply.status} (to {reply.location or '?'}); redirects are not "
                       "followed", reply.elapsed_ms)
    if not 200 <= reply.status < 300:
        raise BotFault("http_status", f"answered HTTP {reply.status}", reply.elapsed_ms)
    if reply.elapsed_ms > timeout_ms:
        raise BotFault("timeout", f"answered after {reply.elapsed_ms} ms; the deadline was {timeout_ms} ms",
                       reply.elapsed_ms)
    try:
        parsed = json.loads(reply.data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BotFault("bad_json", f"reply is not usable JSON ({type(exc).__name__}: {str(exc)[:80]})",
                       reply.elapsed_ms) from None
    if trace is not None:
        trace["json"] = parsed
    return parsed, reply.elapsed_ms


def ask_turn(post, turn: Turn) -> Answer:
    """Ask a bot for its answer to ``turn`` (a referee ``Turn``), as the service (``bots_api.agent``) and the local
    runner both do: one signed ``turn`` request (``protocol.turn_request``).

    ``post(body, timeout_ms) -> (reply, elapsed_ms)`` makes the signed call (raising ``BotFault``); the call may
    take the turn's deadline plus the seat's time bank. The reply must match the turn reply schema; whether its
    action is legal is the referee's to judge (``eights_engine.referee.judge``). Returns the ``Answer``: the action,
    or the fault (every ``BotFault`` kind, or ``schema``), with the elapsed ms and the time bank left (ms): a slow
    turn pays its excess from the bank, and a timeout empties it.
    """
    bank_ms = turn.time_bank_ms or 0
    fault = None
    try:
        reply, elapsed = post(turn_request(turn), turn.deadline_ms + bank_ms)
    except BotFault as exc:
        fault, elapsed = exc, exc.elapsed_ms
    else:
        errors = schema_errors("turn_reply_play", reply)  # a bad ``debug`` is a warning (turn log), never a fault
        if errors:
            fault = BotFault("schema", f"reply does not match the turn reply schema: {errors[0]}", elapsed)
    bank_left = 0 if fault is not None and fault.kind == "timeout" else max(0, bank_ms - max(0, elapsed - turn.deadline_ms))
    if fault is not None:
        return Answer(fault=Fault(fault.kind, fault.cause), think_ms=elapsed, time_bank_ms=bank_left)
    contribution, _warning = reply_contribution(reply)  # a bad one: a warning in the turn log, never a fault
    return Answer(action=reply["action"], think_ms=elapsed, time_bank_ms=bank_left, contribution=contribution)
