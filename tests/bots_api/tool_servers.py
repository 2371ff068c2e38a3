"""Bot servers on loopback for the author-tool tests: the reference bot and deliberately broken ones."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from games.engine import CARD_CODES

_spec = importlib.util.spec_from_file_location(
    "example_bot_server", Path(__file__).resolve().parents[2] / "examples" / "bot_server.py")
example_bot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example_bot)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@contextlib.contextmanager
def serve(handler):
    """Run ``handler`` on 127.0.0.1 (a free port) in a thread; yields the URL."""
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def good_bot(secret: str, name: str = "GoodBot"):
    return serve(example_bot.make_handler(secret, name, "heuristic"))


def not_held(hand: list[str]) -> str:
    return next(c for c in CARD_CODES if c not in hand)


def broken_handler(mode: str, sleep_s: float = 0.5):
    """A bot that ignores signatures and misbehaves on turns.

    ``mode``: ``illegal`` (plays a card it does not hold), ``sleep`` (sleeps past the deadline), ``status500``,
    ``bad_json``, ``no_suit`` (plays an eight without a suit when it can, else a legal action), ``sleep_on_two``
    (plays the first legal action, but sleeps when facing a pending two), ``slow_once`` (sleeps ``sleep_s`` on its
    first turn only, then plays the first legal action).
    """
    state = {"turns": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request = json.loads(body)
            kind = request.get("type")
            if kind == "ping":
                return self._reply(200, {"name": "Broken", "author": "tests", "version": "0"})
            if kind != "turn":
                return self._reply(200, {})
            with lock:
                state["turns"] += 1
                first = state["turns"] == 1
            legal = request["legal_actions"]
            view = request["view"]
            if mode == "illegal":
                return self._reply(200, {"action": {"type": "play", "card": not_held(view["hand"])}})
            if mode == "sleep":
                time.sleep(sleep_s)
            if mode == "status500":
                return self._reply(500, {"error": "boom"})
            if mode == "bad_json":
                return self._raw(200, b"{not json")
            if mode == "no_suit":
                eights = [a for a in legal if "suit" in a and a["type"] == "play"]
                if eights:
                    return self._reply(200, {"action": {"type": "play", "card": eights[0]["card"]}})
            if mode == "sleep_on_two" and view["pending_draw"]:
                time.sleep(sleep_s)
            if mode == "slow_once" and first:
                time.sleep(sleep_s)
            return self._reply(200, {"action": legal[0]})

        def _reply(self, status: int, payload: dict) -> None:
            self._raw(status, json.dumps(payload).encode())

        def _raw(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args) -> None:
            pass

    return Handler
