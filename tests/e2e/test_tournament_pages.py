"""The tournament pages in a real browser under the site's Content-Security-Policy, checked with axe-core: the list,
a finished knockout's page (standings and bracket), a round page, and a registering tournament's page with its
Enter form for a logged-in person. No serious or critical violation, and no CSP report."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")
from axe import axe_violations, describe  # noqa: E402 (tests/support)
from browsers import CHROMIUM  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.mark.django_db(transaction=True)
def test_axe_finds_no_serious_violation_on_the_tournament_pages(live_server, browser, settings, house_bots):
    from django.conf import settings as django_settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games.models import Match
    from games.services import match_advance
    from tournaments.tournament_services import (tournament_advance, tournament_create, tournament_register,
                                                 tournament_start)

    settings.TASKS = "eager"
    done = tournament_create(name="Scanned knockout", format="knockout", target=20)
    for p in house_bots:
        tournament_register(tournament=done, player=p)
    tournament_start(tournament=done)
    for _ in range(5):
        for m in Match.objects.filter(tournament_match__round__tournament=done, status="running"):
            match_advance(match_id=m.pk)
        tournament_advance(tournament_id=done.pk)
    open_ = tournament_create(name="Scanned open", format="swiss", rounds=2)
    user = get_user_model().objects.create_user("scanner", password="a-long-pass-9876")
    client = Client()
    client.force_login(user)
    context = browser.new_context()
    context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "url": live_server.url,
                          "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value}])
    page = context.new_page()
    violations = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)
    for path, what in (("/tournaments/", "the tournament list"), (f"/tournaments/{done.pk}/", "a knockout's page"),
                       (f"/tournaments/{done.pk}/rounds/1/", "a round page"),
                       (f"/tournaments/{open_.pk}/", "a registering tournament with its Enter form")):
        page.goto(live_server.url + path)
        found = axe_violations(page)
        assert not found, f"{what}:\n{describe(found)}"
    assert page.locator("button", has_text="Enter").count() == 1
    assert not violations, violations
