"""The ladder pages of issue 12 in a real browser: the leaderboard with its trust statements and provisional mark,
an entry's rating history chart and a rated match's rating section run with no policy violation (CSP) and pass
axe-core with no serious or critical finding."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")
from axe import axe_violations, describe  # noqa: E402 (tests/support)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.mark.django_db(transaction=True)
def test_the_ladder_pages_pass_axe_and_the_policy(live_server, browser, ladder, settings):
    from games.services import match_advance
    from tournaments.models import LadderEntry, RatingChange
    from tournaments.services import ladder_schedule_matches

    settings.LADDER_PROVISIONAL_MATCHES = 2
    for _ in range(2):
        for m in ladder_schedule_matches(ladder=ladder):
            match_advance(match_id=m.pk)
    LadderEntry.objects.filter(ladder=ladder, player__name="Rando").update(matches_played=1)
    entry = LadderEntry.objects.get(ladder=ladder, player__name="Professor")
    rated = RatingChange.objects.filter(entry=entry).first().match_id
    context = browser.new_context()
    page = context.new_page()
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    for path, ready in ((f"/ladders/{ladder.slug}/", "#trust li"),
                        (f"/ladders/{ladder.slug}/entries/{entry.pk}/", "#rating-chart polyline"),
                        (f"/matches/{rated}/", "#ladder-ratings td")):
        page.goto(live_server.url + path)
        page.wait_for_selector(ready)
        found = axe_violations(page)
        assert not found, f"{path}:\n{describe(found)}"
    assert violations == []
    page.goto(f"{live_server.url}/ladders/{ladder.slug}/")
    assert page.locator("tr.provisional").count() == 1 and "Rando" in page.locator("tr.provisional").inner_text()
    context.close()
