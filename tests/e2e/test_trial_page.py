"""The trial page in a real browser: it shows each match as it ends (its script asks the trial's API and redraws
the page), runs under the Content-Security-Policy, and has no serious accessibility violation (axe-core)."""

import os
import shutil

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

from axe import axe_violations, describe  # noqa: E402 (tests/support)


@pytest.mark.django_db(transaction=True)
def test_the_trial_page_shows_results_as_they_come_in(live_server, browser, house_bots):
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from bot_servers import BotServer
    from bots_api.models import Bot
    from bots_api.services import bot_register
    from bots_api.trials import trial_create
    from games.models import Match
    from games.services import match_advance

    server = BotServer("good", "s3cret")
    try:
        owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
        bot, _secret = bot_register(owner=owner, name="Probe", endpoint_url=server.url)
        Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now(), reported_version="3.1")
        bot.refresh_from_db()
        trial = trial_create(bot=bot, opponents=["house:heuristic"], seeds=[8, 9])
        client = Client()
        client.force_login(owner)
        context = browser.new_context()
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                              "value": client.cookies[settings.SESSION_COOKIE_NAME].value}])
        page = context.new_page()
        violations = []
        page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
        page.goto(f"{live_server.url}/trials/{trial.pk}/")
        assert page.inner_text("#trial-status") == "running"
        assert "3.1" in page.inner_text("#trial-setup")
        assert page.locator("#trial-results a", has_text="replay").count() == 0
        assert axe_violations(page) == [], describe(axe_violations(page))
        first = Match.objects.filter(trial_match__trial=trial, trial_match__number=0).get()
        assert match_advance(match_id=first.pk) == "finished"
        page.wait_for_selector("#trial-results a:has-text('replay')", timeout=20000)  # redrawn with the result
        assert page.locator("#trial-results a", has_text="replay").count() == 1
        for match in Match.objects.filter(trial_match__trial=trial, status=Match.Status.RUNNING):
            match_advance(match_id=match.pk)
        page.wait_for_selector("#trial-status:has-text('finished')", timeout=20000)
        assert "%" in page.inner_text("#trial-summary")
        assert violations == []
        context.close()
    finally:
        server.stop()
