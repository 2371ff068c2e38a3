"""The replay viewer (issue 11 item 3) in a real browser: the page's own decoder (static/js/replay.js) gives the
engine's positions for every golden playthrough; the keyboard steps through a replay (the address follows, a live
region says the ply); a deep link opens at its ply with the engine's hands; the seat's eye hides the other hands;
axe-core finds no serious violation; on a phone's viewport nothing overflows."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

ROOT = "document.querySelector('#replay')"


def _finished(bots, seats=3, preset="pagat", seed=7):
    from eights_engine import Ruleset
    from games.services import match_advance, match_create

    match = match_create(players=bots[:seats], ruleset=Ruleset.preset(preset), preset=preset, seed=seed)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    return match


def _engine_positions(match):
    """Per deal, per ply (0 = as dealt): every hand, the top card and the seat to play, from the engine itself."""
    from eights_engine import MatchState, Ruleset
    from games.selectors import match_record

    record = match_record(match=match)
    return _positions(MatchState.start(Ruleset.from_dict(record["ruleset"]), record["seats"], record["seed"]), record)


def _positions(state, record):
    """``_engine_positions`` of ``record``'s deals played from ``state`` (the match as its record starts it)."""
    out = []
    for stored in record["deals"]:
        deal = state.deal
        rows = [([deal.hand(s) for s in range(deal.seats)], deal.top_card, deal.view(0)["to_play"])]
        for action in stored["actions"]:
            state.apply(action)
            rows.append(([deal.hand(s) for s in range(deal.seats)], deal.top_card, deal.view(0)["to_play"]))
        out.append(rows)
    return out


def _shown(page):
    """What the page shows now: each seat's face-up cards (None for a hand face down), the top card, the seat to
    play (the highlighted seat), and the deal and ply it says."""
    return page.evaluate("""() => {
        const seats = [...document.querySelectorAll('#seats .seat')];
        return {
            hands: seats.map(s => s.querySelector('.hidden-hand') ? null
                : [...s.querySelectorAll('.hand .card')].map(c => c.dataset.card)),
            backs: seats.map(s => s.querySelectorAll('.card-back').length),
            top: document.querySelector('#top .card')?.dataset.card ?? null,
            to_play: seats.findIndex(s => s.classList.contains('to-play')),
            deal: Number(document.querySelector('#replay').dataset.deal),
            ply: Number(document.querySelector('#replay').dataset.ply),
        };
    }""")


def _expect(page, engine, deal, ply):
    shown = _shown(page)
    hands, top, to_play = engine[deal - 1][ply]
    assert (shown["deal"], shown["ply"]) == (deal, ply)
    assert shown["hands"] == hands and shown["top"] == top
    assert shown["to_play"] == (-1 if to_play is None else to_play)
    assert f"deal={deal}&ply={ply}" in page.url


@pytest.mark.django_db(transaction=True)
def test_the_page_decoder_gives_the_engine_positions_for_every_playthrough(live_server, browser, house_bots):
    from eights_engine.frames import positions, replay_frames
    from eights_engine.playthrough import SCENARIOS

    def played(sc):  # the scenario's match as its golden playthrough file shows it
        from eights_engine import MatchState
        from eights_engine.strategies import choose

        state = MatchState.start(sc.ruleset(), sc.seats, sc.seed)
        strategies = sc.seat_strategies()
        while not state.is_over:
            seat = state.to_play
            state.apply(choose(strategies[seat], state.view(seat), state.legal_actions(), state.deal.seed))
        return state

    match = _finished(house_bots, seats=2)
    page = browser.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    page.wait_for_function("() => typeof window.EightsReplay === 'object'")
    for sc in SCENARIOS:
        frames = replay_frames(played(sc).record())
        decoded = page.evaluate("(deals) => deals.map(d => window.EightsReplay.decode(d))", frames["deals"])
        # frames.positions equals the engine ply by ply (engine/tests/test_replay_frames.py): so does the page
        assert decoded == [positions(d) for d in frames["deals"]], sc.name


@pytest.mark.django_db(transaction=True)
def test_keyboard_steps_through_a_replay_and_a_deep_link_opens_its_ply(live_server, browser, house_bots):
    from axe import axe_violations, describe

    match = _finished(house_bots)
    engine = _engine_positions(match)
    assert len(engine) >= 3, "the match needs a few deals"
    page = browser.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    page.wait_for_function(f"() => {ROOT}.dataset.ply === '0'")
    _expect(page, engine, 1, 0)
    page.focus("body")
    for ply in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        _expect(page, engine, 1, ply)
    assert page.inner_text("#where").startswith("Deal 1, ply 3 of ")
    page.keyboard.press("ArrowLeft")
    _expect(page, engine, 1, 2)
    page.keyboard.press("End")
    _expect(page, engine, 1, len(engine[0]) - 1)
    assert page.locator("#result").is_visible() and "Deal 1:" in page.inner_text("#result")
    page.keyboard.press("ArrowRight")  # past a deal's end: the next deal as dealt
    _expect(page, engine, 2, 0)
    page.keyboard.press("]")
    _expect(page, engine, 3, 0)
    page.keyboard.press("[")
    page.keyboard.press("[")
    _expect(page, engine, 1, 0)
    page.keyboard.press("ArrowLeft")  # nothing before the first ply
    _expect(page, engine, 1, 0)
    page.keyboard.press("Home")
    _expect(page, engine, 1, 0)

    page.keyboard.press("Space")  # play: the plies go by on their own, and the button says Pause
    page.wait_for_function(f"() => Number({ROOT}.dataset.ply) >= 2", timeout=5000)
    assert page.get_attribute("#play", "aria-pressed") == "true" and page.inner_text("#play") == "Pause"
    assert page.inner_text("#where").startswith("Playing at 2 plies/s")  # not every ply while playing
    page.keyboard.press("Space")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    stopped = _shown(page)
    assert page.inner_text("#where").startswith(f"Deal 1, ply {stopped['ply']} of ")  # where it stopped
    page.wait_for_timeout(1200)
    assert _shown(page)["ply"] == stopped["ply"]
    _expect(page, engine, 1, stopped["ply"])

    page.keyboard.press("v")  # the seat's eye: seat 0's cards face up, the others as counts of backs
    assert page.input_value("#eye") == "0"
    shown = _shown(page)
    hands = engine[0][stopped["ply"]][0]
    assert shown["hands"][0] == hands[0] and shown["hands"][1:] == [None] * (len(hands) - 1)
    assert shown["backs"][1:] == [len(h) for h in hands[1:]]
    page.select_option("#eye", "")

    found = axe_violations(page)
    assert not found, describe(found)

    # a deep link: the page opens at deal 2, ply 5, showing the engine's hands there
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal=2&ply=5")
    page.wait_for_function(f"() => {ROOT}.dataset.deal === '2' && {ROOT}.dataset.ply === '5'")
    _expect(page, engine, 2, 5)
    assert page.locator("#log li").count() == 5
    assert page.get_attribute("#log li:last-child", "aria-current") == "step"
    page.focus("#log li:nth-child(2) button")
    page.keyboard.press("Enter")  # the deal log jumps to its ply, and the focus stays on that ply's line
    _expect(page, engine, 2, 2)
    assert page.evaluate("() => document.activeElement.closest('li')?.getAttribute('aria-current')") == "step"
    page.fill("#ply-choice", "4")
    page.keyboard.press("Enter")
    _expect(page, engine, 2, 4)
    page.select_option("#deal-choice", "3")
    _expect(page, engine, 3, 0)


@pytest.mark.django_db(transaction=True)
def test_faults_and_reshuffles_are_shown_as_they_happened(live_server, browser, house_bots):
    from eights_engine import Ruleset
    from games.models import Move
    from games.services import match_advance, match_create

    # 20-card hands at two seats leave a stock of 11 cards: it runs out and the pile is reshuffled
    ruleset = Ruleset.preset("pagat", hand_size=20)
    match = match_create(players=house_bots[:2], ruleset=ruleset, seed=1)
    assert match_advance(match_id=match.pk) == "finished"
    from games.selectors import match_replay

    frames = match_replay(match=match)
    deal, ply = next((d["number"], i + 1) for d in frames["deals"] for i, p in enumerate(d["plies"])
                     if any(e["type"] == "reshuffle" for e in p["log"]))
    move = Move.objects.get(deal__match=match, deal__number=1, ply=0)  # stored plies count from 0
    Move.objects.filter(pk=move.pk).update(source=Move.Source.FALLBACK, fault_kind="timeout", think_ms=1500,
                                           fault="no answer within 1000 ms <script>alert(1)</script>")
    page = browser.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal={deal}&ply={ply}")
    page.wait_for_function(f"() => {ROOT}.dataset.ply === '{ply}'")
    assert "The stock ran out" in page.inner_text("#ply-detail .reshuffle-note")
    assert page.locator("#log li.log-reshuffle").count() >= 1
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal=1&ply=1")
    page.wait_for_function(f"() => {ROOT}.dataset.ply === '1'")
    note = page.inner_text("#ply-detail .fault-note")
    assert "Fault (timeout)" in note and "<script>alert(1)</script>" in note and "fallback" in note
    assert "Thought for 1500 ms" in page.inner_text("#ply-detail")
    assert "Fault (timeout), fallback played" in page.inner_text("#where")


@pytest.mark.django_db(transaction=True)
def test_the_replay_works_on_a_phone(live_server, browser, house_bots):
    match = _finished(house_bots, seats=4)
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal=1&ply=3")
    page.wait_for_function(f"() => {ROOT}.dataset.ply === '3'")
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), "sideways scroll"
    for button in ("#prev", "#play", "#next", "#prev-deal", "#next-deal"):
        box = page.locator(button).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 376 and box["height"] >= 40, button
    page.tap("#next")
    page.wait_for_function(f"() => {ROOT}.dataset.ply === '4'")
    if os.environ.get("REPLAY_SCREENSHOT"):  # to look at it: REPLAY_SCREENSHOT=/tmp/phone.png
        page.screenshot(path=os.environ["REPLAY_SCREENSHOT"], full_page=True)
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_local_record_file_opens_in_the_same_viewer(live_server, browser, tmp_path):
    """``localrun --record`` on an author's machine, then /replay/open/ (issue 26, item 5): the uploaded file is
    shown ply by ply with the engine's hands, in the same viewer, and axe-core finds nothing serious."""
    import io
    import json

    from axe import axe_violations, describe
    from eights_engine.bots import localrun
    from eights_engine.match import start_from_record

    path = tmp_path / "local.json"
    localrun.run(localrun.parse_args(["house:heuristic", "house:random", "house:tactician", "--preset", "pagat",
                                      "--seed", "3", "--record", str(path)]), io.StringIO())
    record = json.loads(path.read_text())
    engine = _positions(start_from_record(record), record)
    page = browser.new_page()
    page.goto(f"{live_server.url}/replay/open/")
    page.set_input_files("input[name=file]", str(path))
    with page.expect_navigation():
        page.get_by_role("button", name="Open in the replay viewer").click()
    page.wait_for_function(f"() => {ROOT}.dataset.ply === '0'")
    assert page.inner_text("h1").startswith("Replay of a match record")
    _expect(page, engine, 1, 0)
    page.focus("body")
    for ply in (1, 2):
        page.keyboard.press("ArrowRight")
        _expect(page, engine, 1, ply)
    page.keyboard.press("]")
    _expect(page, engine, 2, 0)
    assert "house:tactician" in page.inner_text("#seats")
    found = axe_violations(page)
    assert not found, describe(found)


@pytest.mark.django_db(transaction=True)
def test_a_local_record_is_analysed_on_request_beside_its_plies(live_server, browser, tmp_path, settings):
    """The form's "Analyse it" (issue 26, item 5): the page polls until the worker (here a thread of the live
    server's process) has weighed every decision, then says what each seat gave up and shows the notes at the plies,
    as a match's analysis does; nothing is written as HTML."""
    import io

    from eights_engine.bots import localrun

    settings.ANALYSIS_SAMPLES = 6
    settings.TASKS = "in_process"
    path = tmp_path / "local.json"
    localrun.run(localrun.parse_args(["house:heuristic", "house:tactician", "--preset", "pagat", "--seed", "5",
                                      "--record", str(path)]), io.StringIO())
    page = browser.new_page()
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{live_server.url}/replay/open/")
    page.set_input_files("input[name=file]", str(path))
    page.check("input[name=analyse]")
    with page.expect_navigation():
        page.get_by_role("button", name="Open in the replay viewer").click()
    page.wait_for_function("() => document.querySelector('#analysis-status').textContent.startsWith('Analysis done')",
                           timeout=60_000)
    status = page.inner_text("#analysis-status")
    assert "house:heuristic: " in status and "points given up" in status
    for _ in range(6):  # the first plies hold the first decision of more than one choice
        page.keyboard.press("ArrowRight")
        if page.locator(".analysis-note").count():
            break
    assert page.inner_text(".analysis-note").startswith("Analysis:")
    assert not errors, errors
