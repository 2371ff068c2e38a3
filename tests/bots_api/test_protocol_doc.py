"""docs/BOT_PROTOCOL.md cannot drift from the code: schemas, the signing example and the worked turn."""

from __future__ import annotations

import json
import re

import pytest

from eights_engine import MatchState, Ruleset

from bots_api import docgen
from eights_engine.bots.protocol import FAULT_KINDS
from eights_engine.bots.protocol import SCHEMAS, schema_errors, sign, verify

DOC = docgen.DOC.read_text()
BLOCKS = docgen.parse(DOC)


def _json(name: str):
    body = BLOCKS[name]
    assert body.startswith("```json\n") and body.endswith("```\n"), name
    return json.loads(body[len("```json\n"):-len("```\n")])


def test_every_schema_block_equals_the_code():
    for name, schema in SCHEMAS.items():
        assert f"schema:{name}" in BLOCKS, f"the doc has no schema block for {name}"
        assert _json(f"schema:{name}") == schema, f"the doc's {name} schema differs from eights_engine.bots.protocol"


def test_the_signing_example_verifies():
    fields = dict(re.findall(r"^([\w -]+?):\s+(.*)$", BLOCKS["signing"], re.M))
    secret, ts, body = fields["secret"], fields["X-Eights-Timestamp"], fields["raw body"].encode()
    signature = fields["X-Eights-Signature"]
    assert fields["string to sign"] == f"{ts}.{body.decode()}"
    assert sign(secret, body, int(ts))["X-Eights-Signature"] == signature
    assert verify(secret, body, ts, signature, now=int(ts) + 10)
    assert not verify(secret + "x", body, ts, signature, now=int(ts))
    digest = signature.removeprefix("sha256=")
    assert f"SHA2-256(stdin)= {digest}" in DOC  # the openssl line shows the same digest


def test_the_worked_turn_is_a_real_valid_turn_and_the_reply_is_legal():
    body, reply = _json("example:turn"), _json("example:turn_reply")
    assert schema_errors("turn", body) == []
    assert schema_errors("turn_reply", reply) == []
    state = MatchState.start(Ruleset.from_dict(body["ruleset"]), len(body["totals"]), docgen.EXAMPLE_SEED)
    for entry in body["view"]["history"]:
        state.apply({k: v for k, v in entry.items() if k != "seat"})
    assert state.to_play == body["you"] and state.view(body["you"]) == body["view"]
    assert state.legal_actions() == body["legal_actions"]
    state.deal.action_id(reply["action"])
    assert (body, reply) == docgen.example_turn()


def test_the_document_is_up_to_date():
    assert docgen.render(DOC) == DOC, "run python -m bots_api.docgen"


def test_the_fault_kinds_and_defaults_are_documented():
    for kind in FAULT_KINDS:
        assert f"| `{kind}` |" in DOC, kind
    for words in ("BOT_TURN_TIMEOUT_MS` = **1000 ms**", "BOT_TIME_BANK_MS` = **5000 ms**", "**3 consecutive faults**",
                  "**3 failed matches in a row**", "64 KiB", "python examples/bot_server.py --port 8765 --secret S",
                  "POST", "/api/bots/", "/verify/", "/ladders/demo/"):
        assert words in DOC, words


def test_the_fault_policy_in_the_doc_is_the_one_the_code_applies(settings):
    """What makes a match failed, how many suspend, what lifts a suspension (probation, the cool-off) and that
    checks look like real turns: the doc's words, the settings' defaults and the code's docstrings
    (bots_api.services, eights_engine.bots.check) say the same."""
    from eights_engine.bots import check as conformance
    from bots_api import services
    from config import settings as defaults

    policy = DOC[DOC.index("## Faults and the fault policy"):DOC.index("## Addresses")]
    assert f"**{defaults.BOT_SUSPEND_AFTER_FAILED_MATCHES} failed matches in a row**" in policy
    assert f"**{defaults.BOT_MAX_CONSECUTIVE_FAULTS} consecutive faults**" in policy
    share = defaults.BOT_FAILED_MATCH_FAULT_SHARE
    assert "`BOT_SUSPEND_AFTER_FAILED_MATCHES`" in policy
    assert (f"**faulted on at least {share:.0%} of its turns** in it (`BOT_FAILED_MATCH_FAULT_SHARE` = {share})"
            in policy)
    assert "only a **check that passes** lifts a suspension" in policy
    assert "at least ``BOT_FAILED_MATCH_FAULT_SHARE`` of its turns" in services.match_failed_by.__doc__
    assert "**one failed match suspends it again**" in " ".join(policy.split())
    assert "one short of ``BOT_SUSPEND_AFTER_FAILED_MATCHES``" in services.bot_check_run.__doc__
    minutes = defaults.BOT_SUSPENSION_COOLOFF_MINUTES
    assert f"**{minutes} minutes** for the second (`BOT_SUSPENSION_COOLOFF_MINUTES`)" in policy
    assert f"({2 * minutes}, {4 * minutes}, ... minutes)" in policy
    assert "**doubling with each further suspension**" in policy
    assert "doubled for each one\n    after it" in services.on_match_finished.__doc__
    assert "**cannot be told from real turns by design**" in policy
    assert "**Your bot must play every request properly**" in policy
    assert "cannot be told from a real turn by design" in " ".join(conformance.__doc__.split())
    assert "suspension is lifted" in services.bot_check_run.__doc__
    assert "Faults and the fault policy" in services.match_failed_by.__doc__


@pytest.mark.parametrize("timestamp", ["\u0661\u0662\u0663", "\uff11\uff12\uff13", "123\u00b2"])
def test_verify_takes_ascii_digit_timestamps_only(timestamp):
    """A timestamp of Arabic-Indic or fullwidth digits (which int() reads) or with a superscript (which isdigit()
    passes) is refused, never read as the ASCII number's signature (breaker F5)."""
    headers = sign("s", b"{}", 123)
    assert verify("s", b"{}", "123", headers["X-Eights-Signature"], now=123)
    assert not verify("s", b"{}", timestamp, headers["X-Eights-Signature"], now=123)
