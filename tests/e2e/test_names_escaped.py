"""No name runs script (issue 8, finding 3): players, owners, bots and their words carry script in several forms, and
every page where they appear shows them as text in a real browser (Playwright driving Debian's Chromium).

A page fails on any dialog, on any element the names would inject, and on any Content-Security-Policy violation of
its own (the policy forbids inline script and style, so a page that still needs one is caught here too). Then a
deliberate injection proves the policy itself stops script that an escaping slip would let through.
"""

import os
import shutil
from urllib.parse import quote

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")

#: One script form per carrier; each calls alert (a dialog) if it ever runs.
VIEWER = "<img src=x onerror=alert(1)>"  # a person's user name (so their player's name)
OWNER = '"><svg onload=alert(2)>'  # the owner of the good bot ("by ..." on the table and the ladder)
OTHER_OWNER = "javascript:alert(3)//<b>b</b>"  # the owner of the faulty bot
HOUSE = "<script>alert(4)</script>"  # a house bot (a slash: also a path on its profile URL)
HOUSE_WORDS = "'><img src=x onerror=alert(5)>"  # that house bot's description
OTHER_HOUSE = '<a href="javascript:alert(12)">x</a>'  # a link a click would run
GOOD_BOT = "<img src=x onerror=alert(6)>"  # a registered HTTP bot
GOOD_BOT_SAYS = "<svg><script>alert(7)</script>"  # the name the bot gives in its ping
FAULTY_BOT = "javascript:alert(8)"  # a bot whose replies are schema faults echoing ...
FAULTY_CARD = "<img src=x onerror=alert(9)>"  # ... this "card" (the fault's cause)
PAGE_BOT = "<iframe src=javascript:alert(10)>"  # registered through the page's form
LADDER = "<img src=x onerror=alert(11)> ladder"

#: Elements or attributes any of the names above would inject if a page built HTML from them.
INJECTED = """() => [...document.querySelectorAll(
    'img[src="x"], svg[onload], iframe, b, [onerror], [onload], [onclick], a[href^="javascript:" i],'
    + ' script:not([src]):not([type="application/json"])')].map(el => el.outerHTML.slice(0, 120))"""




def _user(username):
    """A user straight through the model: the sign-up form refuses these names, but older accounts, the admin
    and other ways in may not, and the pages must hold either way."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password="a-long-pass-9876")


def _bot(owner, name, url):
    """A bot through the service, or straight through the models if the service refuses the name (a later
    name check may): the point here is how pages show it."""
    from bots_api.models import Bot
    from bots_api.services import BotError, bot_register
    from games.models import Player

    try:
        return bot_register(owner=owner, name=name, endpoint_url=url)[0]
    except BotError:
        player = Player.objects.create(name=name, kind=Player.Kind.BOT, user=owner, is_active=True)
        return Bot.objects.create(player=player, owner=owner, endpoint_url=url, secret="s3cret-" + "x" * 30)


class Watch:
    """One browser context logged in as ``user``, recording dialogs and CSP violations on every page."""

    def __init__(self, browser, live_server, user):
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(user)
        self.base = live_server.url
        self.context = browser.new_context()
        self.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                                   "value": client.cookies[settings.SESSION_COOKIE_NAME].value, "url": self.base}])
        # init scripts run from the browser itself, not from the page: the policy does not apply to them
        self.context.add_init_script("window.__csp = []; document.addEventListener('securitypolicyviolation', "
                                     "e => window.__csp.push(e.effectiveDirective + ' ' + e.blockedURI));")
        self.page = self.context.new_page()
        self.dialogs, self.console = [], []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("console", lambda m: self.console.append(m.text))

    def open(self, path, *, shows=(), ready=None):
        """Open ``path``; fail on a dialog, an injected element or a policy violation; check ``shows`` appear
        as text."""
        response = self.page.goto(self.base + path)
        assert response.status == 200, f"{path}: HTTP {response.status}"
        if ready:
            self.page.wait_for_selector(ready, timeout=15000)
        self.page.wait_for_timeout(300)  # let an onerror/onload fire if anything was injected
        self.check(path, shows)
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0], (
            f"{path}: {policy!r}")

    def check(self, path, shows=()):
        assert self.dialogs == [], f"{path}: a name ran script: {self.dialogs}"
        assert self.page.evaluate(INJECTED) == [], f"{path}: a name injected elements"
        violations = self.page.evaluate("window.__csp") + [c for c in self.console if "Content Security Policy" in c]
        assert violations == [], f"{path}: the page itself breaks its policy: {violations}"
        text = self.page.inner_text("body")
        for words in shows:
            assert words in text, f"{path}: {words!r} is not shown as text"


@pytest.mark.django_db(transaction=True)
def test_names_that_carry_script_show_as_text_on_every_page(live_server, browser, settings):
    settings.TASKS = "eager"  # bots answer inside the request (no worker in this test)
    settings.HUMAN_MOVE_SECONDS = 600
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 1  # the faulty bot is suspended: its reason shows on its page
    from bot_servers import BotServer

    from django.utils import timezone

    from bots_api.models import Bot
    from bots_api.services import BotError, bot_register, bot_verify
    from eights_engine import MatchState
    from eights_engine import Ruleset
    from games.models import Deal, Match
    from games.selectors import match_state
    from games.services import match_advance, match_create, match_submit_action, player_for_user, player_house_create
    from tournaments.models import LadderMatch
    from tournaments.services import ladder_create, ladder_entry_create

    good_server = BotServer("good", name=GOOD_BOT_SAYS)
    faulty_server = BotServer("card:" + FAULTY_CARD)
    try:
        viewer, owner, other_owner = _user(VIEWER), _user(OWNER), _user(OTHER_OWNER)
        person = player_for_user(user=viewer)
        house = player_house_create(name=HOUSE, strategy="greedy", description=HOUSE_WORDS)
        other_house = player_house_create(name=OTHER_HOUSE, strategy="random")
        good = _bot(owner, GOOD_BOT, good_server.url)
        Bot.objects.filter(pk=good.pk).update(secret="s3cret")  # the test servers' secret
        good.refresh_from_db()
        bot_verify(bot=good)  # stores the name the bot reports
        with pytest.raises(BotError):  # a javascript: address is no endpoint (so it never becomes a link either)
            bot_register(owner=owner, name="Scheme", endpoint_url="javascript:alert(13)")
        faulty = _bot(other_owner, FAULTY_BOT, faulty_server.url)
        Bot.objects.filter(pk=faulty.pk).update(secret="s3cret", verified_at=timezone.now())
        ladder = ladder_create(name=LADDER, slug="xss", seats_per_match=3, target=30)
        for p in (person, house, good.player, faulty.player):
            ladder_entry_create(ladder=ladder, player=p)
        ruleset = Ruleset.from_dict(ladder.ruleset)

        # a finished match: the faulty bot forfeits (its causes echo its replies), the others play to the end
        finished = match_create(players=[house, faulty.player, good.player], ruleset=ruleset, preset="pagat", seed=7)
        LadderMatch.objects.create(ladder=ladder, match=finished)
        for _ in range(50):
            if match_advance(match_id=finished.pk) != "budget":
                break
        finished.refresh_from_db()
        assert finished.status == Match.Status.FINISHED
        faulty.refresh_from_db()
        # and one played to its end, for its deal codes
        whole = match_create(players=[good.player, house, other_house], ruleset=ruleset, preset="pagat", seed=8)
        LadderMatch.objects.create(ladder=ladder, match=whole)
        for _ in range(200):
            if match_advance(match_id=whole.pk) != "budget":
                break
        code = Deal.objects.get(match=whole, number=1).code

        # a running match at the person's table, the person at seat 0 and to play
        seed = next(s for s in range(1, 500) if MatchState.start(ruleset, 3, s).to_play == 0)
        running = match_create(players=[person, house, good.player], ruleset=ruleset, preset="pagat", seed=seed)
        LadderMatch.objects.create(ladder=ladder, match=running)

        w = Watch(browser, live_server, viewer)
        w.open(f"/matches/{running.pk}/play/", ready="#seats .seat", shows=(VIEWER, HOUSE, GOOD_BOT, OWNER))
        # play the person's turns from here until a deal ends: the table shows the score card with every name
        for _ in range(400):
            running.refresh_from_db()
            state = match_state(match=running)
            if len(state.results) >= 1 or running.status != Match.Status.RUNNING:
                break
            if state.to_play == 0:
                legal = state.legal_actions()
                action = next((a for a in legal if a["type"] == "play"), legal[0])
                match_submit_action(match_id=running.pk, seat=0, ply=running.ply_count, action=action, user=viewer)
            else:
                match_advance(match_id=running.pk)
        w.page.wait_for_selector("#scorecard .done", timeout=30000)
        w.check("the table after a deal", shows=("went out", VIEWER, HOUSE, GOOD_BOT))

        w.open("/", shows=(HOUSE, GOOD_BOT, FAULTY_BOT))
        w.open("/matches/", shows=(HOUSE, GOOD_BOT, VIEWER))
        w.open(f"/matches/{running.pk}/", shows=(VIEWER, HOUSE, GOOD_BOT, OWNER))
        w.open(f"/matches/{finished.pk}/", shows=(HOUSE, FAULTY_BOT, GOOD_BOT, OTHER_OWNER))
        w.open(f"/ladders/{ladder.slug}/", shows=(LADDER, VIEWER, HOUSE, GOOD_BOT, OWNER, FAULTY_BOT, OTHER_OWNER))
        w.open(f"/matches/{whole.pk}/", shows=(HOUSE, OTHER_HOUSE, GOOD_BOT, OWNER))
        w.open(f"/deals/{code}/", shows=(HOUSE, OTHER_HOUSE, GOOD_BOT))
        for name, words in ((VIEWER, ()), (HOUSE, (HOUSE_WORDS,)), (OTHER_HOUSE, ()), (GOOD_BOT, (OWNER,)),
                            (FAULTY_BOT, (OTHER_OWNER,))):
            w.open(f"/players/{quote(name, safe='')}/", shows=(name, *words))
        w.context.close()

        w = Watch(browser, live_server, owner)
        w.open("/bots/", shows=(GOOD_BOT,))
        w.open(f"/bots/{good.pk}/", shows=(GOOD_BOT, GOOD_BOT_SAYS))
        w.page.goto(w.base + "/bots/")
        w.page.fill("#id_name", PAGE_BOT)  # the register form's answer names the new bot next to its secret
        w.page.fill("#id_endpoint_url", good_server.url)
        w.page.click("button:text-is('Register')")
        w.page.wait_for_selector("#bot-secret")
        w.check("/bots/ after registering", shows=(PAGE_BOT,))
        w.page.fill("#id_name", PAGE_BOT)  # again: the refusal quotes the name back
        w.page.fill("#id_endpoint_url", good_server.url)
        w.page.click("button:text-is('Register')")
        w.page.wait_for_selector("[role=alert]")
        w.check("/bots/ refusing a taken name", shows=(PAGE_BOT,))
        w.page.goto(f"{w.base}/bots/{good.pk}/")
        w.page.click("button[value=verify]")  # the answer (a message, now or later) quotes the bot's words
        w.page.wait_for_load_state("load")
        w.check("/bots/<id>/ after verifying")
        w.context.close()

        w = Watch(browser, live_server, other_owner)
        assert faulty.suspended_reason, "the faulty bot should have been suspended after its forfeit"
        w.open(f"/bots/{faulty.pk}/", shows=(FAULTY_BOT, FAULTY_CARD, "suspended"))

        # and if a page ever slips, the policy still refuses to run what got in
        blocked = w.page.evaluate("""() => new Promise(done => {
            document.addEventListener('securitypolicyviolation', e => done(e.effectiveDirective), {once: true});
            const box = document.createElement('div');
            box.innerHTML = '<img src="/static/missing.png" onerror="window.__ran = 1">';
            document.body.append(box);
            setTimeout(() => done('no violation'), 3000);
        })""")
        assert blocked == "script-src-attr"
        assert w.page.evaluate("window.__ran") is None and w.dialogs == []
        w.context.close()
    finally:
        good_server.stop()
        faulty_server.stop()
