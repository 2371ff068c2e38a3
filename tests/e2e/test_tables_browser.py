"""Tables in real browsers (issue 23, part 1): a guest opens a three-seat table from the lobby (a house bot in one
seat, one open), sends the invite link to a friend in another browser, the friend takes the seat, and both land at
the match's table with their own hands (the host's waiting page follows by itself); axe finds nothing serious on
the lobby and the invite page, at phone width."""

import os
import re
import shutil
import time

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")
from axe import axe_violations, describe  # noqa: E402 (tests/support)
from browsers import CHROMIUM  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def _scan(page, what):
    found = axe_violations(page)
    assert not found, f"{what}:\n{describe(found)}"


@pytest.mark.django_db(transaction=True)
def test_two_browsers_meet_at_a_table_by_its_invite_link(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"  # the house bot answers inside the request (no worker in this test)
    from games.models import Match
    from tables.models import Table

    host = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    host.goto(f"{live_server.url}/tables/")
    _scan(host, "the lobby")
    host.check("input[name='seats'][value='3']")
    host.select_option("#seat-1", "house:eager")
    host.select_option("#seat-2", "open")
    host.click("#open-table")
    host.wait_for_url(re.compile(r".*/tables/[A-Z0-9]{12}/$"))
    link = host.input_value("#invite-link")
    assert link == host.url
    assert "Waiting for 1 more player" in host.inner_text("#table-status")
    _scan(host, "a table's invite page")

    friend = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    friend.goto(link)
    friend.click("#join")
    friend.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    friend.wait_for_selector("#hand .card")
    host.wait_for_url(re.compile(r".*/matches/\d+/play/$"), timeout=20000)  # tables.js saw the match start
    host.wait_for_selector("#hand .card")
    assert host.url == friend.url
    table = Table.objects.get(code=link.rstrip("/").rsplit("/", 1)[1])
    match = Match.objects.get(pk=table.match_id)
    assert match.seat_count == 3 and match.seats.get(index=1).player.strategy == "eager"
    hands = [page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") for page in (host, friend)]
    assert hands[0] and hands[1] and hands[0] != hands[1]  # each browser holds its own seat's cards
    for page in (host, friend):  # the tables' event streams end with their pages
        page.context.close()


@pytest.mark.django_db(transaction=True)
def test_two_people_talk_and_one_ends_the_wait_for_the_other_who_left(live_server, browser, settings, house_bots):
    """Issue 23, 6 and 7: table talk reaches the other browser; one person closes their table on their turn, the
    other sees them away and ends the wait, a house bot takes the seat and the match goes on."""
    import time
    from datetime import timedelta

    from django.core.cache import cache
    from django.utils import timezone
    from playwright.sync_api import expect

    from games.matches.snapshots import match_state_snapshot
    from games.models import Match, Seat

    settings.TASKS = "eager"
    host = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    host.goto(f"{live_server.url}/tables/")
    host.check("input[name='seats'][value='2']")
    host.select_option("#seat-1", "open")
    host.click("#open-table")
    host.wait_for_url(re.compile(r".*/tables/[A-Z0-9]{12}/$"))
    friend = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    friend.goto(host.input_value("#invite-link"))
    friend.click("#join")
    friend.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    host.wait_for_url(re.compile(r".*/matches/\d+/play/$"), timeout=20000)
    for page in (host, friend):
        page.wait_for_selector("#people li")
    _scan(host, "a table of two people")

    host.click(".talk-button[data-phrase='good_luck']")
    expect(friend.locator("#talk-log")).to_contain_text("Good luck!", timeout=15000)
    expect(host.locator("#talk-log")).to_contain_text("You: Good luck!")

    match = Match.objects.get(pk=int(host.url.rstrip("/").split("/")[-2]))
    to_play = match_state_snapshot(match=match).state.to_play
    pages = {int(p.get_attribute("#table", "data-seat")): p for p in (host, friend)}
    leaver, stayer = pages[to_play], pages[1 - to_play]
    leaver.context.close()  # gone on their turn
    Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timedelta(seconds=120))
    cache.set(f"presence:{match.pk}:{to_play}", time.time() - 120, 3600)
    stayer.evaluate("window.EightsPeople.beat()")
    stayer.wait_for_selector("#end-wait-button", timeout=15000)
    _scan(stayer, "a table offering to end the wait")
    stayer.click("#end-wait-button")
    expect(stayer.locator("#end-wait")).to_contain_text("A house bot plays")
    seat = Seat.objects.get(match=match, index=to_play)
    assert seat.left_at is not None and seat.stand_in == settings.LEAVER_STAND_IN
    expect(stayer.locator("#table")).to_have_attribute("data-your-turn", "yes", timeout=20000)
    assert Match.objects.get(pk=match.pk).ply_count > match.ply_count  # the stand-in played the leaver's turn
    stayer.context.close()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_browsers_play_a_whole_match_a_guest_signs_up_mid_match_and_both_rematch(live_server, browser, settings,
                                                                                      house_bots):
    """Issue 23's "done means": a guest opens a three-seat table (a house bot in the third seat), a friend (a guest in
    another browser) joins by the invite link, signs up in the middle of the match and goes on playing under the new
    name; both play by clicking to the match's end, the table offers Rematch to both, and the rematch starts with
    every seat moved on by one once both have accepted."""
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect
    from test_guest_table import TABLE, _move

    from games.models import Match, Player, Seat
    from tables.models import Table

    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    host = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    host.goto(f"{live_server.url}/tables/")
    host.check("input[name='seats'][value='3']")
    host.select_option("#seat-1", "open")
    host.select_option("#seat-2", "house:eager")
    host.click("#open-table")
    host.wait_for_url(re.compile(r".*/tables/[A-Z0-9]{12}/$"))
    code = host.url.rstrip("/").rsplit("/", 1)[1]
    friend = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    friend.goto(host.input_value("#invite-link"))
    friend.click("#join")
    friend.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    host.wait_for_url(re.compile(r".*/matches/\d+/play/$"), timeout=20000)
    match = Match.objects.get(pk=Table.objects.get(code=code).match_id)
    table_url = friend.url
    pages = {int(p.get_attribute("#table", "data-seat")): p for p in (host, friend)}
    assert sorted(pages) == [0, 1]
    for page in pages.values():
        expect(page.locator("#rematch-form")).to_be_hidden()

    moves, signed_up = 0, False
    for _ in range(3000):
        row = Match.objects.get(pk=match.pk)
        if row.status != Match.Status.RUNNING:
            break
        if moves == 6 and not signed_up:  # the friend signs up in the middle of the match and comes back to it
            friend.goto(f"{live_server.url}/accounts/signup/?next=/matches/{match.pk}/play/")
            friend.fill("#id_username", "friend")
            friend.fill("#id_password1", "a-long-pass-9876")
            friend.fill("#id_password2", "a-long-pass-9876")
            friend.click("text=Create my account")
            friend.wait_for_load_state()
            friend.goto(table_url)
            signed_up = True
        turn = [p for p in pages.values() if p.evaluate(f"{TABLE}.dataset.yourTurn") == "yes"]
        if not turn:
            time.sleep(0.05)  # the house bot's ply, or the event on its way
            continue
        _move(turn[0])
        moves += 1
    else:
        raise AssertionError("the match did not end in 3000 tries")
    person = Player.objects.get(user=get_user_model().objects.get(username="friend"))
    assert Seat.objects.get(match=match, index=1).player == person  # the seat stayed theirs, under their name
    assert row.status == Match.Status.FINISHED and max(row.totals) >= 100
    for page in pages.values():
        expect(page.locator("#turn")).to_contain_text("The match is over", timeout=20000)
        expect(page.locator("#rematch-form")).to_be_visible()
        _scan(page, "a finished table offering a rematch")

    host.click("#rematch")
    host.wait_for_url(re.compile(r".*/tables/[A-Z0-9]{12}/$"))
    assert host.url.rstrip("/").rsplit("/", 1)[1] != code
    friend.click("#rematch")
    friend.wait_for_url(re.compile(r".*/matches/\d+/play/$"), timeout=20000)
    host.wait_for_url(re.compile(r".*/matches/\d+/play/$"), timeout=20000)
    again = Match.objects.get(pk=int(friend.url.rstrip("/").split("/")[-2]))
    assert again.pk != match.pk
    before = {s.player_id: s.index for s in Seat.objects.filter(match=match)}
    after = {s.player_id: s.index for s in Seat.objects.filter(match=again)}
    assert set(before) == set(after) and all(after[p] == (before[p] + 1) % 3 for p in before)
    for page in (host, friend):
        page.wait_for_selector("#hand .card")
        page.context.close()
