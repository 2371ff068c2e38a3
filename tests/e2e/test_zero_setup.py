"""The zero-setup configuration of `make run` for real: a SQLite file, no broker, and the processes of Procfile.dev
(the web server, the ladder loop `ladder_run --forever` and the two example HTTP bots) started as separate
processes, while a person plays whole matches over the API and at the browser table. Nothing may answer 5xx, the
ladder loop must stay alive and keep finishing its own matches (issue 8, finding 1: the loop died with
"database is locked" and Play now answered 500).

The child processes run `config.settings` with no DATABASE_URL and no CELERY_BROKER_URL (the suite's own settings
force PostgreSQL), on a temporary EIGHTS_VAR_DIR, on free ports; the test reads the SQLite file only to count.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from web_servers import wait_healthy

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.zero_setup
#: The children's SQLite busy timeout (s): shorter than the default 20 so the last test can outlast it quickly.
BUSY_TIMEOUT = 5
#: A guest's move clock in the children (s): short, so the test sees an abandoned guest match ended by the loop.
GUEST_CLOCK = 12


def _free_port(pairs: int = 1) -> int:
    """A free port whose next ``pairs - 1`` ports are free too (the demo bots take DEMO_BOT_PORT and the next)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + pairs > 65535:
            continue
        try:
            for extra in range(1, pairs):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port + extra))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port")


class ZeroSetup:
    """The running stack: ``url`` of the web server, ``procs`` (Procfile.dev name -> Popen), ``db`` (the SQLite
    file), ``logs`` (name -> log file)."""

    def __init__(self, var: Path):
        self.var = var
        self.db = var / "eights.sqlite3"
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, Path] = {}
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG")}
        env.update(DJANGO_SETTINGS_MODULE="config.settings", EIGHTS_VAR_DIR=str(var), EIGHTS_BIND=f"127.0.0.1:{port}",
                   DEMO_BOT_PORT=str(_free_port(2)), DEMO_BOT_SECRET="zero-setup-test-secret",
                   PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                   SQLITE_TIMEOUT_SECONDS=str(BUSY_TIMEOUT), PYTHONUNBUFFERED="1",
                   GUEST_MOVE_SECONDS=str(GUEST_CLOCK), GUEST_HOUSEKEEPING_SECONDS="5")
        self.env = env

    def run(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def start(self, name: str) -> None:
        """Start the Procfile.dev process ``name`` exactly as honcho would (its line, through the shell)."""
        lines = dict(line.split(":", 1) for line in (ROOT / "Procfile.dev").read_text().splitlines()
                     if re.match(r"^\w+:", line))
        self.logs[name] = self.var / f"{name}.log"
        out = open(self.logs[name], "wb")
        self.procs[name] = subprocess.Popen(["/bin/sh", "-c", lines[name].strip()], cwd=ROOT, env=self.env,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def log(self, name: str) -> str:
        return self.logs[name].read_text(errors="replace")

    def alive(self, name: str) -> bool:
        return self.procs[name].poll() is None

    def count(self, sql: str, *params) -> int:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30) as conn:
            return conn.execute(sql, params).fetchone()[0]

    def bot_matches_finished(self) -> int:
        """Finished ladder matches with no person seated: the ladder loop's own work."""
        return self.count("SELECT count(*) FROM games_match m JOIN tournaments_laddermatch l ON l.match_id = m.id "
                          "WHERE m.status = 'finished' AND NOT EXISTS (SELECT 1 FROM games_seat s JOIN games_player p "
                          "ON p.id = s.player_id WHERE s.match_id = m.id AND p.kind = 'human')")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            try:  # the shell may be gone while its child lives on in the group: never leave one running
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """`make run`'s zero-setup stack on a fresh SQLite file: the demo ladder (to 100) and a short ladder `quick`
    (to 10, one match at a time) for the browser, the example bots registered, then the web server and the loop."""
    z = ZeroSetup(tmp_path_factory.mktemp("zero-setup"))
    try:
        z.run("migrate", "--noinput")
        z.run("demo_setup")
        z.run("demo_setup", "--slug", "quick", "--target", "10", "--max-running", "1")
        z.start("bot1")
        z.start("bot2")
        z.run("demo_bots", "--wait", "60")  # the example bots may take a while to start on a loaded machine
        z.start("web")
        z.start("ladder")
        wait_healthy(z.url, 30, log=lambda: z.log("web"))
        yield z
    finally:
        z.stop()


def _sign_up(client: httpx.Client, username: str, password: str) -> None:
    """Sign up on the page (the way a person does), as a logged-in session in ``client``."""
    client.get("/accounts/signup/")
    reply = client.post("/accounts/signup/", data={"username": username, "password1": password,
                                                   "password2": password,
                                                   "csrfmiddlewaretoken": client.cookies["csrftoken"]})
    assert reply.status_code == 302, reply.text[:500]


def _choose(legal: list[dict]) -> dict:
    """A plain player's choice: the first playable card (an eight with its first suit), else draw, else the rest."""
    for kind in ("play", "announce", "draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


def _assert_no_5xx(stack: ZeroSetup, seen: list[tuple[str, int, str]]) -> None:
    errors = [s for s in seen if s[1] >= 500]
    assert not errors, f"{len(errors)} server errors, e.g. {errors[:3]}\nweb log tail:\n{stack.log('web')[-3000:]}"


def _assert_loop_alive(stack: ZeroSetup, clean: bool = True) -> None:
    assert stack.alive("ladder"), f"the ladder loop died:\n{stack.log('ladder')[-4000:]}"
    for name in ("web", "bot1", "bot2"):
        assert stack.alive(name), f"{name} died:\n{stack.log(name)[-2000:]}"
    if clean:  # nothing went wrong on the way, not even something the loop survived
        for name in ("ladder", "web"):
            assert not re.search(r"Traceback|database is locked|carrying on|trying again", stack.log(name)), \
                stack.log(name)[-4000:]


def test_a_person_plays_a_whole_match_over_the_api_while_the_ladder_plays_on(stack):
    seen: list[tuple[str, int, str]] = []

    def record(response: httpx.Response) -> None:
        response.read()
        seen.append((f"{response.request.method} {response.request.url.path}", response.status_code,
                     response.text[:200] if response.status_code >= 500 else ""))

    bots_before = stack.bot_matches_finished()
    started = time.monotonic()
    with httpx.Client(base_url=stack.url, timeout=30, event_hooks={"response": [record]}) as web:
        _sign_up(web, "api-player", "a-long-pass-9876")
    with httpx.Client(base_url=stack.url, timeout=30, event_hooks={"response": [record]}) as api:
        token = api.post("/api/auth/token/", json={"username": "api-player", "password": "a-long-pass-9876"})
        assert token.status_code == 200, token.text
        api.headers["Authorization"] = f"Token {token.json()['token']}"
        play = api.post("/api/ladders/demo/play/", json={"match_with": "bots"})
        assert play.status_code == 201, play.text
        match_id, seat = play.json()["match_id"], play.json()["seat"]
        moves, waits, moved_at = 0, [], time.monotonic()
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            view = api.get(f"/api/matches/{match_id}/seats/{seat}/")
            assert view.status_code == 200, view.text[:300]
            body = view.json()
            if body["status"] != "running":
                break
            if not body["your_turn"]:
                time.sleep(0.05)
                continue
            waits.append(time.monotonic() - moved_at)  # from our last move to our turn again: the bots' answer
            move = api.post(f"/api/matches/{match_id}/seats/{seat}/actions/",
                            json={"ply": body["ply"], "action": _choose(body["legal_actions"])})
            assert move.status_code in (200, 409), move.text[:300]  # 409: the position moved on; look again
            moves += move.status_code == 200
            moved_at = time.monotonic()
    took = time.monotonic() - started
    waits.sort()
    _assert_no_5xx(stack, seen)
    assert body["status"] == "finished", f"the match did not finish in time ({moves} moves in {took:.0f} s)"
    assert body["deals_finished"] >= 1 and moves >= 10
    _assert_loop_alive(stack)
    assert stack.bot_matches_finished() > bots_before, "the ladder stopped finishing its own matches"
    print(f"api: a whole match of {moves} moves in {took:.1f} s; the bots' answer took {waits[len(waits) // 2]:.2f} s "
          f"(median), {waits[len(waits) * 95 // 100]:.2f} s (p95); {len(seen)} requests, none 5xx; "
          f"{stack.bot_matches_finished() - bots_before} bot matches finished meanwhile")


@pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                    reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_person_plays_a_whole_match_at_the_browser_table_while_the_ladder_plays_on(stack, monkeypatch):
    playwright_api = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    bots_before = stack.bot_matches_finished()
    seen: list[tuple[str, int, str]] = []
    started = time.monotonic()
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.on("response", lambda r: seen.append((f"{r.request.method} {r.url}", r.status, "")))
            page.on("dialog", lambda d: d.dismiss())
            page.goto(f"{stack.url}/accounts/signup/?next=/ladders/quick/")
            page.fill("#id_username", "table-player")
            page.fill("#id_password1", "a-long-pass-9876")
            page.fill("#id_password2", "a-long-pass-9876")
            page.click("text=Create my account")
            page.wait_for_url(re.compile(r".*/ladders/quick/$"))
            page.select_option("select[name=match_with]", "bots")
            page.click("button:has-text('Play now')")
            page.wait_for_url(re.compile(r".*/matches/\d+/play/$"), timeout=30000)
            table = "document.querySelector('#table')"
            over = "document.querySelector('#turn').textContent.includes('The match is over')"
            moves = 0
            while time.monotonic() - started < 150:
                page.wait_for_function(f"() => {table}.dataset.yourTurn === 'yes' || {over}", timeout=30000)
                if page.evaluate(over):
                    break
                shown = page.evaluate(f"{table}.dataset.ply")
                eights = page.locator("#hand .card.playable[data-card^='8']")
                playable = page.locator("#hand .card.playable")
                if playable.count():
                    (eights if eights.count() else playable).first.click()
                    if page.locator("#suit-picker[open]").count():
                        page.click("#suit-picker button[data-suit='H']")
                elif page.locator("#draw:not([disabled])").count():
                    page.click("#draw")
                elif page.locator("#announce:not([hidden])").count():
                    page.click("#announce")
                else:
                    page.click("#pass")
                moves += 1
                page.wait_for_function(f"() => {table}.dataset.ply !== '{shown}' || {over}", timeout=30000)
            assert page.evaluate(over), f"the match did not finish in time ({moves} moves)"
            assert "network trouble" not in page.inner_text("#message")
        finally:
            browser.close()
    took = time.monotonic() - started
    _assert_no_5xx(stack, seen)
    assert moves >= 5
    _assert_loop_alive(stack)
    assert stack.bot_matches_finished() > bots_before, "the ladder stopped finishing its own matches"
    print(f"browser: a whole match of {moves} moves in {took:.1f} s, no 5xx")


def test_a_guest_deals_and_plays_with_no_account_and_the_loop_ends_what_the_guest_leaves(stack):
    """Issue 10: with no setup at all (SQLite, no broker) a stranger presses Deal on the home page and plays a whole
    deal over the seat API with the session cookie alone; the ladder loop answers for the bots, and its housekeeping
    ends the guest's match once it is left alone past the guest move clock (aborted, unrated)."""
    seen: list[tuple[str, int, str]] = []

    def record(response: httpx.Response) -> None:
        response.read()
        seen.append((f"{response.request.method} {response.request.url.path}", response.status_code,
                     response.text[:200] if response.status_code >= 500 else ""))

    started = time.monotonic()
    with httpx.Client(base_url=stack.url, timeout=30, event_hooks={"response": [record]}) as web:
        assert "Play now as a guest" in web.get("/").text
        deal = web.post("/play/guest/", data={"preset": "web-table", "seats": "2",
                                               "csrfmiddlewaretoken": web.cookies["csrftoken"]})
        assert deal.status_code == 302, deal.text[:500]
        match_id = int(re.search(r"/matches/(\d+)/play/", deal.headers["location"])[1])
        assert web.get(deal.headers["location"]).status_code == 200
        headers = {"X-CSRFToken": web.cookies["csrftoken"]}
        first_turn, moves, body = None, 0, {}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            body = web.get(f"/api/matches/{match_id}/seats/0/").json()
            if body["status"] != "running" or body["deals_finished"] >= 1:
                break
            if not body["your_turn"]:
                time.sleep(0.05)
                continue
            first_turn = first_turn or time.monotonic() - started
            move = web.post(f"/api/matches/{match_id}/seats/0/actions/", headers=headers,
                            json={"ply": body["ply"], "action": _choose(body["legal_actions"])})
            assert move.status_code in (200, 409), move.text[:300]
            moves += move.status_code == 200
        assert body.get("deals_finished", 0) >= 1, f"no deal finished ({moves} moves)"
        left_at = time.monotonic()
        while time.monotonic() - left_at < GUEST_CLOCK + 30:  # leave it: the loop's housekeeping ends it
            body = web.get(f"/api/matches/{match_id}/seats/0/").json()
            if body["status"] != "running":
                break
            time.sleep(1)
        ended = time.monotonic() - left_at
    _assert_no_5xx(stack, seen)
    assert body["status"] == "aborted" and "guest" in body["abort_reason"], body
    _assert_loop_alive(stack)
    print(f"guest: first turn {first_turn:.2f} s after opening the home page; a deal of {moves} moves; left alone, "
          f"ended after {ended:.0f} s (clock {GUEST_CLOCK} s, housekeeping every 5 s)")


LOCKED_LOG = re.compile(r"database error \(database is locked\).*(carrying on|trying again)")


def test_the_ladder_loop_outlives_a_database_locked_for_longer_than_its_busy_timeout(stack):
    """A lock that outlasts the busy timeout (another program holding the file, a stuck disk) fails the steps of the
    loop that meet it: the loop says so and carries on, and the ladder plays on once the lock is gone."""
    before = stack.bot_matches_finished()
    lock = sqlite3.connect(stack.db, timeout=30, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")  # the write lock, as a long write transaction holds it
        time.sleep(BUSY_TIMEOUT + 4)
        held_until = time.monotonic() + 60  # on a loaded machine the loop may reach its next write later
        while not LOCKED_LOG.search(stack.log("ladder")) and time.monotonic() < held_until:
            time.sleep(0.5)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    deadline = time.monotonic() + 60
    while stack.bot_matches_finished() <= before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert LOCKED_LOG.search(stack.log("ladder")), stack.log("ladder")[-3000:]
    _assert_loop_alive(stack, clean=False)
    assert stack.bot_matches_finished() > before, f"the ladder did not play on:\n{stack.log('ladder')[-3000:]}"
    assert httpx.get(f"{stack.url}/healthz", timeout=10).status_code == 200


def test_a_stranger_watches_a_ladder_match_live_over_server_sent_events(stack):
    """Zero-setup (runserver, WSGI; SQLite, no Redis): the events stream polls the database and pushes every ply of
    a match the ladder loop plays, in order from the first, then its end (docs/LIVE.md)."""
    import json

    deadline = time.monotonic() + 60
    match_id = None
    while match_id is None:
        rows = httpx.get(f"{stack.url}/api/matches/?status=running", timeout=30).json()["results"]
        for row in rows:
            if httpx.get(f"{stack.url}/api/matches/{row['id']}/public/", timeout=30).status_code == 200:
                match_id = row["id"]
                break
        assert match_id or time.monotonic() < deadline, "no running match to watch"
        time.sleep(0.5)
    plies, end, buffer = [], None, ""
    with httpx.Client(timeout=30) as client:
        with client.stream("GET", f"{stack.url}/api/matches/{match_id}/events/?last_event_id=0") as response:
            assert response.status_code == 200
            for chunk in response.iter_text():
                buffer += chunk
                while "\n\n" in buffer and end is None:
                    block, buffer = buffer.split("\n\n", 1)
                    fields = dict(line.split(": ", 1) for line in block.split("\n") if line and not line[0] == ":")
                    if fields.get("event") == "ply":
                        plies.append(int(fields["id"]))
                    elif fields.get("event") == "end":
                        end = json.loads(fields["data"])
                if end is not None:
                    break
    assert plies == list(range(1, len(plies) + 1)) and plies
    assert end["status"] in ("finished", "aborted")
    _assert_loop_alive(stack, clean=False)
