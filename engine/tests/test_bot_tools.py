"""The bot tools with the engine alone (issue 26, item 1): the conformance check and localrun, run as the commands
the package installs (``eights-check``, ``eights-localrun``), against the repository's example bot
(examples/bot_server.py, Python's standard library only) on loopback: no database, no Django, no service."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="the bot tools need the [bots] extra")
pytest.importorskip("jsonschema", reason="the bot tools need the [bots] extra")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bot_server.py"
SCRIPTS = Path(sys.executable).parent  # where pip put the package's commands


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def example_bot():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(EXAMPLE), "--port", str(port), "--secret", "s3cret",
                             "--name", "Example"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the example bot did not start"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _run(command: str, *args: str) -> subprocess.CompletedProcess:
    path = SCRIPTS / command
    assert path.exists(), f"the package installs no {command} command in {SCRIPTS}"
    return subprocess.run([str(path), *args], capture_output=True, text=True, timeout=300)


def test_the_conformance_check_passes_the_example_bot(example_bot):
    done = _run("eights-check", example_bot, "--secret", "s3cret")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and "FAIL" not in done.stdout


def test_the_conformance_check_fails_a_wrong_secret(example_bot):
    done = _run("eights-check", example_bot, "--secret", "not-the-secret")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL" in done.stdout


def test_localrun_plays_the_example_bot_against_a_house_strategy(example_bot):
    done = _run("eights-localrun", example_bot, "house:heuristic", "--preset", "pagat", "--seed", "3",
                "--matches", "2", "--secrets", "s3cret,")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "summary: 2 match(es)" in done.stdout and "standings" in done.stdout


def test_the_engine_command_simulates_and_replays(tmp_path):
    done = _run("eights-engine", "simulate", "--preset", "web-table", "--matches", "3", "--strategies",
                "heuristic,random")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "heuristic" in done.stdout


def test_the_engine_proper_imports_nothing_of_the_bot_tools():
    """Every module outside eights_engine.bots runs on Python's standard library alone (no httpx, no jsonschema)."""
    code = ("import importlib, pkgutil, sys, eights_engine\n"
            "for info in pkgutil.iter_modules(eights_engine.__path__):\n"
            "    if not info.ispkg: importlib.import_module('eights_engine.' + info.name)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'jsonschema', 'django')"
            " or m.startswith('eights_engine.bots'))\n"
            "print(','.join(bad))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout + done.stderr


def test_without_the_bots_extra_the_tools_say_which_extra_to_install():
    """Found by a newcomer's trial: after a bare ``pip install ./engine`` the commands ended in a bare traceback."""
    code = ("import sys; sys.modules['httpx'] = None\n"  # as if httpx were not installed
            "try:\n    import eights_engine.bots.check\n"
            "except ModuleNotFoundError as exc:\n    print(exc)")
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "eights-engine[bots]" in said.stdout and "httpx" in said.stdout, (said.stdout, said.stderr)
