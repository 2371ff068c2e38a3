"""The table as seed 001 describes it (issue 10 part 4), in a real browser, checked with axe-core: no serious or
critical violations on the table during a running match, the home page, a ladder page, a match page and a rules
page; no direction arrow where play never reverses (one under reverse rules); the suit to follow in the middle of the
table with its shape and its name in words; ranks as real text, readable at 200 % text size with nothing
overlapping or cut off; the four suits told apart by shape."""

import os
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")
from axe import axe_version, axe_violations, describe  # noqa: E402 (tests/support)
from browsers import CHROMIUM  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

SHAPES = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANK_WORDS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king", "8": "eight"}


def _logged_in_page(browser, live_server, user, **context_options):
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(**context_options)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                          "value": client.cookies[settings.SESSION_COOKIE_NAME].value}])
    return context.new_page()


def _person_match(house_bots, username, ruleset, seats=2, with_eight=False):
    """A running match with a person in seat 0 whose turn it is (holding an eight if ``with_eight``), and house bots
    in the other seats."""
    from django.contrib.auth import get_user_model

    from eights_engine import MatchState
    from games.services import match_create, player_for_user

    user = get_user_model().objects.create_user(username, password="a-long-pass-9876")
    seed = next(s for s in range(1, 5000) if MatchState.start(ruleset, seats, s).to_play == 0
                and not MatchState.start(ruleset, seats, s).deal.awaiting_declaration
                and (not with_eight or any(c[0] == "8" for c in MatchState.start(ruleset, seats, s).deal.hand(0))))
    match = match_create(players=[player_for_user(user=user), *house_bots[:seats - 1]], ruleset=ruleset, seed=seed)
    return user, match


def word_in(text, words):
    return any(w in text for w in words)


def _scan(page, what):
    found = axe_violations(page)
    assert not found, f"{what}:\n{describe(found)}"


@pytest.mark.django_db(transaction=True)
def test_axe_finds_no_serious_violation_on_the_pages_of_a_match(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    from eights_engine import Ruleset
    from games.services import match_advance
    from tournaments.models import LadderMatch
    from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches

    ladder = ladder_create(name="Scanned ladder", slug="scanned", max_running_matches=2)
    for bot in house_bots:
        ladder_entry_create(ladder=ladder, player=bot)
    finished = ladder_schedule_matches(ladder=ladder, limit=1)[0]
    match_advance(match_id=finished.pk)
    user, match = _person_match(house_bots, "scanner", Ruleset.preset("pagat"), with_eight=True)
    LadderMatch.objects.create(ladder=ladder, match=match)

    page = _logged_in_page(browser, live_server, user)
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")
    page.wait_for_selector("#hand .card.playable, #draw:not([disabled])")
    assert axe_version(page).startswith("4.")
    _scan(page, "the table (a running match, your turn)")
    page.locator("#hand .card:not(.playable)").first.click()  # a refused card: the message is scanned too
    page.wait_for_selector("#message.error")
    _scan(page, "the table with a message")
    page.locator("#hand .card[data-card^='8']").first.click()  # an eight: the suit picker (a modal dialog)
    page.wait_for_selector("#suit-picker[open]")
    _scan(page, "the table's suit picker")
    page.click("#suit-picker button[data-suit='']")

    for path, what in (("/", "the home page"), ("/ladders/scanned/", "a ladder page"),
                       (f"/matches/{finished.pk}/", "a finished match's page"),
                       (f"/matches/{match.pk}/", "a running match's page"), ("/rules/web-table/", "a rules page"),
                       (f"/matches/{match.pk}/rules/", "a match's rules page"), ("/matches/", "the match list")):
        page.goto(live_server.url + path)
        _scan(page, what)


def _geometry_problems(page, scope="#table"):
    """Elements of the table that overlap one another or cut their own text off (scrollWidth/Height past the box)."""
    return page.evaluate("""([scope]) => {
      const root = document.querySelector(scope);
      const boxes = [...root.querySelectorAll('.card, .seat, .centre > div, #suit, .controls button, #turn, h2')]
        .filter(el => el.offsetParent !== null);
      const problems = [];
      for (const el of boxes) {
        if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
          problems.push(`clipped: ${el.id || el.className} ${el.textContent.trim().slice(0, 30)} `
                        + `${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
      }
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.contains(b) || b.contains(a)) continue;
        const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
        const w = Math.min(r.right, s.right) - Math.max(r.left, s.left), h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
        if (w > 1 && h > 1) problems.push(`overlap: ${a.id || a.className} "${a.textContent.trim().slice(0, 20)}" and `
                                          + `${b.id || b.className} "${b.textContent.trim().slice(0, 20)}"`);
      }
      return problems;
    }""", [scope])


@pytest.mark.django_db(transaction=True)
def test_the_table_reads_as_the_document_describes(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    from eights_engine import Ruleset

    user, match = _person_match(house_bots, "reader", Ruleset.preset("web-table"), seats=3)
    page = _logged_in_page(browser, live_server, user, viewport={"width": 1100, "height": 900})
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")

    # play never reverses under web-table: no direction arrow anywhere on the table
    assert page.locator("#direction").count() == 0 or not page.locator("#direction").is_visible()
    assert not any(a in page.inner_text("#table") for a in "↻↺⟳⟲")

    # the suit to follow: in the middle of the table, its shape and its name in words
    suit = page.locator("#suit")
    shape, word = suit.locator(".suit-shape").inner_text(), suit.locator(".suit-name").inner_text()
    assert (shape, word) in {(SHAPES[s], NAMES[s]) for s in SHAPES}
    centre, box = page.locator(".centre").bounding_box(), suit.bounding_box()
    middle = box["x"] + box["width"] / 2
    assert abs(middle - (centre["x"] + centre["width"] / 2)) < centre["width"] * 0.15, (middle, centre)

    # ranks are real text; each card's accessible name says rank and suit in words; suits differ by shape
    cards = page.locator("#hand .card")
    assert cards.count() == 5
    for i in range(cards.count()):
        card = cards.nth(i)
        code = card.get_attribute("data-card")
        rank_text = card.locator(".rank").inner_text()
        assert rank_text == ("10" if code[0] == "T" else code[0])
        assert card.locator(".suit").inner_text() == SHAPES[code[1]]
        name = card.get_attribute("aria-label")
        assert name.startswith(f"{RANK_WORDS.get(code[0], code[0])} of {NAMES[code[1]]}")
    top = page.locator("#top .card")
    assert top.locator(".rank").inner_text() and top.locator(".suit").inner_text() in SHAPES.values()
    # what a screen reader gets (Chromium's accessibility tree): each card of the hand by name, the top card and
    # the suit to follow in words
    code = cards.first.get_attribute("data-card")
    word = f"{RANK_WORDS.get(code[0], code[0])} of {NAMES[code[1]]}"
    assert page.get_by_role("button", name=word).count() >= 1
    top_code = top.get_attribute("data-card")
    assert f"{RANK_WORDS.get(top_code[0], top_code[0])} of {NAMES[top_code[1]]}" in page.locator("#top").aria_snapshot()
    assert word_in(page.locator(".spot-suit").aria_snapshot(), NAMES.values())
    assert len(set(SHAPES.values())) == 4

    # greyscale: every card and the suit to follow carry the suit's own shape (checked above), and the colours
    # pass axe's contrast rule; var/table-greyscale.png shows the table drawn without colour
    var = os.path.join(os.path.dirname(__file__), "..", "..", "var")
    os.makedirs(var, exist_ok=True)
    page.evaluate("() => { document.documentElement.style.filter = 'grayscale(1)'; }")
    page.screenshot(path=os.path.join(var, "table-greyscale.png"), full_page=True)
    page.evaluate("() => { document.documentElement.style.filter = ''; }")

    # 200 % zoom: twice the text size (root font size doubled) at desktop width, and a 1280-pixel window at 200 %
    # (640 CSS pixels wide): nothing overlaps, nothing is cut off, the hand stays operable
    assert _geometry_problems(page) == []
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    page.wait_for_timeout(100)
    assert page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#hand .card .rank')).fontSize)") >= 30
    assert _geometry_problems(page) == []
    page.set_viewport_size({"width": 640, "height": 900})
    page.evaluate("() => { document.documentElement.style.fontSize = ''; }")
    page.wait_for_timeout(100)
    assert _geometry_problems(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    page.wait_for_timeout(100)
    assert _geometry_problems(page) == []
    assert axe_violations(page) == []
    var = os.path.join(os.path.dirname(__file__), "..", "..", "var")
    os.makedirs(var, exist_ok=True)
    page.screenshot(path=os.path.join(var, "table-200-percent.png"), full_page=True)


@pytest.mark.django_db(transaction=True)
def test_a_direction_arrow_only_under_reverse_rules(live_server, browser, settings, house_bots):
    settings.TASKS = "eager"
    settings.HUMAN_MOVE_SECONDS = 600
    from eights_engine import Ruleset

    user, match = _person_match(house_bots, "turner", Ruleset.preset("pagat", reverse_rank="A"), seats=3)
    page = _logged_in_page(browser, live_server, user)
    page.goto(f"{live_server.url}/matches/{match.pk}/play/")
    page.wait_for_selector("text=Your turn.")
    direction = page.locator("#direction")
    assert direction.is_visible()
    assert "clockwise" in direction.inner_text() and any(a in direction.inner_text() for a in "↻↺")
    _scan(page, "the table under reverse rules")


def test_the_scan_reports_what_it_should(browser):
    """A control: axe really runs and reports serious faults (a scan that silently checked nothing would pass)."""
    page = browser.new_page()
    page.set_content("<html><body><button></button><p class='x'>faint</p><img src='x.png'></body></html>")
    found = {v["id"] for v in axe_violations(page)}
    assert {"button-name", "image-alt", "html-has-lang", "document-title"} <= found, found
