"""Bot pages: log in, register with the form (the secret shown once), manage a bot (verify against a real bot
server, rotate, enable/disable, enter/leave ladders, health with a latency chart), public player profiles.

Personas: an owner (ada), a stranger (bob), anonymous. (Named test_bot_pages.py: tests/pages/test_pages.py
already has the basename pytest needs unique.)
"""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from eights_engine.bots.check import TURN_CHECKS
from bots_api.models import Bot, BotCheck
from bots_api.services import bot_check_request, bot_check_run, bot_register
from eights_engine import Ruleset
from games.models import Deal, Move
from games.services import match_create
from tournaments.models import LadderEntry
from bot_servers import BotServer


@pytest.fixture
def as_owner(owner):
    client = Client()
    client.force_login(owner)
    return client


@pytest.fixture
def as_stranger(stranger):
    client = Client()
    client.force_login(stranger)
    return client


@pytest.fixture
def registered(owner):
    """ada's bot Crazy8 and its secret."""
    return bot_register(owner=owner, name="Crazy8", endpoint_url="http://127.0.0.1:9/eights")


@pytest.fixture
def bot_server(registered):
    """examples/bot_server.py's bot on 127.0.0.1 (a free port) signing with Crazy8's secret; Crazy8 points at it."""
    bot, secret = registered
    server = BotServer("good", secret, "LoopbackBot")
    Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
    yield server
    server.stop()


def _played(bot, house):
    """A match with stored plies for ``bot``: 30 turns of 5..34 ms, two of them timeouts."""
    match = match_create(players=[bot.player, house], ruleset=Ruleset.preset("pagat"), seed=3)
    deal = Deal.objects.get(match=match)
    Move.objects.bulk_create(
        Move(deal=deal, ply=ply, seat=ply % 2, action={"type": "draw"}, think_ms=5 + ply // 2,
             fault_kind="timeout" if ply in (10, 20) else "",
             fault=f"timeout: no answer within 1000 ms (ply {ply})" if ply in (10, 20) else "")
        for ply in range(60))
    return match


@pytest.mark.django_db
def test_anonymous_is_sent_to_log_in_and_comes_back_to_my_bots(client, owner):
    response = client.get(reverse("bot-list"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    page = client.get(reverse("login"))
    assert page.status_code == 200 and "Log in" in page.content.decode()
    response = client.post(reverse("login"), {"username": "ada", "password": "pw-ada-123", "next": "/bots/"})
    assert response.status_code == 302 and response["Location"] == "/bots/"
    body = client.get("/bots/").content.decode()
    assert "My bots" in body and "Log out ada" in body
    assert client.post(reverse("logout"), {"next": "/"})["Location"] == "/"


@pytest.mark.django_db
def test_an_owner_registers_a_bot_with_the_form_and_sees_the_secret_only_once(as_owner, owner):
    response = as_owner.post(reverse("bot-list"), {"name": "Crazy8", "endpoint_url": "http://127.0.0.1:9/"})
    assert response.status_code == 200
    bot = Bot.objects.get(owner=owner)
    body = response.content.decode()
    assert bot.secret in body and "shown only this once" in body
    assert "no-store" in response["Cache-Control"]
    again = as_owner.get(reverse("bot-list")).content.decode()
    assert "Crazy8" in again and bot.secret not in again and "not verified" in again


@pytest.mark.django_db
@pytest.mark.parametrize("url, words", [
    ("file:///etc/passwd", "not &#x27;file&#x27;"),
    ("http://ada:pw@127.0.0.1:9/", "must not contain a user name or password"),
])
def test_the_register_form_says_what_is_wrong_with_a_bad_endpoint(as_owner, url, words):
    body = as_owner.post(reverse("bot-list"), {"name": "Crazy8", "endpoint_url": url}).content.decode()
    assert words in body and not Bot.objects.exists()


@pytest.mark.django_db
def test_the_register_form_says_a_name_is_taken(as_owner, registered):
    body = as_owner.post(reverse("bot-list"), {"name": "Crazy8", "endpoint_url": "http://127.0.0.1:9/"}).content
    assert "is taken" in body.decode() and Bot.objects.count() == 1


@pytest.mark.django_db
def test_the_owners_bot_page_shows_endpoint_ladders_health_chart_and_faults(
        as_owner, registered, ladder, house_bots, django_assert_max_num_queries):
    bot, _secret = registered
    match = _played(bot, house_bots[0])
    with django_assert_max_num_queries(17):  # 13 + the trials list + the versions table + seats kept for you + the bell
        response = as_owner.get(reverse("bot-detail", args=[bot.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "http://127.0.0.1:9/eights" in body and "Verify" in body and "Rotate secret" in body
    assert "Test ladder" in body and 'value="enter"' in body
    assert '<svg id="latency-chart"' in body and "<polyline" in body and body.count("<circle") == 2
    assert "last 30 turns" in body
    assert "no answer within 1000 ms (ply 20)" in body and f"#{match.pk}" in body
    assert bot.secret not in body


@pytest.mark.django_db
def test_the_verify_button_queues_a_check_and_the_page_shows_it_until_it_is_done(as_owner, registered, bot_server):
    bot, _secret = registered
    url = reverse("bot-detail", args=[bot.pk])
    response = as_owner.post(url, {"action": "verify"})
    assert response.status_code == 302 and response["Location"] == url  # at once: the check runs elsewhere
    check = BotCheck.objects.get(bot=bot)
    body = as_owner.get(url).content.decode()
    assert "Checking your bot… (queued)" in body
    assert f'data-poll-url="/api/bots/{bot.pk}/checks/{check.pk}/"' in body
    assert '<script src="/static/bots_api/bot_check.js" defer></script>' in body
    bot_check_run(check_id=check.pk)  # what the worker does
    body = as_owner.get(url).content.decode()
    assert f"Passed: all {TURN_CHECKS + 5} checks passed." in body and "bot_check.js" not in body
    assert "answers as <strong>LoopbackBot</strong>" in body
    assert Bot.objects.get(pk=bot.pk).verified_at is not None


@pytest.mark.django_db
def test_the_verify_button_reports_a_server_that_is_down(as_owner, registered):
    bot, _secret = registered
    Bot.objects.filter(pk=bot.pk).update(endpoint_url="http://127.0.0.1:1/")
    as_owner.post(reverse("bot-detail", args=[bot.pk]), {"action": "verify"})
    bot_check_run(check_id=BotCheck.objects.get(bot=bot).pk)
    body = as_owner.get(reverse("bot-detail", args=[bot.pk])).content.decode()
    # the first request of a check is a turn (docs/BOT_PROTOCOL.md, "Checks look like real turns"): it says so
    assert re.search(r"Failed: turn: [^<]*?: connection: could not connect", body), body


@pytest.mark.django_db
def test_the_rotate_button_shows_the_new_secret_once(as_owner, registered):
    bot, old = registered
    response = as_owner.post(reverse("bot-detail", args=[bot.pk]), {"action": "rotate"})
    new = Bot.objects.get(pk=bot.pk).secret
    assert new != old and new in response.content.decode() and "no-store" in response["Cache-Control"]
    assert new not in as_owner.get(reverse("bot-detail", args=[bot.pk])).content.decode()


@pytest.mark.django_db
def test_the_owner_disables_enables_enters_and_leaves_ladders_with_buttons(as_owner, registered, ladder):
    bot, _secret = registered
    url = reverse("bot-detail", args=[bot.pk])
    body = as_owner.post(url, {"action": "enter", "ladder": ladder.slug}, follow=True).content.decode()
    assert "verify the bot first" in body
    Bot.objects.filter(pk=bot.pk).update(verified_at=timezone.now())
    as_owner.post(url, {"action": "enter", "ladder": ladder.slug})
    assert LadderEntry.objects.get(ladder=ladder, player=bot.player).is_active
    assert 'value="leave"' in as_owner.get(url).content.decode()
    as_owner.post(url, {"action": "leave", "ladder": ladder.slug})
    assert not LadderEntry.objects.get(ladder=ladder, player=bot.player).is_active
    as_owner.post(url, {"action": "disable"})
    assert not Bot.objects.get(pk=bot.pk).is_enabled
    as_owner.post(url, {"action": "enable"})
    assert Bot.objects.get(pk=bot.pk).is_enabled
    body = as_owner.post(url, {"action": "endpoint", "endpoint_url": "gopher://127.0.0.1/"}, follow=True).content
    assert "not &#x27;gopher&#x27;" in body.decode()
    assert as_owner.post(url, {"action": "explode"}).status_code == 400
    response = as_owner.post(url, {"action": "delete"})
    assert response["Location"] == reverse("bot-list") and not Bot.objects.filter(pk=bot.pk).exists()


@pytest.mark.django_db
def test_a_stranger_cannot_see_or_change_another_owners_bot(as_stranger, registered, ladder):
    bot, secret = registered
    url = reverse("bot-detail", args=[bot.pk])
    for response in (as_stranger.get(url), as_stranger.post(url, {"action": "rotate"}),
                     as_stranger.post(url, {"action": "disable"}), as_stranger.post(url, {"action": "delete"})):
        assert response.status_code == 404
        body = response.content.decode()
        assert secret not in body and "127.0.0.1:9" not in body
    after = Bot.objects.get(pk=bot.pk)
    assert after.secret == secret and after.is_enabled
    assert "Crazy8" not in as_stranger.get(reverse("bot-list")).content.decode()


@pytest.mark.django_db
def test_anyone_sees_a_bots_public_profile_with_owner_ratings_matches_and_faults(
        client, registered, ladder, house_bots, django_assert_max_num_queries):
    bot, secret = registered
    Bot.objects.filter(pk=bot.pk).update(verified_at=timezone.now())
    LadderEntry.objects.create(ladder=ladder, player=bot.player)
    match = _played(bot, house_bots[0])
    with django_assert_max_num_queries(7):  # 5 + the opponents met most often + the seasons
        response = client.get(reverse("player-profile", args=["Crazy8"]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "A bot by <strong>ada</strong>" in body and "2 faults" in body
    assert "Test ladder" in body and f"#{match.pk}" in body
    assert secret not in body and "127.0.0.1" not in body and "manage" not in body


@pytest.mark.django_db
def test_the_owner_finds_a_manage_link_on_their_bots_profile(as_owner, registered):
    bot, _secret = registered
    body = as_owner.get(reverse("player-profile", args=["Crazy8"])).content.decode()
    assert reverse("bot-detail", args=[bot.pk]) in body


@pytest.mark.django_db
def test_a_house_bots_profile_renders_and_an_unknown_player_is_404(client, ladder):
    body = client.get(reverse("player-profile", args=["Professor"])).content.decode()
    assert "heuristic" in body and "Test ladder" in body
    assert client.get(reverse("player-profile", args=["Nobody"])).status_code == 404


@pytest.mark.django_db
def test_the_bot_pages_title_is_its_name_without_markup(as_owner, registered):
    import re
    bot, _secret = registered
    body = as_owner.get(reverse("bot-detail", args=[bot.pk])).content.decode()
    title = re.search(r"<title>(.*?)</title>", body, re.S).group(1)
    assert title == "Crazy8 · Eights Ladder"
    assert body.count('id="bot-trials"') == 1


@pytest.mark.django_db
def test_a_check_of_a_bot_slowed_by_nagles_algorithm_passes_with_a_hint(as_owner, registered):
    """Every turn ~40 ms (its server leaves Nagle's algorithm on): the check passes, and says why the turns are slow."""
    bot, secret = registered
    server = BotServer("nagle", secret, "LoopbackBot")
    try:
        Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
        check = bot_check_request(bot=Bot.objects.get(pk=bot.pk))
        bot_check_run(check_id=check.pk)
    finally:
        server.stop()
    check.refresh_from_db()
    assert check.state == BotCheck.State.PASSED
    assert check.detail.startswith(f"all {TURN_CHECKS + 5} checks passed. Hint: "), check.detail
    assert "Nagle" in check.detail and len(check.detail) <= 500
    body = as_owner.get(reverse("bot-detail", args=[bot.pk])).content.decode()
    assert "Nagle&#x27;s algorithm" in body or "Nagle's algorithm" in body
