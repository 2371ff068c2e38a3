"""The Content-Security-Policy leaves every page working (issue 8, finding 3), in a real browser: the API docs
(Swagger UI), DRF's browsable API, the Django admin, the ladder page that waits for a person, and the bot page's delete confirmation
all run with no policy violation, now that no page has inline script or style."""

import os
import re
import shutil

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")




def _page(browser, live_server, user=None):
    """A page (logged in as ``user`` if given) that records policy violations in ``page.violations``."""
    from django.conf import settings
    from django.test import Client

    context = browser.new_context()
    if user is not None:
        client = Client()
        client.force_login(user)
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                              "value": client.cookies[settings.SESSION_COOKIE_NAME].value}])
    page = context.new_page()
    page.violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and page.violations.append(m.text))
    return page


@pytest.mark.django_db(transaction=True)
def test_the_api_docs_and_the_admin_work_under_the_policy(live_server, browser, house_bots):
    from django.contrib.auth import get_user_model

    page = _page(browser, live_server)
    response = page.goto(live_server.url + "/api/docs/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy + ";" and "unsafe" not in policy  # the docs keep the site's policy
    page.wait_for_selector(".opblock-tag", timeout=20000)  # Swagger UI fetched the schema and drew the endpoints
    page.click("text=/api/matches/{match_id}/seats/{seat}/")  # and opens an operation
    page.wait_for_selector(".opblock-body", timeout=10000)
    assert page.violations == []

    page.goto(live_server.url + "/api/players/Rando/")  # DRF's browsable API: its own static scripts run ...
    page.wait_for_selector(".response-info")
    page.click(".format-selection button.dropdown-toggle")  # (Bootstrap's script opens the format menu)
    page.wait_for_selector(".format-selection .dropdown-menu a", state="visible")
    # ... while DRF's few style attributes (a menu's float: right) are refused: cosmetic, and kept that way
    assert [v for v in page.violations if "inline style" not in v] == []
    page.violations.clear()

    admin = get_user_model().objects.create_superuser(username="root", password="a-long-pass-9876")
    page = _page(browser, live_server)
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "a-long-pass-9876")
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r".*/admin/$"))
    for path in ("/admin/games/player/", f"/admin/games/player/{house_bots[0].pk}/change/", "/admin/auth/user/add/",
                 f"/admin/auth/user/{admin.pk}/change/"):
        assert page.goto(live_server.url + path).status == 200, path
        page.wait_for_load_state("load")
    page.goto(live_server.url + "/admin/games/player/")
    page.check("#action-toggle")  # the admin's own script runs: the select-all box ticks the rows
    assert page.locator("input.action-select:checked").count() == len(house_bots)
    assert page.violations == []


@pytest.mark.django_db(transaction=True)
def test_a_waiting_person_is_taken_to_the_table_and_deleting_a_bot_asks_first(live_server, browser, ladder):
    from django.contrib.auth import get_user_model

    from bots_api.models import Bot
    from bots_api.services import bot_register
    from tournaments.services import ladder_play_now

    users = get_user_model().objects
    waiter, other = users.create_user("waiter", password="x-long-pass-1"), users.create_user("other", password="x-long-pass-1")
    page = _page(browser, live_server, waiter)
    page.goto(f"{live_server.url}/ladders/{ladder.slug}/")
    page.select_option("#match_with", "people")
    page.click("text=Play now")
    page.wait_for_selector("#waiting")  # static/js/ladder.js asks again every 3 s
    match, _seat = ladder_play_now(ladder=ladder, user=other, match_with="people")
    page.wait_for_url(f"**/matches/{match.pk}/play/", timeout=15000)
    page.wait_for_selector("#seats .seat")
    assert page.violations == []

    bot, _secret = bot_register(owner=waiter, name="Doomed", endpoint_url="http://127.0.0.1:9/")
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.click("button[value=delete]")
    page.wait_for_timeout(300)
    assert asked and asked[0].startswith("Delete Doomed?")
    assert Bot.objects.filter(pk=bot.pk).exists()  # refused: nothing was sent
    page.once("dialog", lambda d: d.accept())
    page.click("button[value=delete]")
    page.wait_for_url(f"{live_server.url}/bots/")
    assert not Bot.objects.filter(pk=bot.pk).exists()
    assert page.violations == []
