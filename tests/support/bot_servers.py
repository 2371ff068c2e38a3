"""Real HTTP bot servers on 127.0.0.1 for tests: the reference bot and deliberately broken ones.

``BotServer(behaviour, secret)`` starts a ThreadingHTTPServer on a free port in a thread and records every
request (headers and raw body). Behaviours: ``good`` (examples/bot_server.py's heuristic bot), ``sleep:MS``
(then good), ``status:500``, ``close`` (drops the connection), ``huge`` (10 MB reply), ``badjson``,
``schema`` (a reply without "action"), ``trickle`` (headers one byte at a time), ``nested`` (JSON nested
30,000 deep), ``notheld`` (plays a card it does not hold), ``nosuit`` (an eight with
no suit), ``redirect`` (302 to 127.0.0.1:1), ``card:TEXT`` (plays a "card" spelled TEXT: a schema fault whose
cause echoes the bot's words), ``mostly500`` (two of every three turns HTTP 500, the third
good: it faults on most turns but never three in a row, so it never forfeits), ``alternate500`` (every second
turn HTTP 500: half its turns fault, never two in a row), ``checkonly:ID,ID`` (plays well only for those match
ids, cards it does not hold otherwise: a bot that tries to spot the conformance check), ``afterping`` (plays well
only once it has been sent a ping, cards it does not hold before: a bot that takes a ping for the sign of a check),
``debug:TEXT`` (good, with
the reply's ``debug`` note TEXT), ``debuglong`` (a 1500-character debug), ``debugnum`` (a debug that is a number),
``contribution:HEX`` / ``contribution:random`` (good, with a contribution to the next deal), ``redirect:URL`` (307
to URL), ``eightnosuit`` (an eight without a suit when it may play one, else good), ``sleepontwo:MS`` (sleeps MS
when facing a pending two, then good), ``slowonce:MS`` (sleeps MS on its first turn only, then good).

``signed=False`` makes a bot that checks no signature (a careless author's): it answers every ping with its name
and any other request with 200, and "good" is then the first legal action. ``use_secret`` changes the secret a
running server checks (a bot's secret is known only once it is registered). ``running(...)`` is the same server as
a context manager that yields its URL. This is the tests' one fake bot server.
"""

from __future__ import annotations

import json
import os
import contextlib
import threading
import time
from http.server import ThreadingHTTPServer

from examples.bot_server import make_handler
from eights_engine import CARD_CODES


class BotServer:
    def __init__(self, behaviour: str = "good", secret: str = "s3cret", name: str = "TestBot", *,
                 signed: bool = True, version: str = "1.0") -> None:
        self.behaviour = behaviour
        self.secret = secret
        self.version = version  # what its ping answers (change it as an author changes the bot and restarts it)
        self.turns = 0
        self.pinged = False
        self.requests: list[tuple[dict, bytes]] = []
        good = make_handler(lambda: self.secret, name, "heuristic", version=lambda: self.version)
        server_self = self

        class Handler(good):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:  # noqa: N802
                self.rfile = getattr(self.rfile, "rfile", self.rfile)  # the connection's own file again
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                server_self.requests.append((dict(self.headers), body))
                self.rfile = _Replay(body, self.rfile)
                request = json.loads(body)
                kind = request.get("type")
                b = server_self.behaviour
                if kind == "ping":
                    server_self.pinged = True
                if not signed:
                    if kind == "ping":
                        return self._reply(200, {"name": "Careless", "author": "tests", "version": "0"})
                    if kind != "turn":
                        return self._reply(200, {})
                    good_turn = lambda: self._reply(200, {"action": request["legal_actions"][0]})  # noqa: E731
                else:
                    good_turn = lambda: good.do_POST(self)  # noqa: E731
                if kind != "turn":
                    return good.do_POST(self)
                server_self.turns += 1
                if b in ("good", "nagle"):
                    return good_turn()
                if b == "eightnosuit":
                    eights = [a for a in request["legal_actions"] if a["type"] == "play" and "suit" in a]
                    if eights:
                        return self._reply(200, {"action": {"type": "play", "card": eights[0]["card"]}})
                    return good_turn()
                if b.startswith("sleepontwo:"):
                    if request["view"]["pending_draw"]:
                        time.sleep(int(b.split(":")[1]) / 1000)
                    return good_turn()
                if b.startswith("slowonce:"):
                    if server_self.turns == 1:
                        time.sleep(int(b.split(":")[1]) / 1000)
                    return good_turn()
                if b.startswith("redirect:"):
                    self.send_response(307)
                    self.send_header("Location", b[len("redirect:"):])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                if b.startswith("debug"):  # good, plus a debug note: debug:TEXT, debuglong (1500 chars), debugnum
                    note = {"debuglong": "x" * 1500, "debugnum": 42}.get(b, b[len("debug:"):])
                    plain = self._reply
                    self._reply = lambda status, payload: plain(status, {**payload, "debug": note})
                    return good.do_POST(self)
                if b.startswith("contribution:"):  # good, plus a contribution: contribution:HEX (any text), or
                    # contribution:random (32 fresh random bytes every turn)
                    given = b[len("contribution:"):]
                    given = os.urandom(32).hex() if given == "random" else given
                    plain = self._reply
                    self._reply = lambda status, payload: plain(status, {**payload, "contribution": given})
                    return good.do_POST(self)
                if b.startswith("sleep:"):
                    time.sleep(int(b.split(":")[1]) / 1000)
                    return good_turn()
                if b == "mostly500":
                    if server_self.turns % 3:
                        return self._reply(500, {"error": "boom"})
                    return good_turn()
                if b == "alternate500":
                    if server_self.turns % 2 == 0:
                        return self._reply(500, {"error": "boom"})
                    return good_turn()
                if b == "afterping":
                    if server_self.pinged:
                        return good_turn()
                    b = "notheld"
                if b.startswith("checkonly:"):
                    if request["match_id"] in {int(i) for i in b[len("checkonly:"):].split(",")}:
                        return good_turn()
                    b = "notheld"
                if b.startswith("status:"):
                    return self._reply(int(b.split(":")[1]), {"error": "boom"})
                if b == "close":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return None
                if b == "huge":
                    return self._raw(200, b'{"action": "' + b"x" * (10 * 1024 * 1024) + b'"}')
                if b == "badjson":
                    return self._raw(200, b"{not json")
                if b == "schema":
                    return self._reply(200, {"move": "draw"})
                if b == "notheld":
                    missing = next(c for c in CARD_CODES if c not in request["view"]["hand"])
                    return self._reply(200, {"action": {"type": "play", "card": missing}})
                if b.startswith("card:"):
                    return self._reply(200, {"action": {"type": "play", "card": b[len("card:"):]}})
                if b == "nosuit":
                    return self._reply(200, {"action": {"type": "play", "card": "8H"}})
                if b == "trickle":  # the status line and headers one byte at a time, never finishing
                    try:
                        for byte in b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 10000:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(0.05)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    self.close_connection = True
                    return None
                if b == "nested":
                    return self._raw(200, b"[" * 30000 + b"]" * 30000)
                if b == "redirect":
                    self.send_response(302)
                    self.send_header("Location", "http://127.0.0.1:1/")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                raise AssertionError(f"unknown behaviour {b}")

            def _raw(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        # "nagle": a good bot whose server leaves Nagle's algorithm on, so each reply's body (a second small write
        # after the headers) waits for the service's delayed ACK: ~40 ms a turn on Linux (docs/measurements.md)
        Handler.disable_nagle_algorithm = behaviour != "nagle"
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def use_secret(self, secret: str) -> None:
        """Check ``secret`` from now on (also on connections kept alive)."""
        self.secret = secret

    def bodies(self, kind: str) -> list[dict]:
        return [json.loads(b) for _h, b in self.requests if json.loads(b).get("type") == kind]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def running(behaviour: str = "good", secret: str = "s3cret", name: str = "TestBot", *, signed: bool = True):
    """A ``BotServer`` for the length of a ``with`` block; yields its URL."""
    server = BotServer(behaviour, secret, name, signed=signed)
    try:
        yield server.url
    finally:
        server.stop()


class _Replay:
    """A file-like object giving back an already-read request body to the wrapped handler; everything else (the
    next request's lines on a keep-alive connection, close) goes to the connection's own file."""

    def __init__(self, data: bytes, rfile) -> None:
        self.data = data
        self.rfile = rfile

    def read(self, n: int = -1) -> bytes:
        out, self.data = (self.data, b"") if n < 0 else (self.data[:n], self.data[n:])
        return out

    def __getattr__(self, name: str):
        return getattr(self.rfile, name)
