"""Issue 26 item 4 in a real browser: a finished match's analysis on its page (the summary, each deal's par and the
costliest decisions) and beside each decision in the replay viewer (the expert's preferred action, or its agreement),
drawn from text nodes under the Content-Security-Policy."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.mark.django_db(transaction=True)
def test_the_analysis_shows_on_the_match_page_and_beside_each_decision_in_the_replay(live_server, browser,
                                                                                     house_bots, settings):
    from eights_engine import Ruleset
    from games.matches.analysis import analysis_run
    from games.models import MatchAnalysis
    from games.services import match_advance, match_create

    settings.ANALYSIS_SAMPLES = 6
    match = match_create(players=house_bots[2:4], ruleset=Ruleset.preset("pagat", target=15), preset="pagat", seed=3)
    assert match_advance(match_id=match.pk) == "finished"
    MatchAnalysis.objects.create(match=match)
    assert analysis_run(match_id=match.pk) == "done"
    data = MatchAnalysis.objects.get(pk=match.pk).data
    page = browser.new_page()
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    section = page.inner_text("#analysis ~ table.analysis-summary")
    assert house_bots[2].name in section and house_bots[3].name in section
    assert page.locator("table.analysis-deals tbody tr").count() == len(data["deals"])
    decision = next(d for d in data["deals"][0]["decisions"])
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal=1&ply={decision['ply'] + 1}")
    page.wait_for_selector(".analysis-note")
    note = page.inner_text(".analysis-note")
    assert note.startswith("Analysis:")
    assert ("agrees" in note) == (decision["chosen"] == decision["best"])
    if decision["chosen"] != decision["best"]:
        assert f"{decision['loss']:.1f}" in note
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal=1&ply=0")  # as dealt: no decision yet
    page.wait_for_function("() => document.querySelector('#replay').dataset.ply === '0'")
    assert page.locator(".analysis-note").count() == 0
    assert not errors, errors
