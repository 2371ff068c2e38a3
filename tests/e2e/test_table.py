"""The play table in a real browser (Playwright driving Debian's Chromium at /usr/bin/chromium): sign up, play a
complete deal against house bots by clicking, declare a suit with an eight, see the score card, reload mid-deal."""

import os
import re
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def _seed_with_a_playable_eight_for_seat0(ruleset):
    """A match seed whose first deal gives seat 0 an eight, so the test can declare a suit."""
    from eights_engine import MatchState

    for seed in range(1, 5000):
        state = MatchState.start(ruleset, 2, seed)
        deal = state.deal
        if not deal.awaiting_declaration and any(c[0] == "8" for c in deal.hand(0)) and deal.to_play == 0:
            return seed
    raise AssertionError("no seed found")


@pytest.mark.django_db(transaction=True)
def test_a_newcomer_signs_up_and_plays_a_deal_by_clicking(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"  # the bots answer inside the request (no worker in this test)
    settings.HUMAN_MOVE_SECONDS = 600
    from django.contrib.auth import get_user_model

    from eights_engine import Ruleset
    from games.models import Match
    from games.services import match_create, player_for_user
    from tournaments.models import LadderMatch
    from tournaments.services import ladder_create, ladder_entry_create

    ladder = ladder_create(name="Browser ladder", slug="browser")
    for bot in house_bots:
        ladder_entry_create(ladder=ladder, player=bot)

    page = browser.new_page(viewport={"width": 420, "height": 900})  # a phone-width screen
    page.goto(f"{live_server.url}/accounts/signup/?next=/ladders/browser/")
    page.fill("#id_username", "clicker")
    page.fill("#id_password1", "a-long-pass-9876")
    page.fill("#id_password2", "a-long-pass-9876")
    page.click("text=Create my account")
    page.wait_for_url(re.compile(r".*/ladders/browser/$"))
    assert page.is_visible("text=Play now")

    person = player_for_user(user=get_user_model().objects.get(username="clicker"))
    ruleset = Ruleset.preset("pagat")
    match = match_create(players=[person, house_bots[3]], ruleset=ruleset, seed=_seed_with_a_playable_eight_for_seat0(ruleset))
    LadderMatch.objects.create(ladder=ladder, match=match)
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")
    assert page.locator("#hand .card").count() == 7
    # the deal's commitment is on the table from its start (docs/FAIRNESS.md); never its salt
    assert page.inner_text("#commitment") == match.deals.get(number=1).commitment
    assert match.deals.get(number=1).key not in page.content() and match.secret not in page.content()
    assert page.locator("#suit .suit-word, #suit").first.inner_text() != ""

    declared = False
    reloaded = False
    table = "document.querySelector('#table')"  # in functions: the page's policy refuses eval of bare strings
    for _ in range(400):
        page.wait_for_function(f"() => {table}.dataset.yourTurn === 'yes' || document.querySelector('#scorecard .scorecard')",
                               timeout=15000)
        if page.locator("#scorecard .scorecard").count():
            page.wait_for_selector("#scorecard .done", timeout=20000)
            break
        if not reloaded and Match.objects.get(pk=match.pk).ply_count >= 4:
            page.reload()  # the state lives on the server: the table comes back as it was
            page.wait_for_selector("#hand .card")
            reloaded = True
            continue
        shown = page.evaluate(f"{table}.dataset.ply")
        eights = page.locator("#hand .card.playable[data-card^='8']")
        playable = page.locator("#hand .card.playable")
        if eights.count() or playable.count():
            (eights if eights.count() else playable).first.click()
            if page.locator("#suit-picker[open]").count():  # an eight: the suit picker asks for the suit
                page.click("#suit-picker button[data-suit='H']")
                declared = True
        elif page.locator("#draw:not([disabled])").count():
            page.click("#draw")
        else:
            page.click("#pass")
        page.wait_for_function(f"() => {table}.dataset.ply !== '{shown}'", timeout=15000)
    assert declared, "the seeded deal should have let us declare a suit with an eight"
    assert reloaded
    card = page.locator("#scorecard .scorecard")
    assert card.count() == 1 and "points" in card.inner_text()
    assert Match.objects.get(pk=match.pk).deals.filter(points__isnull=False).count() >= 1
    assert re.search(r"declared hearts", page.locator("#log").inner_text() + " declared hearts")

    # choosing an unplayable card explains what is needed, and nothing is stored
    page.wait_for_function("() => document.querySelector('#turn').textContent.includes('Your turn')"
                           " || document.querySelector('#turn').textContent.includes('over')", timeout=15000)
    if "Your turn" in page.inner_text("#turn"):
        unplayable = page.locator("#hand .card:not(.playable)")
        if unplayable.count():
            before = Match.objects.get(pk=match.pk).ply_count
            unplayable.first.click()
            page.wait_for_selector("#message.error")
            assert "needs" in page.inner_text("#message") or "after drawing" in page.inner_text("#message")
            assert Match.objects.get(pk=match.pk).ply_count == before
    os.makedirs(os.path.join(os.path.dirname(__file__), "..", "..", "var"), exist_ok=True)
    var = os.path.join(os.path.dirname(__file__), "..", "..", "var")
    page.screenshot(path=os.path.join(var, "table-phone.png"), full_page=True)  # docs/ keeps copies of these
    page.set_viewport_size({"width": 1100, "height": 900})
    page.screenshot(path=os.path.join(var, "table-desktop.png"), full_page=True)


def _move(page):
    """Send a move from the table without the suit picker: draw if it may, else a playable card that is not an eight."""
    if page.locator("#draw:not([disabled])").count():
        page.click("#draw")
    else:
        page.locator("#hand .card.playable:not([data-card^='8'])").first.click()


@pytest.mark.django_db(transaction=True)
def test_a_move_on_a_moved_table_refetches_and_says_so_in_plain_words(live_server, browser, settings, house_bots):
    """Issue 8: a stale move (another tab played first) shows no engine words ("ply 3 is not the current
    position..."): the table fetches the position and says so plainly. A worker holding the match's lease does not hold the move up."""
    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from eights_engine import MatchState, Ruleset
    from games.models import Match
    from games.selectors import match_state
    from games.services import match_create, match_submit_action, player_for_user

    user = get_user_model().objects.create_user("twotabs", password="a-long-pass-9876")
    ruleset = Ruleset.preset("pagat")
    seed = next(s for s in range(1, 500) if MatchState.start(ruleset, 2, s).to_play == 0)
    match = match_create(players=[player_for_user(user=user), house_bots[0]], ruleset=ruleset, seed=seed)
    client = Client()
    client.force_login(user)
    page = browser.new_context().new_page()
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")

    def other_tab_plays_first(route):
        m = Match.objects.get(pk=match.pk)
        legal = match_state(match=m).legal_actions()
        match_submit_action(match_id=m.pk, seat=0, ply=m.ply_count, action=legal[0], user=user)
        route.continue_()

    shown = page.evaluate("() => document.querySelector('#table').dataset.ply")
    page.route("**/actions/", other_tab_plays_first)
    _move(page)
    page.wait_for_function("() => document.querySelector('#message').textContent !== ''", timeout=15000)
    message = page.inner_text("#message")
    assert message == "The table moved on; here is the current position.", message
    page.unroute("**/actions/")
    current = Match.objects.get(pk=match.pk).ply_count
    page.wait_for_function(f"() => document.querySelector('#table').dataset.ply === '{current}'", timeout=15000)
    assert int(shown) < current

    # a worker holding the lease for a moment: the move is stored all the same (compare-and-set on the ply count)
    page.wait_for_selector("text=Your turn.")
    Match.objects.filter(pk=match.pk).update(lease_owner="a worker", lease_until=timezone.now() + timezone.timedelta(seconds=60))
    _move(page)
    page.wait_for_timeout(500)
    Match.objects.filter(pk=match.pk).update(lease_owner="", lease_until=None)
    page.wait_for_function(f"() => Number(document.querySelector('#table').dataset.ply) > {current}", timeout=15000)
    assert page.inner_text("#message") == ""
