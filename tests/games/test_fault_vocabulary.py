"""One vocabulary of faults (issue 22, 3d): every kind the service raises is in ``referee.FAULT_KINDS``, which says
what the public may read of it."""

from __future__ import annotations

import re
from pathlib import Path

from eights_engine.bots.protocol import FAULT_KINDS as PROTOCOL_KINDS
from eights_engine.referee import BOT_FAULT_KINDS, FAULT_KINDS, public_fault_text

ROOT = Path(__file__).resolve().parents[2]
RAISED = re.compile(r"""\b(?:BotFault|Fault)\(\s*["']([a-z_]+)["']""")


def test_every_fault_the_service_raises_is_in_the_referees_vocabulary():
    raised = {kind for package in ("games", "bots_api") for path in (ROOT / package).rglob("*.py")
              for kind in RAISED.findall(path.read_text())}
    assert raised and raised <= set(FAULT_KINDS), sorted(raised - set(FAULT_KINDS))
    assert PROTOCOL_KINDS == BOT_FAULT_KINDS and "clock" not in BOT_FAULT_KINDS


def test_the_public_never_reads_a_cause_that_may_quote_the_endpoint():
    cause = "redirect: Location https://secret-host.example/turn"
    assert "secret-host" not in public_fault_text("redirect", cause)
    assert public_fault_text("timeout", "timeout: no reply within 1000 ms") == "timeout: no reply within 1000 ms"
    assert public_fault_text("", "") == "" and public_fault_text("new_kind", "x") == "new_kind: the answer did not stand"
