"""The reshuffle at the table (issue 10, part 3), in a real browser: the person's draw finds the stock empty, the
pile visibly moves from the discard spot into the stock, a notice and the deal log say it in words; with
prefers-reduced-motion nothing moves and the notice says it still."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)
from reshuffle_match import match_at_a_reshuffle  # noqa: E402 (tests/support)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

TABLE = "document.querySelector('#table')"


def _open_table(live_server, browser, user, match, **context):
    from django.test import Client

    client = Client()
    client.force_login(user)
    page = browser.new_context(**context).new_page()
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": live_server.url}])
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")
    return page


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_person_sees_the_pile_go_back_into_the_stock(live_server, browser, settings, house_bots, motion):
    settings.TASKS = "eager"  # the bot answers inside the request (no worker in this test)
    from django.contrib.auth import get_user_model

    from games.selectors import match_state
    from games.services import player_for_user

    user = get_user_model().objects.create_user("shuffler", password="a-long-pass-9876")
    match = match_at_a_reshuffle(user=user, person=player_for_user(user=user), bot=house_bots[3])
    discard = match_state(match=match).deal.view(0)["discard_count"]
    count = discard - 1
    page = _open_table(live_server, browser, user, match, reduced_motion=motion)
    assert page.inner_text("#stock") == "0" and page.inner_text("#discard") == str(discard)
    assert page.locator("#reshuffle-note").is_hidden()  # nothing happened yet

    page.click("#draw")
    page.wait_for_function(f"() => {TABLE}.dataset.reshuffles === '1'", timeout=15000)
    words = f"The stock ran out: {count} cards from the discard pile were shuffled into a new stock (the top card stays)"
    note = page.locator("#reshuffle-note")
    assert note.is_visible() and note.inner_text() == words + "."
    line = page.locator("#log li.log-reshuffle")
    assert line.count() == 1 and line.inner_text().startswith(words)
    # the log line comes before the draw it made possible
    assert "drew a card" in page.locator("#log li.log-reshuffle + li").inner_text()
    style = "getComputedStyle(document.querySelector('#pile-move'))"
    if motion == "reduce":  # a still notice instead of the movement
        assert page.evaluate(f"() => {style}.animationName") == "none"
        assert page.evaluate(f"() => {style}.display") == "none"
    else:  # the pile really travels: its animation runs from the discard spot to the stock spot
        assert page.evaluate(f"() => {style}.animationName") == "pile-to-stock"
        assert page.evaluate("() => document.querySelector('#pile-move').getAnimations().length") >= 1
    # the piles show where the cards went (a play or the bot's turn may have followed the draw already)
    assert int(page.inner_text("#discard")) <= 3 and int(page.inner_text("#stock")) >= count - 3

    page.wait_for_function("() => !document.querySelector('#pile-move').classList.contains('moving')", timeout=5000)
    assert note.is_visible()  # the words stay until the next reshuffle or deal
    page.reload()  # a reload shows the history as it is: the log keeps the line, nothing moves again
    page.wait_for_selector("#log li.log-reshuffle")
    page.wait_for_timeout(1500)
    assert page.evaluate(f"() => {TABLE}.dataset.reshuffles") is None


@pytest.mark.django_db(transaction=True)
def test_the_reshuffle_notice_goes_when_the_match_is_over(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"
    from django.contrib.auth import get_user_model

    from games.services import match_abort, player_for_user

    user = get_user_model().objects.create_user("shuffler", password="a-long-pass-9876")
    match = match_at_a_reshuffle(user=user, person=player_for_user(user=user), bot=house_bots[3])
    page = _open_table(live_server, browser, user, match)
    page.click("#draw")
    page.wait_for_function(f"() => {TABLE}.dataset.reshuffles === '1'", timeout=15000)
    assert page.locator("#reshuffle-note").is_visible()
    assert match_abort(match_id=match.pk, reason="ended by the test")
    page.wait_for_selector("text=This match was ended early", timeout=20000)
    assert page.locator("#reshuffle-note").is_hidden()  # no stale green notice above the match's end


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language,words", [
    ("ru", "Колода кончилась: {count} карт из сброса перетасованы в новую колоду (верхняя карта остаётся)"),
    ("bg", "Тестето свърши: {count} карти от купчината бяха разбъркани в ново тесте (горната карта остава)")])
def test_the_reshuffle_reads_in_russian_and_bulgarian(live_server, browser, settings, house_bots, language, words):
    """Issue 24: the reshuffle's notice and log line in the person's language (their account's), plural forms
    included (the pile holds a count that takes the many form)."""
    settings.TASKS = "eager"
    from django.contrib.auth import get_user_model

    from games.selectors import match_state
    from games.services import player_for_user

    user = get_user_model().objects.create_user(f"shuffler-{language}", password="a-long-pass-9876")
    person = player_for_user(user=user)
    type(person).objects.filter(pk=person.pk).update(language=language)  # the account's language: kept at log-in
    match = match_at_a_reshuffle(user=user, person=person, bot=house_bots[3])
    count = match_state(match=match).deal.view(0)["discard_count"] - 1
    from django.test import Client

    client = Client()
    client.force_login(user)
    page = browser.new_context().new_page()  # the browser asks for English: the account's language wins
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": live_server.url}])
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_function(f"() => {TABLE}.dataset.yourTurn === 'yes'", timeout=15000)
    page.click("#draw")
    page.wait_for_function(f"() => {TABLE}.dataset.reshuffles === '1'", timeout=15000)
    expected = words.format(count=count)
    assert count % 10 >= 5 or count % 10 == 0 or 11 <= count % 100 <= 14  # the "many" form the words above use
    assert page.inner_text("#reshuffle-note") == expected + "."
    assert page.locator("#log li.log-reshuffle").inner_text().startswith(expected)
    page.context.close()
