"""The match list and a finished match's page in a real browser (issue 11, items 1-2): no Content-Security-Policy
violation, the totals chart is drawn with a line per seat, the starting hands show as cards, and the list's filter
form and its next link take the visitor through the pages."""

import os
import shutil

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.mark.django_db(transaction=True)
def test_the_match_page_and_the_list_work_under_the_policy(live_server, browser, house_bots):
    from eights_engine import Ruleset
    from games.services import match_advance, match_create

    finished = match_create(players=house_bots[:3], ruleset=Ruleset.preset("crazy-eights"), preset="crazy-eights",
                            seed=5)
    assert match_advance(match_id=finished.pk) == "finished"
    for i in range(30):
        match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=i)
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    page.goto(f"{live_server.url}/matches/{finished.pk}/")
    chart = page.locator("#totals-chart")
    box = chart.bounding_box()
    assert box and box["height"] > 100 and box["width"] > 300
    assert page.locator("#totals-chart polyline").count() == 3
    assert page.locator("#hands-1 .mini-card").count() == 3 * 5  # crazy-eights: 5 cards each at 3 seats
    if os.environ.get("SHOTS"):
        page.screenshot(path=os.path.join(os.environ["SHOTS"], "match.png"), full_page=True)
    page.goto(f"{live_server.url}/matches/")
    page.select_option("select[name=status]", "running")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**/matches/?status=running*")
    first = page.locator("#match-list tbody tr").count()
    assert first == 25
    page.click("a[rel=next]")
    page.wait_for_url("**cursor=*")
    assert page.locator("#match-list tbody tr").count() == 5
    if os.environ.get("SHOTS"):
        page.screenshot(path=os.path.join(os.environ["SHOTS"], "list.png"), full_page=True)
    assert violations == []
