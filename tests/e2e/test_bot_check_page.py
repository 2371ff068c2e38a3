"""The bot page's Verify button in a real browser (Playwright driving Debian's Chromium): the page answers at once
with "Checking your bot…", its static script (bots_api/static/bots_api/bot_check.js, no inline script) polls the
check, and the answer replaces it, as text, without a reload. Zero-setup mode: the check runs in a thread."""

import os
import re
import shutil

import pytest

from eights_engine.bots.check import TURN_CHECKS

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")




@pytest.mark.django_db(transaction=True)
def test_verify_shows_checking_and_then_the_answer_as_text(live_server, browser, settings):
    settings.TASKS = "in_process"  # zero-setup mode: no broker, the check runs in a thread
    from django.contrib.auth import get_user_model

    from bot_servers import BotServer
    from bots_api.models import Bot
    from bots_api.services import bot_register

    owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
    bot, secret = bot_register(owner=owner, name="Slowpoke", endpoint_url="http://127.0.0.1:9/")
    # a bot that answers every turn in 250 ms (about 5 s in all: some 18 turns), with a name that is markup
    server = BotServer("sleep:250", secret, "<img src=x onerror=alert(1)>")
    Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(f"{live_server.url}/accounts/login/?next=/bots/{bot.pk}/")
        page.fill("#id_username", "ada")
        page.fill("#id_password", "pw-ada-123")
        page.click("main button[type=submit], main input[type=submit]")
        page.wait_for_url(re.compile(rf".*/bots/{bot.pk}/$"))
        assert page.inner_text("#bot-badge") == "not verified"
        page.click("button[value=verify]")
        page.wait_for_url(re.compile(rf".*/bots/{bot.pk}/$"))
        assert page.inner_text("#bot-check-status").startswith("Checking your bot…")
        page.wait_for_function("() => document.querySelector('#bot-check').dataset.state === 'passed'", timeout=20000)
        assert page.inner_text("#bot-check-status") == f"Passed: all {TURN_CHECKS + 5} checks passed."
        assert page.locator("#bot-check-results li").count() == TURN_CHECKS + 5
        assert "<img src=x onerror=alert(1)>" in page.inner_text("#bot-check-results li >> nth=0")  # as text
        assert page.inner_text("#bot-badge") == "ready"
        assert page.locator("#bot-check img").count() == 0 and dialogs == []
    finally:
        page.close()
        server.stop()
    assert Bot.objects.get(pk=bot.pk).can_play
