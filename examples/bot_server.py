"""A reference Eights Ladder bot (bot protocol v1) using only Python's standard library.

It checks every request's signature (HMAC-SHA256 of "{timestamp}.{body}" with your secret, timestamps older than
5 minutes refused), answers ``ping`` with its name, and answers ``turn`` with the house ``heuristic`` strategy
(when run from the Eights Ladder repository; otherwise a simple "first legal play, else draw, else pass").

    python examples/bot_server.py --port 8765 --secret YOUR_SECRET [--name MyBot] [--strategy heuristic] [--debug]
        [--version 1.1]

``--version`` is the version the ping reply reports (default "1.0"): the service records it with each match and
trial, so give a new one when you change the bot.

The secret can also come from the environment (BOT_SECRET). Register http://YOUR_HOST:8765/ as the endpoint.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# the engine's source in this repository (engine/src), for the house strategies when it is not installed
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine", "src"))

MAX_AGE_S = 300


def signature_ok(secret: str, body: bytes, timestamp: str | None, signature: str | None) -> bool:
    """The check every bot should make before trusting a request."""
    if (not timestamp or not signature or not re.fullmatch(r"[0-9]{1,12}", timestamp)  # ASCII digits only
            or abs(time.time() - int(timestamp)) > MAX_AGE_S):
        return False
    expected = "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def simple_strategy(view: dict, legal: list[dict]) -> dict:
    """First legal play (an eight declares the suit held most), else draw, else whatever is legal."""
    for action in legal:
        if action["type"] in ("declare", "announce"):
            return action
    plays = [a for a in legal if a["type"] == "play"]
    if plays:
        return plays[0]
    return next((a for a in legal if a["type"] == "draw"), legal[0])


def load_strategy(name: str):
    try:
        from eights_engine import Ruleset, choose
    except ImportError:
        return lambda view, legal, seed, ruleset: simple_strategy(view, legal)
    return lambda view, legal, seed, ruleset: choose(name, view, legal, seed, Ruleset.from_dict(ruleset))


def debug_note(request: dict, action: dict) -> str:
    """A short note on the turn for the bot's owner (the optional ``debug`` of a turn reply, at most 1000 characters;
    shown beside the turn in the owner's turn log, never to anyone else)."""
    view = request["view"]
    return (f"hand {' '.join(view['hand'])}; top {view['top_card']} (follow {view['active_suit']}); "
            f"{len(request['legal_actions'])} legal; chose {json.dumps(action, separators=(',', ':'))}")[:1000]


def make_handler(secret, name: str, strategy_name: str, debug: bool = False, version: str = "1.0"):
    """The request handler class; ``secret`` is the signing secret, or a function returning it (rotation);
    ``debug``: add a ``debug`` note to every turn reply (``debug_note``); ``version``: the version the ping reply
    reports, or a function returning it."""
    strategy = load_strategy(strategy_name)
    current_secret = secret if callable(secret) else (lambda: secret)
    current_version = version if callable(version) else (lambda: version)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the service reuses one connection
        disable_nagle_algorithm = True  # without it each reply waits ~40 ms for a delayed ACK

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if not signature_ok(current_secret(), body, self.headers.get("X-Eights-Timestamp"),
                                self.headers.get("X-Eights-Signature")):
                return self._reply(401, {"error": "bad signature"})
            request = json.loads(body)
            kind = request.get("type")
            if kind == "ping":
                return self._reply(200, {"name": name, "author": "Eights Ladder examples",
                                        "version": current_version()})
            if kind == "turn":
                view = request["view"]
                seed = request["match_id"] * 1000 + request["deal_number"]
                action = strategy(view, request["legal_actions"], seed, request["ruleset"])
                reply = {"action": action}
                if not any(entry.get("seat") == request["you"] for entry in view["history"]):
                    # our first turn in this deal: randomness of our own for the next deal's key (the first a deal
                    # counts; docs/BOT_PROTOCOL.md, "Contributions")
                    reply["contribution"] = secrets.token_hex(32)
                if debug:
                    reply["debug"] = debug_note(request, action)
                return self._reply(200, reply)
            if kind == "match_end":
                return self._reply(200, {})
            return self._reply(400, {"error": f"unknown request type {kind!r}"})

        def _reply(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args) -> None:  # quiet: one line per request is too much
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--secret", default=os.environ.get("BOT_SECRET", ""), help="the bot's signing secret")
    parser.add_argument("--name", default="ExampleBot")
    parser.add_argument("--strategy", default="heuristic", help="house strategy to play (random, eager, greedy, "
                        "heuristic, tactician, expert)")
    parser.add_argument("--debug", action="store_true", help="add a debug note to every turn reply (your turn log "
                        "shows it beside the turn)")
    parser.add_argument("--version", default="1.0", help="the version the ping reply reports (recorded with each "
                        "match and trial: give a new one when you change the bot)")
    args = parser.parse_args()
    if not args.secret:
        parser.error("give the signing secret with --secret or BOT_SECRET")
    if not 0 <= args.port <= 65535:
        parser.error("--port must be from 0 to 65535")
    server = ThreadingHTTPServer((args.host, args.port), make_handler(args.secret, args.name, args.strategy,
                                                                    args.debug, args.version))
    print(f"{args.name} listening on http://{args.host}:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
