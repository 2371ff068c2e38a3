"""Bot protocol v1 (DESIGN.md): the JSON bodies, their JSON Schemas, and the request signature.

Every request is a POST of a JSON object with ``"protocol": 1`` and a ``"type"`` (``ping``, ``turn``,
``match_end``), signed with headers ``X-Eights-Timestamp`` (unix seconds) and ``X-Eights-Signature:
sha256=<hex HMAC-SHA256 of "{timestamp}.{raw body}" keyed by the bot's secret>``. The schemas below are the
contract: the tests validate every body the service sends against them, and replies are checked against the
reply schemas (a mismatch is the bot's ``schema`` fault). docs/BOT_PROTOCOL.md explains them with examples.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
import unicodedata

from jsonschema import Draft202012Validator

from eights_engine.keys import CONTRIBUTION_PATTERN
from eights_engine.referee import BOT_FAULT_KINDS

PROTOCOL_VERSION = 1
#: Every way a bot call can fail; stored on the move (``Move.fault_kind``) with the cause in words. The vocabulary is
#: the referee's (``eights_engine.referee.FAULT_KINDS``, with what the public reads of each).
FAULT_KINDS = BOT_FAULT_KINDS


class BotFault(Exception):
    """A bot failed a call: ``kind`` (one of ``FAULT_KINDS``), ``cause`` (words for the owner), ``elapsed_ms``."""

    def __init__(self, kind: str, cause: str, elapsed_ms: int = 0) -> None:
        super().__init__(f"{kind}: {cause}")
        self.kind = kind
        self.cause = cause
        self.elapsed_ms = elapsed_ms


MAX_BODY_BYTES = 64 * 1024
SIGNATURE_MAX_AGE_S = 300  # bots should reject timestamps older than this (replays)

_CARD = {"type": "string", "pattern": "^[A2-9TJQK][CDHS]$"}
_SUIT = {"type": "string", "enum": ["C", "D", "H", "S"]}
ACTION_SCHEMA = {
    "type": "object",
    "oneOf": [
        {"properties": {"type": {"const": "play"}, "card": _CARD, "suit": _SUIT},
         "required": ["type", "card"], "additionalProperties": False},
        {"properties": {"type": {"enum": ["draw", "pass", "announce"]}}, "required": ["type"],
         "additionalProperties": False},
        {"properties": {"type": {"const": "declare"}, "suit": _SUIT}, "required": ["type", "suit"],
         "additionalProperties": False},
    ],
}
_SEAT = {"type": "integer", "minimum": 0, "maximum": 7}
VIEW_SCHEMA = {
    "type": "object",
    "required": ["seat", "to_play", "hand", "hand_counts", "top_card", "active_suit", "declared", "stock_count",
                 "discard_count", "draws_left", "pending_draw", "direction", "history"],
    "properties": {
        "seat": _SEAT, "to_play": {"oneOf": [_SEAT, {"type": "null"}]}, "dealer": _SEAT,
        "hand": {"type": "array", "items": _CARD},
        "hand_counts": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "top_card": {"oneOf": [_CARD, {"type": "null"}]}, "active_suit": {"oneOf": [_SUIT, {"type": "null"}]},
        "declared": {"type": "boolean"}, "stock_count": {"type": "integer", "minimum": 0},
        "discard_count": {"type": "integer", "minimum": 0},
        "draws_left": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        "drawn_card": {"oneOf": [_CARD, {"type": "null"}]},
        "pending_draw": {"type": "integer", "minimum": 0}, "direction": {"enum": [1, -1]},
        "history": {"type": "array", "items": {"type": "object", "required": ["seat", "type"]}},
        "totals": {"type": "array", "items": {"type": "integer"}},
        "deal_number": {"type": "integer", "minimum": 1}, "target": {"type": "integer"},
    },
}
_ENVELOPE = {"protocol": {"const": PROTOCOL_VERSION}}
PING_SCHEMA = {"type": "object", "required": ["protocol", "type"],
               "properties": {**_ENVELOPE, "type": {"const": "ping"}}}
PING_REPLY_SCHEMA = {"type": "object", "required": ["name", "author", "version"],
                     "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100},
                                    "author": {"type": "string", "maxLength": 100},
                                    "version": {"type": "string", "maxLength": 100}}}
TURN_SCHEMA = {
    "type": "object",
    "required": ["protocol", "type", "match_id", "deal_number", "ply", "you", "view", "legal_actions", "ruleset",
                 "totals", "deadline_ms", "last_latency_ms"],
    "properties": {
        **_ENVELOPE, "type": {"const": "turn"}, "match_id": {"type": "integer"},
        "deal_number": {"type": "integer", "minimum": 1}, "ply": {"type": "integer", "minimum": 0}, "you": _SEAT,
        "view": VIEW_SCHEMA, "legal_actions": {"type": "array", "minItems": 1, "items": ACTION_SCHEMA},
        "ruleset": {"type": "object"}, "totals": {"type": "array", "items": {"type": "integer"}},
        "deadline_ms": {"type": "integer", "minimum": 1},
        "last_latency_ms": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        "time_bank_ms": {"type": "integer", "minimum": 0},
        "commitment": {"oneOf": [{"type": "string", "pattern": "^[0-9a-f]{64}$"}, {"type": "null"}]},
    },
}
#: The optional ``debug`` string of a turn reply: at most this many characters (bot's notes for its owner only).
DEBUG_MAX_CHARS = 1000
#: The optional ``contribution`` of a turn reply: 1 to 32 bytes as lowercase hex (docs/FAIRNESS.md).
CONTRIBUTION_RE = re.compile(CONTRIBUTION_PATTERN)
TURN_REPLY_SCHEMA = {"type": "object", "required": ["action"],
                     "properties": {"action": ACTION_SCHEMA,
                                    "debug": {"type": "string", "maxLength": DEBUG_MAX_CHARS},
                                    "contribution": {"type": "string", "pattern": f"^{CONTRIBUTION_PATTERN}$",
                                                     "description": "randomness of the bot's own for the key of the "
                                                                    "match's next deal (docs/FAIRNESS.md)"}}}
#: What decides a fault: the turn reply schema without ``debug`` and ``contribution`` (a bad one of those is a
#: warning in the turn log, never a fault).
_TURN_REPLY_PLAY_SCHEMA = {"type": "object", "required": ["action"], "properties": {"action": ACTION_SCHEMA}}
MATCH_END_SCHEMA = {
    "type": "object",
    "required": ["protocol", "type", "match_id", "you", "totals", "standings", "forfeited"],
    "properties": {**_ENVELOPE, "type": {"const": "match_end"}, "match_id": {"type": "integer"}, "you": _SEAT,
                   "totals": {"type": "array", "items": {"type": "integer"}},
                   "standings": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                   "forfeited": {"type": "array", "items": _SEAT}},
}
SCHEMAS = {"ping": PING_SCHEMA, "ping_reply": PING_REPLY_SCHEMA, "turn": TURN_SCHEMA,
           "turn_reply": TURN_REPLY_SCHEMA, "match_end": MATCH_END_SCHEMA}
_VALIDATORS = {name: Draft202012Validator(schema) for name, schema in SCHEMAS.items()}
_VALIDATORS["turn_reply_play"] = Draft202012Validator(_TURN_REPLY_PLAY_SCHEMA)


def printable(text: object, limit: int = 100) -> str:
    """``text`` as the service keeps a string a bot sent (its ping's name or version): control, format and other
    category-C characters dropped, at most ``limit`` characters."""
    return "".join(ch for ch in str(text) if not unicodedata.category(ch).startswith("C"))[:limit]


def schema_errors(name: str, body: object) -> list[str]:
    """Messages for every way ``body`` breaks schema ``name`` (empty when it conforms)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
            for e in _VALIDATORS[name].iter_errors(body)]


def reply_debug(reply: object) -> tuple[str, str]:
    """The optional ``debug`` string of a turn reply and a warning about it: ``(debug, warning)``.

    ``debug`` is the bot's own note for its owner (shown beside the turn in the turn log, never to anyone else):
    "" when absent; a string over ``DEBUG_MAX_CHARS`` characters is cut to that length. ``warning`` is "" when the
    debug is absent or fine, else words for the owner ("debug is 1500 characters; at most 1000 are kept", "debug
    is a number, not a string: not kept"). A bad debug never costs the bot its turn: the action is judged alone.
    """
    if not isinstance(reply, dict) or "debug" not in reply or reply["debug"] is None:
        return "", ""
    debug = reply["debug"]
    if not isinstance(debug, str):
        kind = {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
            type(debug), type(debug).__name__)
        return "", f"debug is {kind}, not a string: not kept (send a string of at most {DEBUG_MAX_CHARS} characters)"
    if len(debug) > DEBUG_MAX_CHARS:
        return debug[:DEBUG_MAX_CHARS], (f"debug is {len(debug)} characters; only the first {DEBUG_MAX_CHARS} are "
                                         "kept")
    return debug, ""


def reply_contribution(reply: object) -> tuple[bytes | None, str]:
    """The optional ``contribution`` of a turn reply and a warning about it: ``(bytes or None, warning)``.

    A contribution is randomness of the bot's own, 1 to 32 bytes written as 2 to 64 lowercase hex digits: the
    service mixes a seat's first contribution during a deal into the key of the match's next deal (docs/FAIRNESS.md,
    "Contributions"). Anything else is ignored (None) with a warning for the owner's turn log, never a fault.
    """
    if not isinstance(reply, dict) or reply.get("contribution") is None:
        return None, ""
    given = reply["contribution"]
    if not isinstance(given, str):
        return None, "contribution is not a string: ignored (send 2 to 64 lowercase hex digits)"
    if not CONTRIBUTION_RE.fullmatch(given):
        why = (f"{len(given)} hex digits" if given and all(c in "0123456789abcdef" for c in given)
               else "not lowercase hex")
        return None, f"contribution is {why}: ignored (send 2 to 64 lowercase hex digits, 1 to 32 bytes)"
    return bytes.fromhex(given), ""


def sign(secret: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The two signature headers for ``body`` (raw bytes) at ``timestamp`` (unix seconds, default now)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
    return {"X-Eights-Timestamp": ts, "X-Eights-Signature": f"sha256={digest}"}


def verify(secret: str, body: bytes, timestamp: str | None, signature: str | None,
           max_age_s: int = SIGNATURE_MAX_AGE_S, now: float | None = None) -> bool:
    """What a bot does with a request: True when the signature matches and the timestamp is fresh."""
    if not timestamp or not signature or not re.fullmatch(r"[0-9]{1,12}", timestamp):  # ASCII: int() reads "١٢"
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > max_age_s:
        return False
    expected = sign(secret, body, int(timestamp))["X-Eights-Signature"]
    return hmac.compare_digest(expected, signature)


def ping_body() -> dict:
    return {"protocol": PROTOCOL_VERSION, "type": "ping"}


def turn_body(*, match_id: int, deal_number: int, ply: int, seat: int, view: dict, legal_actions: list[dict],
              ruleset: dict, totals: list[int], deadline_ms: int, last_latency_ms: int | None,
              time_bank_ms: int, commitment: str | None = None) -> dict:
    """The ``turn`` request: the seat's view (exactly what a human at that seat sees), legal actions, deadline, and
    the deal's ``commitment`` (docs/FAIRNESS.md: SHA-256 of the deal's seed and a secret salt, opened in the match
    record once the match is finished; null for a deal stored before commitments)."""
    return {"protocol": PROTOCOL_VERSION, "type": "turn", "match_id": match_id, "deal_number": deal_number,
            "ply": ply, "you": seat, "view": view, "legal_actions": legal_actions, "ruleset": ruleset,
            "totals": list(totals), "deadline_ms": deadline_ms, "last_latency_ms": last_latency_ms,
            "time_bank_ms": time_bank_ms, "commitment": commitment}


def turn_request(turn) -> dict:
    """The ``turn`` request for a referee ``Turn`` (``eights_engine.referee``): everything in it is the turn's, so a
    bot gets exactly what the seat's turn holds. The turn must carry ``match_id``, ``deadline_ms`` (1 or more) and
    ``time_bank_ms``; ``ValueError`` otherwise."""
    if turn.match_id is None or not turn.deadline_ms or turn.time_bank_ms is None:
        raise ValueError("a bot's turn needs its match_id, deadline_ms (1 or more) and time_bank_ms")
    return turn_body(match_id=turn.match_id, deal_number=turn.deal_number, ply=turn.ply, seat=turn.seat,
                     view=turn.view, legal_actions=list(turn.legal_actions), ruleset=turn.ruleset.to_dict(),
                     totals=list(turn.totals), deadline_ms=turn.deadline_ms, last_latency_ms=turn.last_latency_ms,
                     time_bank_ms=turn.time_bank_ms, commitment=turn.commitment)


def match_end_body(*, match_id: int, seat: int, totals: list[int], standings: list[int],
                   forfeited: list[int]) -> dict:
    return {"protocol": PROTOCOL_VERSION, "type": "match_end", "match_id": match_id, "you": seat,
            "totals": list(totals), "standings": list(standings), "forfeited": list(forfeited)}
