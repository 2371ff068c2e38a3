"""A guest whose browser asks for Russian (or Bulgarian) plays at the table in that language (issue 24): the home
page, Deal, "your turn", why a card does not fit, Draw and Pass, the score card between deals, with no English left
on the table's page but names, then switches to English mid-match with the switcher and the table goes on; axe finds
nothing serious in either language."""

import os
import re
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")
from axe import axe_violations, describe  # noqa: E402 (tests/support)
from browsers import CHROMIUM  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

WORDS = {
    "ru": {"guest": "Играть сейчас как гость", "turn": "Ваш ход.", "misfit": "не подходит", "draw": "Взять",
           "pass": "Пас", "deal1": "Сдача 1", "points": "очков", "stock": "колода"},
    "bg": {"guest": "Играй сега като гост", "turn": "Ваш ред е.", "misfit": "не пасва", "draw": "Изтегли",
           "pass": "Пас", "deal1": "Раздаване 1", "points": "точки", "stock": "тесте"},
}
#: what reads the same in every language: the service's name, the API link, names of the seats (added per test)
SAME = {"Eights", "Ladder", "API", "SHA", "web", "table", "English", "Tab", "Enter"}  # English: the switcher names it in itself


def _english_left(page, names: set[str]) -> list[str]:
    """Latin words the page shows, outside code and keys' names (read as they are typed) and ``names``."""
    text = page.evaluate("""() => { const body = document.body.cloneNode(true);
        body.querySelectorAll('code, kbd, script, style, [hidden]').forEach(el => el.remove());
        return body.innerText || body.textContent; }""")
    for name in names:
        text = text.replace(name, " ")
    text = re.sub(r"\b[0-9a-f]{64}\b", " ", text)  # the deal's commitment
    return [w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in SAME]


def _click_move(page) -> None:
    """One move by clicking, in any language (test_live_pages._move: a playable card, else Draw, else Pass), then
    wait until the table shows another position."""
    from playwright.sync_api import expect
    from test_live_pages import _move

    shown = page.get_attribute("#table", "data-ply")
    _move(page)
    expect(page.locator("#table")).not_to_have_attribute("data-ply", shown, timeout=40000)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ru", "bg"])
@pytest.mark.django_db(transaction=True)
def test_a_guest_plays_in_their_language_and_switches_to_english(live_server, browser, settings, house_bots,
                                                                 language):
    from playwright.sync_api import expect

    from games.models import Match

    settings.TASKS = "eager"
    words = WORDS[language]
    context = browser.new_context(locale=language, viewport={"width": 420, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    assert page.get_attribute("html", "lang") == language
    expect(page.locator("#guest-title")).to_have_text(words["guest"])
    page.click("#deal")
    page.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    match = Match.objects.get(pk=int(re.search(r"/matches/(\d+)/play/", page.url)[1]))
    names = {s.player.name for s in match.seats.select_related("player")}
    expect(page.locator("#table")).to_have_attribute("data-your-turn", "yes", timeout=20000)
    expect(page.locator("#turn")).to_contain_text(words["turn"])
    expect(page.locator(".spot-stock")).to_contain_text(words["stock"])
    assert page.inner_text("#pass") == words["pass"] and page.inner_text("#draw").startswith(words["draw"])

    misfit = page.locator("#hand .card:not(.playable)")
    if misfit.count():  # why a card does not fit, from the engine, in the language
        misfit.first.click()
        expect(page.locator("#message")).to_contain_text(words["misfit"])
        assert not re.search(r"[A-Za-z]{3,}", page.inner_text("#message")), page.inner_text("#message")
    found = axe_violations(page)
    assert not found, f"the table in {language}:\n{describe(found)}"

    for _ in range(400):  # play by clicking until deal 1 is over: its score card, in the language
        if page.locator("#scorecard .scorecard").count() or match.status != Match.Status.RUNNING:
            break
        if page.get_attribute("#table", "data-your-turn") == "yes":
            _click_move(page)
        else:
            page.wait_for_timeout(50)
        match.refresh_from_db()
    expect(page.locator("#scorecard .scorecard h2")).to_contain_text(words["deal1"], timeout=20000)
    expect(page.locator("#scorecard .done")).to_be_visible(timeout=20000)
    assert words["points"] in page.inner_text("#scorecard")
    left = _english_left(page, names)
    assert not left, f"English left on the table in {language}: {left}"

    page.select_option("#language-choice", "en")  # the switcher, mid-match: the same table, in English
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert re.search(r"/matches/\d+/play/$", page.url)
    expect(page.locator("#turn")).to_contain_text(re.compile(r"Your turn\.|Waiting for|The match is over"),
                                                  timeout=20000)
    expect(page.locator(".spot-stock")).to_contain_text("stock")
    if page.get_attribute("#table", "data-your-turn") == "yes":
        _click_move(page)  # and the match goes on
    found = axe_violations(page)
    assert not found, f"the table in English after switching:\n{describe(found)}"
    context.close()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_russian_guest_plays_a_whole_match_reads_the_rules_and_signs_up(live_server, browser, settings,
                                                                          house_bots):
    """Issue 24's "done means": a browser asking for Russian opens the home page, deals as a guest, plays a whole
    match, reads the rules and signs up without meeting an English sentence (names aside); axe on each page."""
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from games.models import Match, Player

    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    page = browser.new_context(locale="ru-RU", viewport={"width": 420, "height": 900}).new_page()
    page.goto(f"{live_server.url}/")
    assert not _english_left(page, set()), _english_left(page, set())
    page.click("#deal")
    page.wait_for_url(re.compile(r".*/matches/\d+/play/$"))
    match = Match.objects.get(pk=int(re.search(r"/matches/(\d+)/play/", page.url)[1]))
    names = {s.player.name for s in match.seats.select_related("player")}
    for _ in range(3000):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            break
        if page.get_attribute("#table", "data-your-turn") == "yes":
            _click_move(page)
        else:
            page.wait_for_timeout(50)
    else:
        raise AssertionError("the match did not end")
    expect(page.locator("#turn")).to_contain_text("Партия окончена.", timeout=20000)
    left = _english_left(page, names)
    assert not left, f"English left at the end of the match: {left}"
    found = axe_violations(page)
    assert not found, f"the finished table in Russian:\n{describe(found)}"

    page.click("a[href$='/rules/']")  # the table's "как играть": this match's rules
    page.wait_for_url(re.compile(r".*/matches/\d+/rules/$"))
    rules = page.inner_text("article.rules").split("ruleset")[0]  # the options table for bots is code
    assert "Чем можно ходить" in rules and not re.findall(r"[A-Za-z]{3,}", rules.replace("web-table", ""))
    found = axe_violations(page)
    assert not found, f"the rules in Russian:\n{describe(found)}"

    page.goto(f"{live_server.url}/accounts/signup/")
    assert not _english_left(page, names), _english_left(page, names)
    page.fill("#id_username", "novichok")
    page.fill("#id_password1", "a-long-pass-9876")
    page.fill("#id_password2", "a-long-pass-9876")
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(rf"{re.escape(live_server.url)}/$"))
    assert page.get_attribute("html", "lang") == "ru"
    person = Player.objects.get(user=get_user_model().objects.get(username="novichok"))
    assert person.language == "ru" and match.seats.filter(player=person).exists()  # the match came along
    page.context.close()
