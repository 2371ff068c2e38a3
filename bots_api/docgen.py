"""Keeps the generated parts of docs/BOT_PROTOCOL.md in step with the code.

    python -m bots_api.docgen            # rewrite the generated blocks in place
    python -m bots_api.docgen --check    # exit 1 if the document is out of date (tests run the same comparison)

Each generated block sits between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``: the JSON Schemas
(``schema:ping``, ``schema:ping_reply``, ``schema:turn``, ``schema:turn_reply``, ``schema:match_end``, from
``eights_engine.bots.protocol.SCHEMAS``), the signing example (``signing``) and a worked turn (``example:turn``,
``example:turn_reply``) produced by the engine for a real position. No Django needed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from eights_engine import MatchState, Ruleset, choose
from eights_engine.keys import deal_key_commitment
from eights_engine.referee import turn_for
from eights_engine.strategies import choose_turn, strategy_rng

from eights_engine.bots.protocol import SCHEMAS, sign, turn_request

DOC = Path(__file__).resolve().parent.parent / "docs" / "BOT_PROTOCOL.md"
BLOCK = re.compile(r"(<!-- generated:(?P<name>[\w:]+) -->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)", re.S)

SIGNING_SECRET = "s3cr3t-example"
SIGNING_TIMESTAMP = 1767225600
SIGNING_BODY = b'{"protocol":1,"type":"ping"}'

EXAMPLE_PRESET, EXAMPLE_SEED, EXAMPLE_PLIES = "pagat", 2032, 4
EXAMPLE_MATCH_ID, EXAMPLE_DEADLINE_MS, EXAMPLE_LAST_LATENCY_MS, EXAMPLE_BANK_MS = 1234, 1000, 12, 5000


def example_turn() -> tuple[dict, dict]:
    """A real ``turn`` body (pagat, 2 seats, seed 2032, after 4 plies of the house heuristic) and a reply."""
    rules = Ruleset.preset(EXAMPLE_PRESET)
    state = MatchState.start(rules, 2, EXAMPLE_SEED)
    for _ in range(EXAMPLE_PLIES):
        seat = state.to_play
        state.apply(choose("heuristic", state.view(seat), state.legal_actions(), state.deal.seed))
    turn = turn_for(state, match_id=EXAMPLE_MATCH_ID, deadline_ms=EXAMPLE_DEADLINE_MS,
                    last_latency_ms=EXAMPLE_LAST_LATENCY_MS, time_bank_ms=EXAMPLE_BANK_MS,
                    commitment=deal_key_commitment(state.deal.seed))
    body = turn_request(turn)
    reply = {"action": choose_turn("heuristic", turn, strategy_rng(state.deal.seed, turn.ply, turn.seat))}
    return body, reply


def signing_example() -> dict:
    headers = sign(SIGNING_SECRET, SIGNING_BODY, SIGNING_TIMESTAMP)
    return {"secret": SIGNING_SECRET, "timestamp": SIGNING_TIMESTAMP, "body": SIGNING_BODY.decode(),
            "signed_string": f"{SIGNING_TIMESTAMP}.{SIGNING_BODY.decode()}", "headers": headers}


def _json_block(value: object) -> str:
    return "```json\n" + json.dumps(value, indent=2) + "\n```\n"


def blocks() -> dict[str, str]:
    """Every generated block's text, by name."""
    out = {f"schema:{name}": _json_block(schema) for name, schema in SCHEMAS.items()}
    sig = signing_example()
    out["signing"] = (
        "```text\n"
        f"secret:             {sig['secret']}\n"
        f"X-Eights-Timestamp: {sig['timestamp']}\n"
        f"raw body:           {sig['body']}\n"
        f"string to sign:     {sig['signed_string']}\n"
        f"X-Eights-Signature: {sig['headers']['X-Eights-Signature']}\n"
        "```\n"
    )
    body, reply = example_turn()
    out["example:turn"] = _json_block(body)
    out["example:turn_reply"] = _json_block(reply)
    return out


def render(text: str) -> str:
    """``text`` with every generated block replaced by its current content (unknown names raise KeyError)."""
    generated = blocks()
    return BLOCK.sub(lambda m: m.group(1) + generated[m.group("name")] + m.group(4), text)


def parse(text: str) -> dict[str, str]:
    """The generated blocks of ``text`` by name, as they stand in the document."""
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = DOC.read_text()
    new = render(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC} is out of date: run python -m bots_api.docgen", file=sys.stderr)
            return 1
        return 0
    if new != text:
        DOC.write_text(new)
        print(f"updated {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
