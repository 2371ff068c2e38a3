"""Table pages (issue 23, part 1): a guest opens a table from the lobby, a second browser opens the invite link and
takes the open seat, and both are sent to the match's table; refusals show a page with their status."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from games.models import Match
from tables.models import Table

pytestmark = pytest.mark.django_db


def _post(client: Client, url: str, data: dict | None = None):
    client.get("/tables/")
    return client.post(url, {**(data or {}), "csrfmiddlewaretoken": client.cookies["csrftoken"].value})


def test_a_guest_opens_a_table_and_another_browser_joins_by_the_link(house_bots):
    host, friend = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    page = host.get("/tables/").content.decode()
    assert "Open a table" in page and "No table is waiting for players" in page
    made = _post(host, "/tables/new/", {"preset": "web-table", "seats": "3", "seat_1": "house:eager",
                                        "seat_2": "open", "listed": "on"})
    assert made.status_code == 302, made.content[:400]
    invite = made["Location"]
    code = re.fullmatch(r"/tables/([A-Z0-9]{12})/", invite)[1]
    waiting = host.get(invite).content.decode()
    assert "Waiting for 1 more player" in waiting and f"http://testserver/tables/{code}/" in waiting
    assert 'id="join"' not in waiting and 'id="start"' in waiting  # the host sits already and may start
    lobby = friend.get("/tables/").content.decode()
    assert f'href="/tables/{code}/"' in lobby and "Guest " in lobby  # the host is a guest
    assert 'id="join"' in friend.get(invite).content.decode()

    joined = _post(friend, f"/tables/{code}/join/")
    assert joined.status_code == 302 and joined["Location"] == invite
    table = Table.objects.get(code=code)
    assert table.status == Table.Status.STARTED
    for browser in (host, friend):  # each is sent to the match's table, where its seat is its own
        assert browser.get(invite)["Location"] == f"/matches/{table.match_id}/play/"
    match = Match.objects.get(pk=table.match_id)
    players = [s.player for s in match.seats.order_by("index")]
    assert players[0].is_guest and players[2].is_guest and players[0] != players[2]
    assert match.move_seconds == settings.GUEST_MOVE_SECONDS  # a guest's clock
    assert friend.get(f"/api/matches/{match.pk}/seats/2/").status_code == 200
    assert friend.get(f"/api/matches/{match.pk}/seats/0/").status_code in (403, 401)


def test_wrong_and_finished_invites_answer_a_page_with_their_status(house_bots):
    browser = Client()
    missing = browser.get("/tables/NOSUCHCODE42/")
    assert missing.status_code == 404 and "No such table" in missing.content.decode()
    made = _post(browser, "/tables/new/", {"preset": "web-table", "seats": "2", "seat_1": "open"})
    code = made["Location"].split("/")[2]
    assert _post(browser, f"/tables/{code}/cancel/").status_code == 302
    late = _post(Client(), f"/tables/{code}/join/")
    assert late.status_code == 410 and "cancelled" in late.content.decode()
    bad = _post(browser, "/tables/new/", {"preset": "web-table", "seats": "7"})
    assert bad.status_code == 400 and "A table here has 2, 3, 4 seats." in bad.content.decode()


def test_two_guests_rematch_from_the_match_page(house_bots):
    host, friend = Client(), Client()
    code = _post(host, "/tables/new/", {"preset": "web-table", "seats": "2", "seat_1": "open"})["Location"].split("/")[2]
    _post(friend, f"/tables/{code}/join/")
    match_id = Table.objects.get(code=code).match_id
    Match.objects.filter(pk=match_id).update(status=Match.Status.FINISHED)
    page = host.get(f"/matches/{match_id}/").content.decode()
    assert 'id="rematch"' in page and f'action="/tables/{code}/rematch/"' in page
    offered = _post(host, f"/tables/{code}/rematch/")
    again = offered["Location"].split("/")[2]
    assert again != code and "Its rematch" in friend.get(f"/matches/{match_id}/").content.decode()
    accepted = _post(friend, f"/tables/{code}/rematch/")
    assert accepted["Location"] == f"/tables/{again}/"
    rematch = Table.objects.get(code=again)
    assert rematch.status == Table.Status.STARTED and rematch.rematch_of.code == code
    seats = list(Match.objects.get(pk=rematch.match_id).seats.order_by("index").values_list("player_id", flat=True))
    first = list(Match.objects.get(pk=match_id).seats.order_by("index").values_list("player_id", flat=True))
    assert seats == first[-1:] + first[:-1]  # each seat moved on by one
    assert friend.get(f"/tables/{again}/")["Location"] == f"/matches/{rematch.match_id}/play/"


def test_a_guest_who_signs_up_mid_match_keeps_their_table_seat_and_rematches(house_bots):
    """The guest's table seat (and the table they opened) move to the account with their match seats: the guest
    player's delete took them along, and the finished table's rematch then failed with a 500."""
    from tables.models import TableSeat

    host, friend = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    code = _post(host, "/tables/new/", {"preset": "web-table", "seats": "3", "seat_1": "open",
                                        "seat_2": "house:eager"})["Location"].split("/")[2]
    _post(friend, f"/tables/{code}/join/")
    _post(host, "/tables/")  # the host signs up too: the table they opened stays
    for client, name in ((friend, "friend"), (host, "host")):
        client.get("/accounts/signup/")
        signed = client.post("/accounts/signup/", {"username": name, "password1": "a-long-pass-9876",
                                                   "password2": "a-long-pass-9876",
                                                   "csrfmiddlewaretoken": client.cookies["csrftoken"].value})
        assert signed.status_code == 302, signed.content[:300]
    table = Table.objects.get(code=code)
    assert table.created_by.name == "host"
    assert [s.player.name for s in TableSeat.objects.filter(table=table).order_by("index")][:2] == ["host", "friend"]
    Match.objects.filter(pk=table.match_id).update(status=Match.Status.FINISHED)
    again = _post(host, f"/tables/{code}/rematch/")["Location"].split("/")[2]
    assert _post(friend, f"/tables/{code}/rematch/")["Location"] == f"/tables/{again}/"
    rematch = Table.objects.get(code=again)
    assert rematch.status == Table.Status.STARTED
    names = [s.player.name for s in Match.objects.get(pk=rematch.match_id).seats.order_by("index")]
    assert names[1:] == ["host", "friend"]  # each seat moved on by one


def test_a_person_challenges_another_from_their_page_who_accepts_from_any_page(house_bots):
    from django.contrib.auth import get_user_model

    from games.services import player_for_user

    lin, bob = (get_user_model().objects.create_user(n, password=f"pw-{n}-12345") for n in ("lin", "bob"))
    player_for_user(user=bob)
    challenger, challenged = Client(), Client()
    challenger.force_login(lin)
    challenged.force_login(bob)
    profile = challenger.get("/players/bob/").content.decode()
    assert 'id="challenge"' in profile
    made = challenger.post("/tables/challenge/", {"player": "bob", "preset": "web-table"})
    code = made["Location"].split("/")[2]
    banner = challenged.get("/matches/").content.decode()
    assert "<strong>lin</strong> challenges you to a <code>web-table</code> match" in banner
    accepted = challenged.post(f"/tables/{code}/join/")
    assert challenged.get(accepted["Location"])["Location"].endswith("/play/")  # off to the match's table
    assert "challenges you" not in challenged.get("/").content.decode()
    assert 'id="challenge"' not in challenger.get("/players/lin/").content.decode()  # never oneself


def test_a_browser_without_a_seat_changes_nothing(house_bots):
    host = Client()
    code = _post(host, "/tables/new/", {"preset": "web-table", "seats": "3", "seat_1": "open",
                                        "seat_2": "open"})["Location"].split("/")[2]
    for action in ("leave", "cancel", "start", "decline", "rematch"):
        answer = _post(Client(), f"/tables/{code}/{action}/")
        assert answer.status_code in (403, 410), (action, answer.status_code)
    table = Table.objects.get(code=code)
    assert table.status == Table.Status.WAITING and table.seats.filter(player__isnull=True).count() == 2


def test_the_lobby_form_offers_other_owners_bots_that_accept_challenges(house_bots, servers):
    from django.contrib.auth import get_user_model

    from bots_api.models import Bot
    from personas import bot_of, user

    ada, lin = user("ada"), get_user_model().objects.create_user("lin2", password="pw-lin2-12345")
    open_bot = bot_of(ada, servers(), "OpenBot", active=True)
    bot_of(ada, servers(), "ClosedBot", active=True)
    Bot.objects.filter(pk=open_bot.pk).update(accepts_challenges=True)
    client = Client()
    client.force_login(lin)
    page = client.get("/tables/").content.decode()
    assert 'value="challenge:OpenBot"' in page and "challenge the bot OpenBot (by ada)" in page
    assert "ClosedBot" not in page
    made = _post(client, "/tables/new/", {"preset": "web-table", "seats": "2", "seat_1": "challenge:OpenBot"})
    code = made["Location"].split("/")[2]
    table = Table.objects.get(code=code)
    assert table.status == Table.Status.STARTED  # no seat left to fill: the bot's seat was the last
    assert Match.objects.get(pk=table.match_id).seats.get(index=1).player == open_bot.player
    owners_view = Client()
    owners_view.force_login(ada)
    assert "challenge:OpenBot" not in owners_view.get("/tables/").content.decode()  # not one's own bots
