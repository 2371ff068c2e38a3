"""Play as a guest (issue 10, parts 1 and 2): a stranger deals a casual, unrated match against house bots from the
home page with no account; the session (an HttpOnly, SameSite=Lax cookie) carries a guest player that alone plays
its seat; sign-up or log-in moves the session's guest matches to the account's player; limits on running guest
matches per browser and per address and on the rate of new ones answer 429 with a plain message and Retry-After;
abandoned guest matches end unrated and old ones are deleted by housekeeping."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from eights_engine import Ruleset
from games.models import Match, Player, Seat
from games.selectors import match_state
from personas import press_deal, table_of
from games.services import match_advance, match_create, matches_clock_expired, player_for_user

pytestmark = pytest.mark.django_db


def _csrf(client: Client) -> str:
    client.get("/")
    return client.cookies["csrftoken"].value


def test_the_home_page_offers_a_guest_table_with_web_table_first_and_every_ladder_preset(ladder, client):
    page = client.get("/").content.decode()
    assert "Play now as a guest" in page
    assert re.search(r'<option value="web-table" selected>', page)
    assert '<option value="pagat"' in page  # the test ladder's preset
    assert 'name="seats" value="2"' in page and 'name="seats" value="3"' in page
    assert "Deal" in page


def test_a_guest_deals_a_casual_match_against_house_bots_and_plays_it(house_bots):
    guest = Client(enforce_csrf_checks=True)
    match_id = table_of(press_deal(guest))
    match = Match.objects.get(pk=match_id)
    seats = list(match.seats.select_related("player").order_by("index"))
    assert match.preset == "web-table" and match.seat_count == 2
    assert seats[0].player.is_guest and seats[0].player.kind == Player.Kind.HUMAN and seats[0].player.user is None
    assert seats[0].player.name.startswith("Guest ")
    assert all(s.player.kind == Player.Kind.HOUSE for s in seats[1:])
    assert not hasattr(match, "ladder_match")  # casual: never rated
    cookie = guest.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"].lower() == "lax"

    assert guest.get(f"/matches/{match_id}/play/").status_code == 200
    view = guest.get(f"/api/matches/{match_id}/seats/0/")
    assert view.status_code == 200, view.content
    body = view.json()
    assert body["seats"][0]["guest"] is True and body["seats"][1]["guest"] is False
    state = match_state(match=match)
    if state.to_play == 0:
        token = guest.cookies["csrftoken"].value
        move = guest.post(f"/api/matches/{match_id}/seats/0/actions/", {"ply": body["ply"],
                          "action": body["legal_actions"][0]}, content_type="application/json", HTTP_X_CSRFTOKEN=token)
        assert move.status_code == 200, move.content
    # the match pages label the guest
    assert "guest" in Client().get(f"/matches/{match_id}/").content.decode()


def test_a_three_seat_table_seats_two_house_bots(house_bots, client):
    match = Match.objects.get(pk=table_of(press_deal(client, seats="3")))
    assert match.seat_count == 3
    assert [s.player.kind for s in match.seats.order_by("index")] == ["human", "house", "house"]


def test_the_default_opponents_are_the_beatable_house_strategies(house_bots, client, settings):
    match = Match.objects.get(pk=table_of(press_deal(client, seats="3")))
    strategies = [s.player.strategy for s in match.seats.order_by("index")][1:]
    assert strategies == settings.GUEST_OPPONENTS[:2]
    assert "heuristic" not in strategies


def test_a_guest_move_without_the_csrf_token_is_refused(house_bots):
    guest = Client(enforce_csrf_checks=True)
    match_id = table_of(press_deal(guest))
    move = guest.post(f"/api/matches/{match_id}/seats/0/actions/", {"ply": 0, "action": {"type": "draw"}},
                      content_type="application/json")
    assert move.status_code == 403 and "CSRF" in move.json()["detail"]


def test_another_guest_cannot_reach_a_guests_match(house_bots):
    match_id = table_of(press_deal(Client()))
    other = Client()
    table_of(press_deal(other))
    assert other.get(f"/api/matches/{match_id}/seats/0/").status_code == 403
    assert other.get(f"/matches/{match_id}/play/").status_code == 403
    move = other.post(f"/api/matches/{match_id}/seats/0/actions/", {"ply": 0, "action": {"type": "draw"}},
                      content_type="application/json", HTTP_X_CSRFTOKEN=other.cookies["csrftoken"].value)
    assert move.status_code == 403 and move.json()["error"] == "permission_denied"
    assert other.get(f"/api/matches/{match_id}/deals/1/").status_code == 403


@pytest.mark.parametrize("cookie", [None, "forged0000000000000000000000000x", "expired"])
def test_without_a_guest_session_the_table_and_the_seat_say_so_plainly(house_bots, cookie):
    owner = Client()
    match_id = table_of(press_deal(owner))
    stranger = Client()
    if cookie == "expired":
        from django.contrib.sessions.models import Session

        key = owner.cookies["sessionid"].value
        Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
        stranger.cookies["sessionid"] = key
    elif cookie:
        stranger.cookies["sessionid"] = cookie
    seat = stranger.get(f"/api/matches/{match_id}/seats/0/")
    assert seat.status_code == 401
    assert seat.json()["error"] == "not_authenticated" and "guest" in seat.json()["detail"]
    table = stranger.get(f"/matches/{match_id}/play/")
    assert table.status_code == 403 and "guest" in table.content.decode()


@pytest.mark.parametrize("data, words", [({"preset": "no-such-preset"}, "preset"), ({"seats": "5"}, "seats"),
                                          ({"preset": "hollywood", "seats": "3"}, "seats"),
                                          ({"preset": "eights-classic"}, "preset")])
def test_a_bad_choice_answers_400_and_creates_nothing(ladder, client, data, words):
    before = (Match.objects.count(), Player.objects.count())
    answer = press_deal(client, **data)
    assert answer.status_code == 400
    assert words in answer.content.decode()
    assert (Match.objects.count(), Player.objects.count()) == before


def test_a_guest_without_a_session_cookie_posting_deal_without_csrf_is_refused(house_bots):
    answer = Client(enforce_csrf_checks=True).post("/play/guest/", {"preset": "web-table", "seats": "2"})
    assert answer.status_code == 403
    assert Match.objects.count() == 0


def test_running_guest_matches_per_browser_are_limited(house_bots, client, settings):
    settings.GUEST_RUNNING_PER_BROWSER = 2
    table_of(press_deal(client))
    table_of(press_deal(client))
    before = Match.objects.count()
    refused = press_deal(client)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    text = refused.content.decode()
    assert "2 running guest matches per browser" in text and "try again in" in text
    assert Match.objects.count() == before


def test_running_guest_matches_per_address_are_limited(house_bots, settings):
    settings.GUEST_RUNNING_PER_BROWSER = 5
    settings.GUEST_RUNNING_PER_ADDRESS = 3
    for _ in range(3):
        table_of(press_deal(Client(REMOTE_ADDR="198.51.100.7")))
    refused = press_deal(Client(REMOTE_ADDR="198.51.100.7"))
    assert refused.status_code == 429 and "3 running guest matches per address" in refused.content.decode()
    assert press_deal(Client(REMOTE_ADDR="198.51.100.8")).status_code == 302  # another address has its own


def test_a_finished_match_frees_its_place(house_bots, client, settings):
    settings.GUEST_RUNNING_PER_BROWSER = 1
    first = table_of(press_deal(client))
    assert press_deal(client).status_code == 429
    Match.objects.filter(pk=first).update(status=Match.Status.FINISHED, finished_at=timezone.now())
    assert press_deal(client).status_code == 302


def test_the_rate_of_new_guest_matches_per_address_is_limited(house_bots, settings):
    settings.GUEST_RUNNING_PER_BROWSER = 100
    settings.GUEST_RUNNING_PER_ADDRESS = 100
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "guest_match": "3/hour"}}
    for _ in range(3):
        table_of(press_deal(Client(REMOTE_ADDR="203.0.113.5")))
    refused = press_deal(Client(REMOTE_ADDR="203.0.113.5"))
    assert refused.status_code == 429 and "3/hour new guest matches per address" in refused.content.decode()
    assert 1 <= int(refused["Retry-After"]) <= 3600


@pytest.mark.django_db(transaction=True)
def test_the_limits_hold_under_a_burst_of_deals(house_bots, live_server, settings):
    """Twenty Deal presses at once from one browser and address: at most the limit is created, every other answer is
    a 429 with Retry-After, none fails."""
    import httpx

    settings.GUEST_RUNNING_PER_BROWSER = 2
    settings.GUEST_RUNNING_PER_ADDRESS = 3
    with httpx.Client(base_url=live_server.url, timeout=30) as web:
        first = web.post("/play/guest/", data={"preset": "web-table", "seats": "2",
                                                "csrfmiddlewaretoken": _page_token(web)})
        assert first.status_code == 302
        cookies = dict(web.cookies)
    answers: list[httpx.Response] = []

    def press():
        with httpx.Client(base_url=live_server.url, timeout=30, cookies=cookies) as c:
            answers.append(c.post("/play/guest/", data={"preset": "web-table", "seats": "2",
                                                        "csrfmiddlewaretoken": cookies["csrftoken"]},
                                  headers={"X-CSRFToken": cookies["csrftoken"]}))

    threads = [threading.Thread(target=press) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(a.status_code for a in answers)
    assert set(codes) <= {302, 429}, codes
    assert all(a.headers.get("Retry-After") for a in answers if a.status_code == 429)
    guest_matches = Seat.objects.filter(player__is_guest=True, match__status=Match.Status.RUNNING).count()
    assert guest_matches == 2, codes  # the browser's limit, never more
    # strangers from the same address (no cookie, so new guests) fill the address's limit, never more
    codes = []
    for _ in range(3):
        with httpx.Client(base_url=live_server.url, timeout=30) as web:
            codes.append(web.post("/play/guest/", data={"preset": "web-table", "seats": "2",
                                                         "csrfmiddlewaretoken": _page_token(web)}).status_code)
    assert codes == [302, 429, 429]
    assert Seat.objects.filter(player__is_guest=True, match__status=Match.Status.RUNNING).count() == 3


def _page_token(web) -> str:
    web.get("/")
    return web.cookies["csrftoken"]


@pytest.mark.parametrize("how", ["signup", "login"])
def test_signing_up_or_logging_in_keeps_the_guests_matches(house_bots, how):
    browser = Client()
    first = table_of(press_deal(browser))
    second = table_of(press_deal(browser, seats="3"))
    guest = Seat.objects.get(match_id=first, index=0).player
    if how == "login":
        get_user_model().objects.create_user("maya", password="a-long-pass-9876")
        answer = browser.post("/accounts/login/", {"username": "maya", "password": "a-long-pass-9876",
                                                   "csrfmiddlewaretoken": _csrf(browser)})
    else:
        answer = browser.post("/accounts/signup/", {"username": "maya", "password1": "a-long-pass-9876",
                                                    "password2": "a-long-pass-9876",
                                                    "csrfmiddlewaretoken": _csrf(browser)})
    assert answer.status_code == 302, answer.content[:500]
    person = player_for_user(user=get_user_model().objects.get(username="maya"))
    assert [Seat.objects.get(match_id=m, index=0).player_id for m in (first, second)] == [person.pk, person.pk]
    assert not Player.objects.filter(pk=guest.pk).exists()  # the guest is gone: its matches are maya's now
    assert browser.get(f"/matches/{first}/play/").status_code == 200
    assert browser.get(f"/api/matches/{first}/seats/0/").status_code == 200
    assert f"/matches/{first}/" in browser.get(f"/players/{person.name}/").content.decode()
    # the clock the matches started with: signing up never shortens it (a fallback or forfeit for stepping away)
    assert list(Match.objects.filter(pk__in=[first, second]).values_list("move_seconds", flat=True)) == [
        settings.GUEST_MOVE_SECONDS] * 2


def test_a_guest_away_longer_than_an_accounts_clock_signs_up_and_is_not_played_for(house_bots, settings):
    """Issue 23: the account's shorter clock used to take over at sign-up, so a guest who had been away 100 s (under
    the guest's 300 s, over a person's 60 s) was played for by the clock at once, and could be forfeited."""
    browser = Client()
    match_id = table_of(press_deal(browser))
    match_advance(match_id=match_id)  # the house bot plays until it is the guest's turn
    away = timezone.now() - timedelta(seconds=settings.HUMAN_MOVE_SECONDS + 40)
    Match.objects.filter(pk=match_id).update(last_progress_at=away)
    signup = browser.post("/accounts/signup/", {"username": "maya", "password1": "a-long-pass-9876",
                                                "password2": "a-long-pass-9876", "csrfmiddlewaretoken": _csrf(browser)})
    assert signup.status_code == 302, signup.content[:300]
    assert match_id not in matches_clock_expired()
    assert browser.get(f"/api/matches/{match_id}/seats/0/").json()["your_turn"] is True


def test_a_guest_never_joins_a_ladder(ladder, client):
    from tournaments.services import ladder_entry_create

    table_of(press_deal(client))
    guest = Player.objects.get(is_guest=True)
    with pytest.raises(ValueError, match="guest"):
        ladder_entry_create(ladder=ladder, player=guest)


def _waiting_guest_match(client, settings) -> Match:
    match = Match.objects.get(pk=table_of(press_deal(client)))
    from games.services import match_advance

    match_advance(match_id=match.pk)  # the house bots play up to the guest's turn
    match.refresh_from_db()
    assert match.awaiting_human
    return match


def test_an_abandoned_guest_match_ends_unrated_past_the_move_clock(house_bots, client, settings):
    from games.people.guests import guest_housekeeping

    match = _waiting_guest_match(client, settings)
    assert match.move_clock_seconds == settings.GUEST_MOVE_SECONDS
    Match.objects.filter(pk=match.pk).update(
        last_progress_at=timezone.now() - timedelta(seconds=settings.GUEST_MOVE_SECONDS - 10))
    assert guest_housekeeping()["abandoned"] == 0
    late = timezone.now() - timedelta(seconds=settings.GUEST_MOVE_SECONDS + 1)
    Match.objects.filter(pk=match.pk).update(last_progress_at=late)
    assert match.pk not in matches_clock_expired()  # no fallback is played for a guest who left
    assert guest_housekeeping()["abandoned"] == 1
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and "guest" in match.abort_reason
    view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
    assert view["status"] == "aborted" and view["abort_reason"] == match.abort_reason


def test_housekeeping_deletes_old_guest_matches_and_players_only(house_bots, client, settings):
    from games.people.guests import guest_housekeeping

    old = Match.objects.get(pk=table_of(press_deal(client)))
    fresh = Match.objects.get(pk=table_of(press_deal(Client())))
    person = player_for_user(user=get_user_model().objects.create_user("ruth", password="pw-ruth-12345"))
    persons = match_create(players=[person, house_bots[0]], ruleset=Ruleset.preset("pagat"))
    long_ago = timezone.now() - timedelta(hours=settings.GUEST_KEEP_HOURS + 1)
    Match.objects.filter(pk__in=[old.pk, persons.pk]).update(status=Match.Status.FINISHED, finished_at=long_ago,
                                                             created_at=long_ago)
    Player.objects.filter(seats__match=old, is_guest=True).update(created_at=long_ago)
    done = guest_housekeeping()
    assert done["deleted"] == 1 and done["players"] == 1
    assert not Match.objects.filter(pk=old.pk).exists()
    assert Match.objects.filter(pk__in=[fresh.pk, persons.pk]).count() == 2
    assert client.get(f"/matches/{old.pk}/play/").status_code == 404


def test_housekeeping_runs_on_beat_and_in_the_zero_setup_loop(settings):
    from config.celery import app  # noqa: F401 (the app reads CELERY_BEAT_SCHEDULE)

    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "games.tasks.guest_housekeeping" in tasks
    from tournaments.management.commands import ladder_run

    assert hasattr(ladder_run._Worker, "_housekeeping")


def test_a_person_pressing_deal_plays_as_themselves(house_bots, client):
    user = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    client.force_login(user)
    match = Match.objects.get(pk=table_of(press_deal(client)))
    assert match.seats.get(index=0).player == player_for_user(user=user)
    assert not Player.objects.filter(is_guest=True).exists()


def test_the_guest_table_offers_sign_up_to_keep_the_matches(house_bots, client):
    match_id = table_of(press_deal(client))
    page = client.get(f"/matches/{match_id}/play/").content.decode()
    assert "You play as a guest" in page and f"/accounts/signup/?next=/matches/{match_id}/play/" in page


def test_each_guest_behind_one_address_has_its_own_seat_view_budget(house_bots, monkeypatch):
    from sitekit.limits import ScopedRateThrottle

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "seat_view", "3/min")  # DRF read the rates at import
    one, two = Client(REMOTE_ADDR="192.0.2.50"), Client(REMOTE_ADDR="192.0.2.50")
    first, second = table_of(press_deal(one)), table_of(press_deal(two))
    assert [one.get(f"/api/matches/{first}/seats/0/").status_code for _ in range(4)] == [200, 200, 200, 429]
    refused = one.get(f"/api/matches/{first}/seats/0/").json()["detail"]
    assert "(seat views per player)" in refused, refused  # counted per guest: not "per account" (breaker F8)
    assert two.get(f"/api/matches/{second}/seats/0/").status_code == 200  # the other guest's budget is untouched


def test_the_home_page_leads_back_to_the_browsers_running_tables_and_no_one_elses(house_bots):
    """Newcomer trial: after leaving a table there was no way back from the home page. The home page lists the
    running matches of this browser's guest (or of the logged-in person), each linked to its table; another
    browser sees none of them."""
    me, other = Client(), Client()
    first = table_of(press_deal(me))
    second = table_of(press_deal(me, seats="3"))
    page = me.get("/").content.decode()
    assert "Your tables" in page
    assert f'href="/matches/{first}/play/"' in page and f'href="/matches/{second}/play/"' in page
    page = other.get("/").content.decode()
    assert "Your tables" not in page and f"/matches/{first}/play/" not in page
    Match.objects.filter(pk=first).update(status=Match.Status.FINISHED)
    page = me.get("/").content.decode()
    assert f'href="/matches/{first}/play/"' not in page and f'href="/matches/{second}/play/"' in page


@pytest.mark.django_db(transaction=True)
def test_an_abandoned_guest_match_ends_through_the_one_abort(house_bots, client, settings):
    """Every early end goes through ``match_abort``: the matches waiting for the abandoned one are woken (their stall
    clock starts) and its watchers are sent the end, as for any aborted match."""
    import redis as redis_lib

    from games import live
    from games.people.guests import guest_housekeeping

    match = _waiting_guest_match(client, settings)
    follower = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), after=match)
    long_ago = timezone.now() - timedelta(hours=1)
    Match.objects.filter(pk=follower.pk).update(last_progress_at=long_ago)
    Match.objects.filter(pk=match.pk).update(
        last_progress_at=timezone.now() - timedelta(seconds=settings.GUEST_MOVE_SECONDS + 1))
    watcher = redis_lib.Redis.from_url(settings.LIVE_REDIS_URL).pubsub()
    watcher.subscribe(f"{live.channel_prefix()}{match.pk}")
    assert watcher.get_message(timeout=2)["type"] == "subscribe"
    try:
        assert guest_housekeeping()["abandoned"] == 1
        message = watcher.get_message(timeout=5)
    finally:
        watcher.close()
    assert message is not None and message["type"] == "message"  # the watchers' wake-up: the match ended
    follower.refresh_from_db()
    assert follower.last_progress_at > long_ago  # woken: its wait is counted from its predecessor's end
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and "guest" in match.abort_reason


def test_logging_in_and_out_again_and_again_never_gathers_more_running_matches_than_an_account_may_have(
        house_bots, settings):
    """Issue 23: each log-in moved the guest's running matches to the account, and each log-out gave a fresh guest
    (whose address count had dropped to 0): 8 running on one account where the limit is 3."""
    settings.CASUAL_RUNNING_PER_PERSON = 3
    get_user_model().objects.create_user("maya", password="a-long-pass-9876")
    browser = Client()
    for _ in range(3):
        dealt = [table_of(press_deal(browser)) for _ in range(settings.GUEST_RUNNING_PER_BROWSER)]
        answer = browser.post("/accounts/login/", {"username": "maya", "password": "a-long-pass-9876",
                                                   "csrfmiddlewaretoken": _csrf(browser)})
        assert answer.status_code == 302, answer.content[:300]
        person = player_for_user(user=get_user_model().objects.get(username="maya"))
        running = Match.objects.filter(status=Match.Status.RUNNING, seats__player=person)
        assert running.count() <= 3
        assert running.count() == 3 or set(dealt) <= set(running.values_list("pk", flat=True))
        browser.post("/accounts/logout/", {"csrfmiddlewaretoken": _csrf(browser)})
    ended = Match.objects.filter(status=Match.Status.ABORTED)  # one of the second round's (the older), the third's
    assert ended.count() == 3 and all("limit 3 per account" in m.abort_reason for m in ended)


def test_the_table_offers_deal_again_with_the_same_rules_against_house_bots_only(house_bots):
    """Issue 23, part 4: at a casual match against house bots the table holds a "Deal again" form (shown by
    static/js/table.js once the match is over) that deals the same preset and seat count at once."""
    browser = Client()
    match_id = table_of(press_deal(browser, preset="web-table", seats="3"))
    page = browser.get(f"/matches/{match_id}/play/").content.decode()
    form = re.search(r'<form id="deal-again" method="post" action="/play/guest/" hidden>(.*?)</form>', page, re.S)
    assert form and 'name="preset" value="web-table"' in form[1] and 'name="seats" value="3"' in form[1]
    again = browser.post("/play/guest/", {"preset": "web-table", "seats": "3", "csrfmiddlewaretoken": _csrf(browser)})
    assert table_of(again) != match_id

    person = get_user_model().objects.create_user("maya", password="a-long-pass-9876")
    with_people = match_create(players=[player_for_user(user=person), Seat.objects.get(match_id=match_id,
                                                                                      index=0).player],
                               ruleset=Ruleset.preset("web-table"), preset="web-table")
    browser.force_login(person)
    assert 'id="deal-again"' not in browser.get(f"/matches/{with_people.pk}/play/").content.decode()


def test_an_addresss_running_guest_matches_count_after_their_guest_logs_in(house_bots, settings):
    """Issue 23: the address's count of running guest matches dropped to 0 after every log-in (the seats moved to
    the account); a match dealt from an address counts for it until it ends."""
    settings.GUEST_RUNNING_PER_ADDRESS, settings.GUEST_RUNNING_PER_BROWSER = 2, 2
    settings.CASUAL_RUNNING_PER_PERSON = 5
    get_user_model().objects.create_user("maya", password="a-long-pass-9876")
    browser = Client(REMOTE_ADDR="198.51.100.40")
    dealt = [table_of(press_deal(browser)) for _ in range(2)]
    browser.post("/accounts/login/", {"username": "maya", "password": "a-long-pass-9876",
                                      "csrfmiddlewaretoken": _csrf(browser)})
    browser.post("/accounts/logout/", {"csrfmiddlewaretoken": _csrf(browser)})
    refused = press_deal(browser)
    assert refused.status_code == 429 and "from your address" in refused.content.decode()
    Match.objects.filter(pk=dealt[0]).update(status=Match.Status.FINISHED)
    assert press_deal(browser).status_code == 302  # one ended: a place again
