"""The local runner (python -m eights_engine.bots.localrun): real HTTP bot servers on loopback, no database."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bot_servers import running

from eights_engine.bots import localrun

ROOT = Path(__file__).resolve().parents[2]


def run(argv: list[str]):
    args = localrun.parse_args(argv)
    out = io.StringIO()
    outcomes = localrun.run(args, out)
    return args, outcomes, out.getvalue()


def test_two_example_bots_play_full_matches_without_faults():
    with running("good", "s1", "One") as one, running("good", "s2", "Two") as two:
        args, outcomes, text = run([one, two, "--preset", "pagat", "--seed", "5", "--matches", "2",
                                    "--secrets", "s1,s2"])
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert outcome.forfeited is None and not outcome.faults
        assert max(outcome.totals) >= 100 and sorted(outcome.standings)[0] == 1
    assert outcomes[1].seating == [1, 0]  # seats rotate
    first, second = args.participants
    assert first.matches == second.matches == 2
    assert first.wins + second.wins >= 2
    assert first.calls > 20 and not first.faults and not second.faults
    assert "summary: 2 match(es)" in text and "latency p50" in text and "standings" in text


def test_plies_are_printed_on_request_and_house_seats_need_no_secret():
    with running("good", "s") as url:
        _, outcomes, text = run([url, "house:heuristic", "--preset", "web-table", "--seed", "3", "--secrets", "s,",
                                 "--plies"])
    assert outcomes[0].forfeited is None
    assert "d1 ply   0  seat 0" in text and "hands 6 7" in text
    assert "#2 house:heuristic" in text


def test_illegal_moves_are_faults_with_fallback_and_three_in_a_row_forfeit():
    with running("good", "s") as good, running("notheld", signed=False) as bad:
        args, outcomes, text = run([bad, good, "--preset", "pagat", "--seed", "1", "--secret", "s"])
    outcome = outcomes[0]
    assert outcome.forfeited == 0 and outcome.standings == [2, 1]
    assert len(outcome.faults) == 3
    broken, fine = args.participants
    assert broken.faults == {"illegal": 3} and broken.forfeits == 1 and broken.wins == 0
    assert not fine.faults and fine.wins == 1
    assert "does not hold the" in text and "-> fallback" in text and "FORFEIT seat 0" in text


def test_a_bot_sleeping_past_the_deadline_times_out_and_forfeits():
    with running("good", "s") as good, running("sleep:600", signed=False) as slow:
        args, outcomes, text = run([good, slow, "--preset", "pagat", "--seed", "2", "--secret", "s",
                                    "--timeout-ms", "150", "--time-bank-ms", "0"])
    assert outcomes[0].forfeited == 1
    assert args.participants[1].faults == {"timeout": 3}
    assert "timeout: no answer within 150 ms" in text


def test_the_time_bank_absorbs_one_slow_turn():
    with running("good", "s") as good, running("slowonce:300", signed=False) as slowish:
        args, outcomes, _ = run([slowish, good, "--preset", "pagat", "--seed", "4", "--secret", "s",
                                 "--timeout-ms", "150", "--time-bank-ms", "1000"])
    assert outcomes[0].forfeited is None
    assert not args.participants[0].faults
    assert max(args.participants[0].latencies) >= 250


@pytest.mark.parametrize("mode, kind", [("status:500", "http_status"), ("badjson", "bad_json")])
def test_other_faults_are_counted_by_kind(mode, kind):
    with running("good", "s") as good, running(mode, signed=False) as bad:
        args, outcomes, text = run([good, bad, "--preset", "pagat", "--seed", "1", "--secret", "s",
                                    "--max-faults", "0"])
    assert outcomes[0].forfeited is None  # --max-faults 0: never forfeit; the fallback plays the match out
    faults = args.participants[1].faults
    assert set(faults) == {kind} and faults[kind] == args.participants[1].calls > 3


def test_wrong_secret_is_an_http_status_fault():
    with running("good", "right") as url:
        args, outcomes, text = run([url, "house:random", "--preset", "pagat", "--seed", "1", "--secret", "wrong"])
    assert outcomes[0].forfeited == 0
    assert args.participants[0].faults == {"http_status": 3}
    assert "answered HTTP 401" in text


@pytest.mark.parametrize("argv, message", [
    (["house:random", "house:random", "--preset", "nope", "--seed", "1"], "unknown preset 'nope'"),
    (["house:random", "--preset", "pagat", "--seed", "1"], "1 players cannot play preset 'pagat'"),
    (["house:random"] * 3 + ["--preset", "hollywood", "--seed", "1"], "(it seats 2 to 2)"),
    (["ftp://bot.example.com/", "house:random", "--preset", "pagat", "--seed", "1", "--secret", "s"],
     "must start with http:// or https://"),
    (["house:random", "house:random", "--preset", "pagat", "--seed", "1", "--matches", "0"],
     "--matches must be at least 1"),
    (["house:wizard", "house:random", "--preset", "pagat", "--seed", "1"], "unknown house strategy 'wizard'"),
    (["http://127.0.0.1:1/", "house:random", "--preset", "pagat", "--seed", "1", "--secrets", "a,b,c"],
     "--secrets has 3 entries for 2 players"),
])
def test_bad_arguments_are_rejected_with_clear_messages(argv, message, capsys, monkeypatch):
    monkeypatch.delenv("BOT_SECRET", raising=False)
    with pytest.raises(SystemExit) as exc:
        localrun.parse_args(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bot_url_needs_a_secret(capsys, monkeypatch):
    monkeypatch.delenv("BOT_SECRET", raising=False)
    with pytest.raises(SystemExit):
        localrun.parse_args(["http://127.0.0.1:1/", "house:random", "--preset", "pagat", "--seed", "1"])
    assert "no signing secret for #1 http://127.0.0.1:1/" in capsys.readouterr().err


def test_runs_as_a_module_without_django_settings():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    with running("good", "s") as url:
        proc = subprocess.run([sys.executable, "-m", "eights_engine.bots.localrun", url, "house:greedy", "--preset",
                               "crazy-eights", "--seed", "9", "--secret", "s"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "summary: 1 match(es), preset crazy-eights" in proc.stdout
    assert "faults 0 (none)" in proc.stdout


def test_plies_show_the_bots_debug_note_and_a_warning_for_a_bad_one():
    from bot_servers import BotServer

    noted, numbered = BotServer("debug:kept the eight", "s"), BotServer("debugnum", "s")
    try:
        _, outcomes, text = run([noted.url, numbered.url, "--preset", "pagat", "--seed", "3", "--secret", "s",
                                 "--plies"])
    finally:
        noted.stop()
        numbered.stop()
    assert outcomes[0].forfeited is None and not outcomes[0].faults  # a bad debug is never a fault
    assert "seat 0" in text and "debug: kept the eight" in text
    assert "(warning: debug is a number, not a string" in text
