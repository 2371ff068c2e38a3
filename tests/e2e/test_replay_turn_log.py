"""The replay viewer's "what my bot saw here" (issue 14) in a real browser: the bot's owner opens, at one of its
bot's plies, the request the bot was sent, its reply and its debug note, all as text (the note is markup here);
anyone else gets no button and no turn data."""

import os
import re
import shutil

import pytest

pytest.importorskip("playwright.sync_api")
from browsers import CHROMIUM  # noqa: E402 (tests/support; the `browser` fixture is in tests/conftest.py)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

NOTE = "<img src=x onerror=alert(1)> held the eight"


@pytest.mark.django_db(transaction=True)
def test_the_owner_sees_what_the_bot_saw_at_its_ply_and_nobody_else_does(live_server, browser, house_bots):
    import json

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bot_servers import BotServer
    from bots_api.models import Bot, BotTurn
    from bots_api.services import bot_register
    from eights_engine import Ruleset
    from games.models import Move
    from games.services import match_advance, match_create

    owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
    get_user_model().objects.create_user("bob", password="pw-bob-123")
    server = BotServer(f"debug:{NOTE}", "s3cret")
    bot, _secret = bot_register(owner=owner, name="Seer", endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
    match = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=11)
    assert match_advance(match_id=match.pk) == "finished"
    server.stop()
    move = Move.objects.filter(deal__match=match, deal__number=1, seat=0).order_by("ply")[2]
    logged = BotTurn.objects.get(bot=bot, match=match, deal_number=1, ply=move.ply)
    hand = json.loads(logged.request)["view"]["hand"]
    replay = f"{live_server.url}/matches/{match.pk}/replay/?deal=1&ply={move.ply + 1}"

    dialogs = []
    for who in (None, "bob"):
        page = browser.new_page()
        if who:
            page.goto(f"{live_server.url}/accounts/login/")
            page.fill("#id_username", who)
            page.fill("#id_password", f"pw-{who}-123")
            page.click("main button[type=submit], main input[type=submit]")
            page.wait_for_load_state()
        page.goto(replay)
        page.wait_for_function("() => document.querySelector('#replay').dataset.ply !== undefined")
        assert page.locator("#my-bot-turn, #my-bot-open, #replay-seat-tools").count() == 0
        assert "held the eight" not in page.content()
        page.close()

    page = browser.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{live_server.url}/accounts/login/?next=/matches/{match.pk}/replay/%3Fdeal%3D1%26ply%3D{move.ply + 1}")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-ada-123")
    page.click("main button[type=submit], main input[type=submit]")
    page.goto(replay)
    page.click("#my-bot-open")
    page.wait_for_selector("#my-bot-debug")
    assert page.inner_text("#my-bot-debug") == f"debug: {NOTE}"
    assert page.locator("#my-bot-turn img").count() == 0 and dialogs == []
    # no debug_warning here: nothing printed in its place (a null child would be the text node "null")
    assert page.evaluate("""() => { const w = document.createTreeWalker(document.querySelector('#my-bot-turn'),
        NodeFilter.SHOW_TEXT); const out = []; while (w.nextNode()) if (w.currentNode.parentElement.tagName !== 'PRE')
        out.push(w.currentNode.textContent); return out.filter(t => t.trim() === 'null').length; }""") == 0
    request = json.loads(page.inner_text("#my-bot-request"))
    assert request == json.loads(logged.request) and request["view"]["hand"] == hand
    # a ply of the house seat has no button
    other = Move.objects.filter(deal__match=match, deal__number=1, seat=1).order_by("ply").first()
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?deal=1&ply={other.ply + 1}")
    page.wait_for_function("() => document.querySelector('#replay').dataset.ply !== undefined")
    assert page.locator("#my-bot-open").count() == 0 and page.locator("#my-bot-turn").is_hidden()
    assert re.search(r"/api/bots/\d+/turns/", page.content())  # the tools block is there for the owner
    page.goto(replay)
    page.click("#my-bot-turn a")  # "(in the turn log)": the turn log page filtered to that ply
    page.wait_for_selector("#turns li.panel")
    assert page.locator("#turns li.panel").count() == 1
    assert f"deal 1 · ply {move.ply} · seat 0" in page.inner_text("#turns li.panel")
    page.goto(f"{live_server.url}/bots/{bot.pk}/turns/")
    page.wait_for_selector("#turns li.panel")
    assert NOTE in page.inner_text("#turns") and page.locator("#turns img").count() == 0 and dialogs == []
    from axe import axe_violations

    assert axe_violations(page) == []
    page.close()
