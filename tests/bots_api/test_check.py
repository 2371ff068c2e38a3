"""The conformance checker (python -m bots_api.check): the reference bot passes, broken bots fail specifically."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tool_servers import broken_handler, good_bot, serve

from bots_api import check
from bots_api.protocol import schema_errors

ROOT = Path(__file__).resolve().parents[2]


def by_name(checks):
    return {c.name: c for c in checks}


def test_positions_are_what_they_claim():
    legal = {}
    for position in check.POSITIONS:
        rules, deal = position.build()
        body = check.position_body(rules, deal, 1000, 1)
        assert schema_errors("turn", body) == [], position.name
        legal[position.name] = body["legal_actions"]
    assert all(a["type"] == "play" and (a["card"][1] == "H" or a["card"][0] == "8")
               for a in legal["turn: declared suit"] if a["type"] != "draw")
    assert legal["turn: empty stock"] == [{"type": "pass"}]
    assert {"type": "draw"} not in legal["turn: draw limit reached"]
    assert legal["turn: only an eight"] == [{"type": "play", "card": "8D", "suit": s} for s in "CDHS"]
    assert legal["turn: pending two"] == [{"type": "play", "card": "2H"}, {"type": "draw"}]
    assert legal["turn: starter eight"] == [{"type": "declare", "suit": s} for s in "CDHS"]


def test_the_reference_bot_passes_every_check():
    with good_bot("s") as url:
        out = io.StringIO()
        assert check.main([url, "--secret", "s"], out=out) == 0
    text = out.getvalue()
    assert "FAIL" not in text and "WARN" not in text
    assert f"{check.TURN_CHECKS + 5} of {check.TURN_CHECKS + 5} checks passed: ready to register" in text


def test_a_bot_that_ignores_signatures_and_plays_illegal_cards_fails_specifically():
    with serve(broken_handler("illegal")) as url:
        checks = by_name(check.run_checks(url, "s", 1000))
    assert checks["ping"].status == "PASS"
    for name in ("bad signature", "stale timestamp", "no signature"):
        assert checks[name].status == "FAIL"
        assert "accepted" in checks[name].detail and "(HTTP 200)" in checks[name].detail
    for position in check.POSITIONS:
        detail = checks[position.name].detail
        assert checks[position.name].status == "FAIL" and "illegal action" in detail and "Legal here:" in detail
    assert "does not hold the AC" in checks["turn: opening"].detail
    assert "must first declare a suit" in checks["turn: starter eight"].detail
    assert "must draw the 2 penalty cards or answer with a two" in checks["turn: pending two"].detail


def test_an_eight_without_a_suit_and_a_late_answer_are_reported():
    with serve(broken_handler("no_suit")) as url:
        checks = by_name(check.run_checks(url, "s", 1000))
    eight = checks["turn: only an eight"]
    assert eight.status == "FAIL" and "needs a declared suit" in eight.detail
    assert checks["turn: empty stock"].status == "PASS"
    with serve(broken_handler("sleep_on_two", sleep_s=0.4)) as url:
        checks = by_name(check.run_checks(url, "s", 150))
    two = checks["turn: pending two"]
    assert two.status == "FAIL" and "past the 150 ms deadline" in two.detail
    assert checks["turn: opening"].status == "PASS"


@pytest.mark.parametrize("mode, words", [("status500", "answered HTTP 500"), ("bad_json", "the reply is not JSON")])
def test_broken_replies_fail_with_their_cause(mode, words):
    with serve(broken_handler(mode)) as url:
        out = io.StringIO()
        assert check.main([url, "--secret", "s"], out=out) == 1
    text = out.getvalue()
    assert "FAIL  turn: opening" in text and words in text


def test_a_wrong_secret_and_an_unreachable_bot():
    with good_bot("right") as url:
        checks = by_name(check.run_checks(url, "wrong", 1000))
    assert checks["ping"].status == "FAIL" and "rejected a correctly signed ping (HTTP 401)" in checks["ping"].detail
    assert checks["bad signature"].status == "PASS"
    with serve(broken_handler("illegal")) as url:
        pass  # the server is gone: nothing listens on that port now
    checks = by_name(check.run_checks(url, "s", 1000))
    assert checks["ping"].status == "FAIL" and checks["ping"].detail.startswith("connection:")
    assert checks["match_end"].status == "WARN"


def test_bad_arguments(capsys, monkeypatch):
    monkeypatch.delenv("BOT_SECRET", raising=False)
    with pytest.raises(SystemExit):
        check.main(["gopher://bot.example.com/", "--secret", "s"])
    assert "http:// or https://" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        check.main(["http://127.0.0.1:1/"])
    assert "give the signing secret" in capsys.readouterr().err


def test_runs_as_a_module_without_django_settings():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    with serve(broken_handler("illegal")) as url:
        proc = subprocess.run([sys.executable, "-m", "bots_api.check", url, "--secret", "s"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "FAIL  bad signature" in proc.stdout and "failed" in proc.stdout


@pytest.mark.parametrize("behaviour, words", [("debuglong", "1500 characters"), ("debugnum", "a number, not a string")])
def test_a_bad_debug_note_is_a_warning_not_a_failure(behaviour, words):
    from bot_servers import BotServer

    server = BotServer(behaviour, "s")
    try:
        checks = check.run_checks(server.url, "s", 1000)
    finally:
        server.stop()
    turns = [c for c in checks if c.name.startswith("turn: ") and "dealt match" not in c.name]
    assert turns and all(c.status == "WARN" and words in c.detail for c in turns)
    assert not [c for c in checks if c.status == "FAIL"]
