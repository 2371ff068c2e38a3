"""A person who mistypes their password too often sees, in a real browser (Debian's Chromium), the login page again
saying why and for how long, and logs in once the cool-off has passed."""

import os
import re
import shutil
import time
from datetime import timedelta

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.mark.django_db(transaction=True)
def test_a_locked_login_says_why_and_opens_after_the_cool_off(live_server, settings, browser):
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(seconds=3)
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("ada", password="pw-ada-12345")
    page = browser.new_page()
    for attempt in range(3):
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "ada")
        page.fill("#id_password", f"wrong-{attempt}")
        with page.expect_navigation() as navigation:
            page.click("main button[type=submit]")
    response = navigation.value
    assert response.status == 429
    alert = page.get_by_role("alert").inner_text()
    assert re.search(r"Too many failed logins .* try again in \d s", alert), alert
    assert page.is_visible("#id_password")  # the login form is still there to try again later
    time.sleep(int(response.headers["retry-after"]) + 0.3)
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-ada-12345")
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r".*/bots/$"))
