"""The starter kits (examples/javascript, examples/go) as real HTTP servers on loopback: each passes the
conformance checker (``eights_engine.bots.check``: signed ping, three requests it must refuse, every tricky turn, dealt
matches, match_end), refuses a badly signed request before reading it, and plays whole matches against a house
strategy without a fault (``eights_engine.bots.localrun``)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from eights_engine.bots import check, localrun
from eights_engine.bots.protocol import sign

ROOT = Path(__file__).resolve().parents[2]
SECRET = "kit-secret-\u00e9"  # a non-ASCII secret: the kit must key the HMAC with its UTF-8 bytes


@contextlib.contextmanager
def _kit_server(argv: list[str], cwd: Path):
    """Start ``argv`` (a kit, listening on a free loopback port) and yield its URL from its first output line; the
    process is stopped (by its own id) afterwards."""
    process = subprocess.Popen([*argv, "--port", "0", "--secret", SECRET, "--host", "127.0.0.1"], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()
    try:
        try:
            first = lines.get(timeout=30)
        except queue.Empty:
            first = ""
        assert " listening on http://127.0.0.1:" in first, (
            f"{argv[0]} did not start: {first!r} {process.stderr.read() if process.poll() is not None else ''}")
        yield first.split(" listening on ", 1)[1].strip()
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(scope="module")
def go_binary(tmp_path_factory) -> Path:
    if shutil.which("go") is None:
        pytest.skip("Go is not installed here (apt-get install golang-go; .ci/run installs it): the Go starter kit "
                    "is not checked")
    out = tmp_path_factory.mktemp("gokit") / "starter"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
    env.setdefault("GOCACHE", str(tmp_path_factory.mktemp("gocache")))
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=ROOT / "examples" / "go", env=env, check=True,
                   timeout=300, capture_output=True)
    return out


@pytest.fixture(params=["javascript", "go"])
def kit_url(request):
    if request.param == "javascript":
        node = shutil.which("node")
        if node is None:
            pytest.skip("Node is not installed here: the JavaScript starter kit is not checked")
        argv, cwd = [node, "bot.js"], ROOT / "examples" / "javascript"
    else:
        binary = request.getfixturevalue("go_binary")
        argv, cwd = [str(binary)], ROOT / "examples" / "go"
    with _kit_server(argv, cwd) as url:
        yield url


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, object]:
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json",
                                                                          **headers})
    try:
        with urllib.request.urlopen(req, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_kit_passes_every_conformance_check(kit_url):
    out = io.StringIO()
    status = check.main([kit_url, "--secret", SECRET], out=out)
    text = out.getvalue()
    assert status == 0, text
    assert "FAIL" not in text and "WARN" not in text, text
    assert f"{check.TURN_CHECKS + 5} of {check.TURN_CHECKS + 5} checks passed" in text, text


def test_the_kit_refuses_bad_signatures_and_answers_good_ones(kit_url):
    body = b'{"protocol":1,"type":"ping"}'
    assert _post(kit_url, body, sign(SECRET, body))[0] == 200
    assert _post(kit_url, body, sign("wrong", body))[0] == 401
    assert _post(kit_url, body, sign(SECRET, body, int(time.time()) - 301))[0] == 401
    assert _post(kit_url, body, {})[0] == 401
    other = b'{"protocol":1, "type":"ping"}'  # signed bytes differ from the sent bytes by one space
    assert _post(kit_url, other, sign(SECRET, body))[0] == 401
    unknown = b'{"protocol":1,"type":"hello"}'
    assert _post(kit_url, unknown, sign(SECRET, unknown))[0] == 400


def test_the_kit_plays_whole_matches_against_the_house_heuristic_without_a_fault(kit_url):
    args = localrun.parse_args([kit_url, "house:heuristic", "--preset", "eights-classic", "--seed", "3",
                                "--matches", "2", "--secrets", f"{SECRET},"])
    outcomes = localrun.run(args, io.StringIO())
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert outcome.forfeited is None and not outcome.faults, outcome.faults
    kit = args.participants[0]
    assert kit.calls > 10 and not kit.faults


@pytest.mark.parametrize("kit", ["python", "javascript", "go"])
def test_the_version_option_sets_the_pings_version(kit, request):
    import sys

    if kit == "python":
        argv, cwd = [sys.executable, "bot_server.py"], ROOT / "examples"
    elif kit == "javascript":
        if shutil.which("node") is None:
            pytest.skip("Node is not installed here: the JavaScript starter kit is not checked")
        argv, cwd = [shutil.which("node"), "bot.js"], ROOT / "examples" / "javascript"
    else:
        argv, cwd = [str(request.getfixturevalue("go_binary"))], ROOT / "examples" / "go"
    body = b'{"protocol":1,"type":"ping"}'
    for extra, version in (([], "1.0"), (["--version", "2.3-beta"], "2.3-beta")):
        with _kit_server([*argv, *extra], cwd) as url:
            assert _post(url, body, sign(SECRET, body))[1]["version"] == version, (kit, extra)
