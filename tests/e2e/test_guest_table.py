"""Play at once as a guest, in a real browser (issue 10, part 1): open the home page with no account, press Deal,
play a whole one-on-one match by clicking (closing the page mid-turn after drawing two cards and reopening it finds
the same position), then a three-seat deal; sign up at the end and find the matches under the new name."""

import os
import re
import shutil
import time

import pytest

pytest.importorskip("playwright.sync_api")
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)
from run_cache import clear_this_runs_cache  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

TABLE = "document.querySelector('#table')"  # in functions: the page's policy refuses eval of bare strings


def _position(page) -> dict:
    """What the table shows of the position: the hand, the ply, the Draw button's words, whose turn."""
    return {"hand": page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)"),
            "ply": page.evaluate(f"{TABLE}.dataset.ply"), "draw": page.inner_text("#draw"),
            "top": page.eval_on_selector_all("#top .card", "els => els.map(e => e.dataset.card)"),
            "your_turn": page.evaluate(f"{TABLE}.dataset.yourTurn")}


def _wait_turn_or_end(page) -> str:
    page.wait_for_function(f"() => {TABLE}.dataset.yourTurn === 'yes' || "
                           "document.querySelector('#turn').textContent.includes('The match is over')", timeout=20000)
    return "over" if "The match is over" in page.inner_text("#turn") else "turn"


def _move(page, prefer_draw: bool = False) -> None:
    """One move by clicking, like a beginner: the first playable card (an eight declares hearts), else draw, else pass;
    then wait until the table shows another position. The throttles' counts are cleared first: a whole match played
    at a machine's speed is more moves a minute than the person's rate allows (a 429 left the table waiting)."""
    clear_this_runs_cache()
    shown = page.evaluate(f"{TABLE}.dataset.ply")
    playable = page.locator("#hand .card.playable")
    if prefer_draw and page.locator("#draw:not([disabled])").count():
        page.click("#draw")
    elif playable.count():
        playable.first.click()
        if page.locator("#suit-picker[open]").count():
            page.click("#suit-picker button[data-suit='H']")
    elif page.locator("#draw:not([disabled])").count():
        page.click("#draw")
    else:  # nothing to play or draw: pass is the one move left, and the table says so and lights the button
        assert "primary" in (page.get_attribute("#pass", "class") or "")
        assert "press Pass" in page.inner_text("#turn")
        page.click("#pass")
    page.wait_for_function(f"() => {TABLE}.dataset.ply !== '{shown}'", timeout=40000)  # slow on a loaded machine


@pytest.mark.django_db(transaction=True)
def test_a_stranger_deals_plays_a_whole_match_reopens_mid_turn_and_a_three_seat_deal(live_server, browser, settings,
                                                                                      house_bots, capsys):
    settings.TASKS = "eager"  # the bots answer inside the request (no worker in this test)
    from django.contrib.auth import get_user_model

    from games.models import Match, Player, Seat
    from games.selectors import match_state

    context = browser.new_context(viewport={"width": 420, "height": 900})  # a phone-width screen
    page = context.new_page()
    started = time.monotonic()
    page.goto(f"{live_server.url}/")
    assert page.is_visible("text=Play now as a guest")
    assert page.locator("#guest-preset").input_value() == "web-table"
    page.click("#deal")
    page.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    page.wait_for_selector("#hand .card")
    first_turn = time.monotonic() - started
    match_id = int(re.search(r"/matches/(\d+)/play/", page.url)[1])
    match = Match.objects.get(pk=match_id)
    assert match.preset == "web-table" and match.seat_count == 2
    assert page.locator("#seats .badge.guest").count() == 1

    reopened = False
    for _ in range(1500):
        if _wait_turn_or_end(page) == "over":
            break
        if not reopened and page.inner_text("#draw") == "Draw (3 left)":
            _move(page, prefer_draw=True)
            if page.evaluate(f"{TABLE}.dataset.yourTurn") == "yes" and page.inner_text("#draw") == "Draw (2 left)":
                _move(page, prefer_draw=True)
                page.wait_for_function(f"() => {TABLE}.dataset.yourTurn === 'yes'", timeout=20000)
                before = _position(page)
                assert before["draw"] == "Draw (1 left)", before
                assert match_state(match=match).deal.view(0)["draws_left"] == 1
                page.close()  # the tab is closed mid-turn, two cards drawn
                page = context.new_page()
                page.goto(f"{live_server.url}/matches/{match_id}/play/")
                page.wait_for_function(f"() => {TABLE}.dataset.ply === '{before['ply']}'", timeout=20000)
                assert _position(page) == before  # the same hand, ply, top card and one draw left
                reopened = True
            continue
        _move(page)
    else:
        raise AssertionError("the match did not end")
    assert reopened, "no turn let us draw two cards"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.deals.count() >= 2
    assert not hasattr(match, "ladder_match")  # casual: never rated
    page.click("text=See the match")
    page.wait_for_url(re.compile(rf".*/matches/{match_id}/$"))
    assert page.locator("td .badge.guest").count() == 1

    # a three-seat deal, from the home page again, in the same browser
    page.goto(f"{live_server.url}/")
    page.check("input[name='seats'][value='3']")
    page.click("#deal")
    page.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    three = Match.objects.get(pk=int(re.search(r"/matches/(\d+)/play/", page.url)[1]))
    assert three.seat_count == 3
    page.wait_for_selector("#hand .card")
    for _ in range(400):
        page.wait_for_function(f"() => {TABLE}.dataset.yourTurn === 'yes' || "
                               "document.querySelector('#scorecard .scorecard')", timeout=20000)
        if page.locator("#scorecard .scorecard").count():
            page.wait_for_selector("#scorecard .done", timeout=20000)
            break
        _move(page)
    else:
        raise AssertionError("the three-seat deal did not end")
    assert three.deals.filter(points__isnull=False).count() >= 1
    guest = Seat.objects.get(match=three, index=0).player
    assert guest.is_guest and Seat.objects.get(match=match, index=0).player == guest

    # sign up in this browser: both matches are the new account's
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "newcomer")
    page.fill("#id_password1", "a-long-pass-9876")
    page.fill("#id_password2", "a-long-pass-9876")
    page.click("text=Create my account")
    page.wait_for_url(re.compile(rf"{re.escape(live_server.url)}/$"))
    person = Player.objects.get(user=get_user_model().objects.get(username="newcomer"))
    assert {s.match_id for s in Seat.objects.filter(player=person)} == {match.pk, three.pk}
    assert not Player.objects.filter(pk=guest.pk).exists()
    page.goto(f"{live_server.url}/matches/{three.pk}/play/")
    page.wait_for_selector("#hand .card, #scorecard")
    context.close()
    with capsys.disabled():
        print(f"\nguest: from the home page to the first hand at the table {first_turn:.2f} s")
