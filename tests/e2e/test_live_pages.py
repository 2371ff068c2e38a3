"""Live pages in a real browser (issue 13): a stranger watches a running match as its plies are stored and sees it
turn into its replay; the table plays a whole match on pushed updates (the events stream), fetching its seat view
only when a ply was stored; the home page lists the matches playing now, linked to their watch pages. axe checks the
new pages."""

import os
import re
import shutil
import time

import pytest

pytest.importorskip("playwright.sync_api")
from axe import axe_violations, describe  # noqa: E402 (tests/support)
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)
from run_cache import clear_this_runs_cache  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

WATCH = "document.querySelector('#watch')"  # in functions: the page's policy refuses eval of bare strings
TABLE = "document.querySelector('#table')"


@pytest.fixture(autouse=True)
def _streams_end_with_their_pages(settings):
    """An events stream served by the live server's thread notices its closed page at its next write: a short
    keep-alive makes that write come soon, so no stream (and its database connection) outlives the test."""
    settings.LIVE_KEEPALIVE_SECONDS = 0.5
    yield
    time.sleep(1.5)


def _ply_count(match) -> int:
    from games.models import Match

    return Match.objects.values_list("ply_count", flat=True).get(pk=match.pk)


@pytest.mark.django_db(transaction=True)
def test_a_stranger_watches_a_running_match_ply_by_ply_and_then_its_replay(live_server, browser, house_bots):
    from eights_engine import Ruleset
    from games.models import Deal, Match
    from games.services import match_advance, match_create

    match = match_create(players=[house_bots[3], house_bots[2]], ruleset=Ruleset.preset("pagat", target=50))
    page = browser.new_context().new_page()  # a stranger: no account, no session
    logs = []
    page.on("console", lambda m: logs.append(m.text))
    page.on("pageerror", lambda e: logs.append(f"error {e}"))
    page.on("framenavigated", lambda f: logs.append("nav " + f.url))
    page.goto(f"{live_server.url}/matches/{match.pk}/watch/")
    page.wait_for_function(f"() => {WATCH}.dataset.live === 'yes' && {WATCH}.dataset.ply === '0'", timeout=15000)
    found = axe_violations(page)
    assert not found, describe(found)
    for step in range(1, 16):  # one ply at a time: the page shows each as it is stored
        clear_this_runs_cache()
        match_advance(match_id=match.pk, ply_budget=1)
        page.wait_for_function(f"() => {WATCH}.dataset.ply === '{step}'", timeout=10000)
        assert page.locator("[data-card]").count() <= 1  # the top card only: no hand is ever drawn
        assert page.locator(".seat").count() == 2
        if step <= 5:  # deal 1 is still on: its history is the page's log
            assert re.search(r"(played the|drew|passed|declared)", page.inner_text("#log"))
    assert page.evaluate("() => EightsWatch.plies") == list(range(1, 16))
    assert page.evaluate("() => EightsWatch.polls") == 1  # the first view only: the stream brought the rest
    seat_text = page.inner_text("#seats")
    assert "Professor" in seat_text and "Greedy" in seat_text and "cards" in seat_text
    assert re.search(r"(Professor|Greedy) to play", page.inner_text("#turn"))

    assert match_advance(match_id=match.pk) == "finished"  # the rest in one go
    final = _ply_count(match)
    page.wait_for_function(f"() => {WATCH}.dataset.ended === 'yes'", timeout=15000)
    seen = page.evaluate("() => EightsWatch.plies")
    assert seen == list(range(1, final + 1)), "every ply once, in order"
    assert "The match is over" in page.inner_text("#end")
    last = Deal.objects.filter(match=match).order_by("-number").first()
    if last.number > 1:  # between deals the page showed each deal's result: the points each total moved
        assert f"Deal {last.number - 1} is over" in page.inner_text("#deal-card")
        assert page.evaluate(f"() => {WATCH}.dataset.dealsShown") == str(last.number - 1)
    try:
        page.wait_for_function("() => location.pathname.endsWith('/replay/')", timeout=15000)
    except Exception:
        raise AssertionError((page.url, logs))
    assert page.url.endswith(f"/matches/{match.pk}/replay/?deal={last.number}&ply={last.plies}"), page.url
    page.wait_for_selector("#replay #where")
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    page.context.close()


def _move(page, person_seat: int = 0) -> None:
    """One move at the table by clicking: the first playable card (an eight declares hearts), else draw, else pass."""
    clear_this_runs_cache()
    playable = page.locator("#hand .card.playable")
    if playable.count():
        playable.first.click()
        if page.locator("#suit-picker[open]").count():
            page.click("#suit-picker button[data-suit='H']")
    elif page.locator("#draw:not([disabled])").count():
        page.click("#draw")
    else:
        page.click("#pass")


@pytest.mark.django_db(transaction=True)
def test_the_table_plays_a_whole_match_on_pushed_updates_without_polling(live_server, browser, settings, capsys):
    """Seat 0 is the browser; seats 1 and 2 other people whose moves this test stores (as their own browsers would):
    the table learns of them only from the events stream. It fetches its seat view after its own move and when a ply
    gives it the turn; a ply between the others is drawn from the event's public view. Never on a clock."""
    settings.HUMAN_MOVE_SECONDS = 600
    from django.contrib.auth import get_user_model
    from django.test import Client

    from eights_engine import Ruleset
    from games.selectors import match_snapshot
    from games.services import match_create, match_submit_action, player_for_user
    from games.models import Match

    users = [get_user_model().objects.create_user(name, password="a-long-pass-9876") for name in ("ada", "bea", "cyd")]
    match = match_create(players=[player_for_user(user=u) for u in users], ruleset=Ruleset.preset("pagat", target=60), seed=11)
    client = Client()
    client.force_login(users[0])
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    view_requests = []
    seat_view = re.compile(rf"/api/matches/{match.pk}/seats/0/$")
    page.on("request", lambda r: view_requests.append(time.monotonic()) if seat_view.search(r.url) else None)
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_function(f"() => {TABLE}.dataset.stream === 'open' && {TABLE}.dataset.ply === '0'", timeout=15000)

    idle_checked, own_moves = False, 0
    started = time.monotonic()
    for _ in range(2000):
        row = Match.objects.get(pk=match.pk)
        if row.status != Match.Status.RUNNING:
            break
        deal = match_snapshot(match=row).state.deal
        if deal.to_play != 0:  # another person's move, not from this browser
            if not idle_checked and row.ply_count >= 3:  # the table waits: it fetches nothing while nothing moves
                before = len(view_requests)
                time.sleep(3)
                assert len(view_requests) == before, "the table polled while nothing moved"
                idle_checked = True
            match_submit_action(match_id=match.pk, seat=deal.to_play, ply=row.ply_count,
                                action=deal.legal_actions()[0], user=users[deal.to_play])
        else:  # the table learns of the other's move from the stream: well before its 10 s fallback poll
            page.wait_for_function(f"() => {TABLE}.dataset.yourTurn === 'yes' && {TABLE}.dataset.ply === "
                                   f"'{row.ply_count}'", timeout=8000)
            _move(page)
            own_moves += 1
        page.wait_for_function(f"() => Number({TABLE}.dataset.ply) > {row.ply_count} || "
                               "document.querySelector('#turn').textContent.includes('The match is over')",
                               timeout=8000)
    else:
        raise AssertionError("the match did not end")
    page.wait_for_selector("text=The match is over", timeout=15000)
    plies = _ply_count(match)
    fetched = len(view_requests)
    counts = page.evaluate("() => EightsTable")
    assert idle_checked
    assert counts["events"] >= plies - 1  # every ply announced (the first may come before the stream opened)
    # a fetch after each own move and each ply that gives the table the turn (a few more where an event and a fetch
    # crossed: 304); the others' plies between them come with their events. Polling every 0.7 s, as the table did,
    # would fetch once per 0.7 s of the match whatever happened.
    assert counts["applied"] >= plies // 5, counts
    assert fetched <= plies * 0.8 + 5, (fetched, plies, counts)
    context.close()
    with capsys.disabled():
        elapsed = time.monotonic() - started
        print(f"\ntable on pushed updates: {plies} plies in {elapsed:.1f} s, {fetched} seat-view requests "
              f"({counts['notModified']} answered 304), {counts['events']} events, {counts['applied']} drawn from the event; the 0.7 s poll would have made "
              f"about {elapsed / 0.7 + own_moves:.0f} (one per 0.7 s plus one after each of the {own_moves} own moves)")


@pytest.mark.django_db(transaction=True)
def test_the_home_page_lists_matches_playing_now_linked_to_their_watch_pages(live_server, browser, ladder,
                                                                            house_bots):
    from eights_engine import Ruleset
    from games.services import match_advance, match_create
    from tournaments.models import LadderEntry, LadderMatch

    match = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat"))
    LadderMatch.objects.create(ladder=ladder, match=match)
    match_advance(match_id=match.pk, ply_budget=3)
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/")
    section = page.locator("#playing-now")
    assert f"Watch #{match.pk}" in section.inner_text()
    found = axe_violations(page)
    assert not found, describe(found)
    section.locator(f"a[href='/matches/{match.pk}/watch/']").click()
    page.wait_for_url(re.compile(rf".*/matches/{match.pk}/watch/$"))
    page.wait_for_function(f"() => {WATCH}.dataset.ply === '3'", timeout=15000)
    weaker = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    LadderMatch.objects.create(ladder=ladder, match=weaker)
    LadderEntry.objects.filter(ladder=ladder, player__in=house_bots[2:]).update(ordinal=20.0)
    page.goto(f"{live_server.url}/watch/")  # the featured match: the strongest playing
    page.wait_for_function(f"() => {WATCH}.dataset.ply === '3' && {WATCH}.dataset.featured === 'yes' && "
                           f"{WATCH}.dataset.match === '{match.pk}' && {WATCH}.dataset.live === 'yes'", timeout=15000)
    found = axe_violations(page)
    assert not found, describe(found)
    assert match_advance(match_id=match.pk) == "finished"  # it ends: the featured page moves on to the next one
    page.wait_for_function(f"() => {WATCH}.dataset.ended === 'yes'", timeout=15000)
    assert "The next featured match follows" in page.inner_text("#end")
    page.wait_for_function(f"() => {WATCH} && {WATCH}.dataset.match === '{weaker.pk}'", timeout=20000)
    assert page.url.endswith("/watch/")
    page.context.close()


@pytest.mark.django_db(transaction=True)
def test_without_the_events_stream_the_watch_page_polls_the_public_view_with_etags(live_server, browser, house_bots):
    from eights_engine import Ruleset
    from games.services import match_advance, match_create

    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    context = browser.new_context()
    context.route(re.compile(r".*/events/.*"), lambda route: route.abort())  # a proxy that drops event streams
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/watch/")
    page.wait_for_function("() => EightsWatch.notModified >= 1", timeout=15000)  # polling, 304 while nothing moved
    assert page.evaluate(f"{WATCH}.dataset.live") == "no"
    assert "polling" in page.inner_text("#connection")
    match_advance(match_id=match.pk, ply_budget=4)
    page.wait_for_function(f"() => {WATCH}.dataset.ply === '4'", timeout=15000)
    assert page.evaluate("() => EightsWatch.plies") == []  # no event came: the polls showed it
    context.close()


@pytest.mark.django_db(transaction=True)
def test_without_the_events_stream_the_table_polls_its_seat_view_with_etags(live_server, browser, settings):
    """The fallback: a table whose events stream is refused polls every 2 s with If-None-Match (304 while nothing
    moved) and still shows the other person's move."""
    settings.HUMAN_MOVE_SECONDS = 600
    from django.contrib.auth import get_user_model
    from django.test import Client

    from eights_engine import MatchState, Ruleset
    from games.selectors import match_snapshot
    from games.services import match_create, match_submit_action, player_for_user

    users = [get_user_model().objects.create_user(name, password="a-long-pass-9876") for name in ("cid", "dot")]
    ruleset = Ruleset.preset("pagat")
    seed = next(s for s in range(1, 500) if MatchState.start(ruleset, 2, s).deal.to_play == 1)  # the other starts
    match = match_create(players=[player_for_user(user=u) for u in users], ruleset=ruleset, seed=seed)
    client = Client()
    client.force_login(users[0])
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    context.route(re.compile(r".*/events/.*"), lambda route: route.abort())
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_function(f"() => {TABLE}.dataset.stream === 'down' && EightsTable.notModified >= 1", timeout=15000)
    deal = match_snapshot(match=match).state.deal
    match_submit_action(match_id=match.pk, seat=1, ply=0, action=deal.legal_actions()[0], user=users[1])
    page.wait_for_function(f"() => {TABLE}.dataset.ply !== '0'", timeout=6000)  # the next 2 s poll shows it
    assert page.evaluate("() => EightsTable.events") == 0
    context.close()
