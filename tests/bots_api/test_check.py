"""The conformance checker (python -m eights_engine.bots.check): the reference bot passes, broken bots fail
specifically."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from bot_servers import running

from eights_engine.bots import check
from eights_engine.bots.protocol import schema_errors, turn_request
from eights_engine import Ruleset
from eights_engine.referee import turn_for

ROOT = Path(__file__).resolve().parents[2]


def by_name(checks):
    return {c.name: c for c in checks}


def _situation_turn(match):
    """The state at the turn a check match is chosen for, the bot's earlier turns (one legal action each) played."""
    state = match.start()
    for _ in range(match.turns - 1):
        match.others_play()
        (forced,) = state.legal_actions()
        state.apply(forced)
    match.others_play()
    return state


@pytest.mark.parametrize("seed", range(4))
def test_every_situation_is_found_in_a_real_deal_and_is_what_it_claims(seed):
    rules = check.default_match_rules(1000)
    rng = random.Random(seed)
    found = {}
    for situation in check.SITUATIONS:
        match = check.plan_situation(situation, rules, rng)
        assert match is not None and 1 <= match.turns <= check.MAX_SITUATION_TURNS, situation.name
        state = _situation_turn(match)
        assert state.to_play == match.seat
        view, legal = state.view(match.seat), state.legal_actions()
        # a real deal: every card is somewhere, and the body is a turn's
        assert (sum(view["hand_counts"]) + view["stock_count"] + view["discard_count"]
                == match.rules.ruleset.deck_size(match.rules.seats))
        assert schema_errors("turn", turn_request(turn_for(state, match_id=1, deadline_ms=1000, time_bank_ms=0))) == []
        found[situation.name] = view, legal
    view, legal = found["turn: declared suit"]
    assert view["declared"]
    assert all(a["card"][1] == view["active_suit"] or a["card"][0] == "8" for a in legal if a["type"] == "play")
    assert found["turn: nothing to play or draw"][1] == [{"type": "pass"}]
    view, legal = found["turn: draw limit reached"]
    assert view["draws_left"] == 0 and {"type": "draw"} not in legal and any(a["type"] == "play" for a in legal)
    assert all(a["type"] == "play" and a["card"][0] == "8" and "suit" in a for a in found["turn: only an eight"][1])
    view, legal = found["turn: pending two"]
    assert view["pending_draw"] > 0 and all(a["card"][0] == "2" for a in legal if a["type"] == "play")
    assert found["turn: starter eight"][1] == [{"type": "declare", "suit": s} for s in "CDHS"]


def test_a_situation_no_rules_allow_is_left_out():
    pagat = [check.MatchRules("pagat", Ruleset.preset("pagat"), 2, 1000)]
    pending_two = next(s for s in check.SITUATIONS if s.name == "turn: pending two")
    assert check.plan_situation(pending_two, pagat, random.Random(1)) is None  # twos are off
    names = {m.name for m in check.plan_matches(pagat, random.Random(1))}
    assert "turn: pending two" not in names and "turn: nothing to play or draw" not in names
    assert {"turn: opening", "turn: declared suit", "turn: starter eight"} <= names


def test_the_reference_bot_passes_every_check():
    with running("good", "s") as url:
        out = io.StringIO()
        assert check.main([url, "--secret", "s"], out=out) == 0
    text = out.getvalue()
    assert "FAIL" not in text and "WARN" not in text
    assert f"{check.TURN_CHECKS + 5} of {check.TURN_CHECKS + 5} checks passed: ready to register" in text


def test_a_bot_that_ignores_signatures_and_plays_illegal_cards_fails_specifically():
    with running("notheld", signed=False) as url:
        checks = by_name(check.run_checks(url, "s", 1000))
    assert checks["ping"].status == "PASS"
    for name in ("bad signature", "stale timestamp", "no signature"):
        assert checks[name].status == "FAIL"
        assert "accepted" in checks[name].detail and "(HTTP 200)" in checks[name].detail
    for situation in check.SITUATIONS:
        detail = checks[situation.name].detail
        assert checks[situation.name].status == "FAIL" and "illegal action" in detail and "Legal here:" in detail
    assert "does not hold the" in checks["turn: opening"].detail
    assert "must first declare a suit" in checks["turn: starter eight"].detail  # always the bot's first turn


def test_an_eight_without_a_suit_and_a_late_answer_are_reported():
    with running("eightnosuit", signed=False) as url:
        checks = by_name(check.run_checks(url, "s", 1000))
    eight = checks["turn: only an eight"]
    assert eight.status == "FAIL" and "needs a declared suit" in eight.detail
    assert checks["turn: nothing to play or draw"].status == "PASS"
    with running("sleepontwo:400", signed=False) as url:
        checks = by_name(check.run_checks(url, "s", 150))
    two = checks["turn: pending two"]
    assert two.status == "FAIL" and "past the 150 ms deadline" in two.detail
    assert checks["turn: opening"].status == "PASS"


@pytest.mark.parametrize("mode, words", [("status:500", "answered HTTP 500"), ("badjson", "the reply is not JSON")])
def test_broken_replies_fail_with_their_cause(mode, words):
    with running(mode, signed=False) as url:
        out = io.StringIO()
        assert check.main([url, "--secret", "s"], out=out) == 1
    text = out.getvalue()
    assert "FAIL  turn: opening" in text and words in text


def test_a_wrong_secret_and_an_unreachable_bot():
    with running("good", "right") as url:
        checks = by_name(check.run_checks(url, "wrong", 1000))
    assert checks["ping"].status == "FAIL" and "rejected a correctly signed ping (HTTP 401)" in checks["ping"].detail
    assert checks["bad signature"].status == "PASS"
    with running("notheld", signed=False) as url:
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
    with running("notheld", signed=False) as url:
        proc = subprocess.run([sys.executable, "-m", "eights_engine.bots.check", url, "--secret", "s"], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=60)
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


def test_turns_that_all_wait_for_a_delayed_ack_get_a_hint_about_nagles_algorithm():
    """A real server with Nagle's algorithm on (every reply ~40 ms on Linux) passes, with a hint naming the cause;
    the same bot with TCP_NODELAY gets none."""
    with running("nagle") as url:
        checks = check.run_checks(url, "s3cret", 1000)
    turns = sorted(c.elapsed_ms for c in checks if c.name.startswith("turn"))
    assert all(c.status == "PASS" for c in checks) and turns[1] >= 35, turns  # (a new connection's first is quick)
    hint = check.slow_turns_hint(checks)
    assert hint is not None and "Nagle" in hint and "TCP_NODELAY" in hint
    out = io.StringIO()
    check.report(url, 1000, checks, out)
    assert "Hint: " in out.getvalue() and " turns took " in out.getvalue()
    with running("good") as url:
        assert check.slow_turns_hint(check.run_checks(url, "s3cret", 1000)) is None


def test_the_nagle_hint_needs_every_timed_turn_in_its_band():
    def turns(*ms):
        return [check.Check(f"turn: {i}", "PASS", "", elapsed_ms=t) for i, t in enumerate(ms)]
    assert check.slow_turns_hint(turns(41, 44, 39)) is not None
    assert check.slow_turns_hint(turns(41, 44)) is None  # too few to say
    assert check.slow_turns_hint(turns(1, 41, 44, 39)) is not None  # a new connection's first reply is ACKed at once
    assert check.slow_turns_hint(turns(41, 44, 3, 2)) is None  # fast turns: the server can answer at once
    assert check.slow_turns_hint(turns(41, 44, 250)) is None  # a bot that thinks
    assert check.slow_turns_hint([*turns(41, 44, 39), check.Check("ping", "PASS", "", elapsed_ms=0)]) is not None
