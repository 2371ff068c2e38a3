"""The table a card player expects (issue 23): cards with faces (corner indices, a centre, court frames), the other
hands face down in their seats, the seats in the order of play, a sound for "your turn" on request, and between
deals the score card with Next deal (the table waits for it, or for TABLE_NEXT_DEAL_SECONDS). At phone width, with
axe scanning the pause."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")
from axe import axe_violations, describe  # noqa: E402 (tests/support)
from browsers import CHROMIUM  # noqa: E402
from test_accessibility import _logged_in_page, _person_match  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def _play_out_the_first_deal(match, user):
    """The person's moves through the service (a play when one fits, else what is legal) until deal 1 ends."""
    from games.matches.snapshots import match_state_snapshot
    from games.models import Match
    from games.services import match_advance, match_submit_action

    for _ in range(500):
        row = Match.objects.get(pk=match.pk)
        state = match_state_snapshot(match=row).state
        if state.results or row.status != Match.Status.RUNNING:
            return
        if state.to_play != 0:
            match_advance(match_id=row.pk)
            continue
        actions = state.legal_actions()
        action = next((a for a in actions if a["type"] == "play"), actions[0])
        match_submit_action(match_id=row.pk, seat=0, ply=row.ply_count, action=action, user=user)
    raise AssertionError("deal 1 did not end in 500 moves")


@pytest.mark.django_db(transaction=True)
def test_the_table_looks_like_cards_and_waits_for_next_deal(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    settings.TABLE_NEXT_DEAL_SECONDS = 60
    from playwright.sync_api import expect

    from eights_engine import Ruleset

    user, match = _person_match(house_bots, "looker", Ruleset.preset("web-table"), seats=3)
    page = _logged_in_page(browser, live_server, user, viewport={"width": 360, "height": 800})
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")
    cards = page.locator("#hand .card")
    for i in range(cards.count()):
        card = cards.nth(i)
        code = card.get_attribute("data-card")
        assert card.locator(".index .rank").count() == 1 and card.locator(".centre-face").count() == 1
        assert card.locator(".court").count() == (1 if code[0] in "JQK" else 0)
    seats = page.locator("#seats .seat")
    assert seats.count() == 3 and page.locator("#seats .play-order").count() == 2
    assert "you" in seats.first.inner_text()  # the order of play starts from your seat
    for i in (1, 2):  # the others' hands face down: one back a card (up to 12)
        count = int(seats.nth(i).inner_text().split(" card")[0].split()[-1])
        assert seats.nth(i).locator(".mini-back").count() == min(count, 12)
    assert page.locator("#turn-sound").count() == 1
    os.makedirs("var", exist_ok=True)
    page.screenshot(path="var/table-look-phone.png", full_page=True)

    _play_out_the_first_deal(match, user)
    next_deal = page.locator("#next-deal")
    expect(next_deal).to_be_visible(timeout=20000)
    expect(page.locator("#scorecard .scorecard")).to_contain_text("Deal 1")
    assert page.locator("#hand .card").count() == 0  # the last deal's table, the score card: no new hand yet
    expect(page.locator("#scorecard .done")).to_be_visible(timeout=20000)
    found = axe_violations(page)
    assert not found, f"the pause between deals:\n{describe(found)}"
    page.screenshot(path="var/table-look-score-card.png", full_page=True)
    next_deal.click()
    expect(page.locator("#hand .card").first).to_be_visible(timeout=10000)
    assert page.locator("#next-deal").count() == 0
    page.context.close()
