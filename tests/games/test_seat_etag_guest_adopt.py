"""Breaker: a guest's seat view is answered 304 (stale) after the guest signs up or logs in.

The seat view's ETag is (ply count, status, waits_for) (``selectors.seat_etag``), and since today the 304 is answered
from the access read alone. Signing up or logging in in the guest's browser moves the guest's seats to the account's
player (``games.people.guests.guest_adopt``): the seat's name, its ``guest`` flag and the match's move clock
(``move_seconds``: GUEST_MOVE_SECONDS -> HUMAN_MOVE_SECONDS, so ``move_deadline``) all change, but none of the ETag's
parts does. The table revalidating with its last ETag (``Cache-Control: private, no-cache``) keeps getting 304 and
keeps showing "Guest xxxxxx", the guest badge and a deadline minutes later than the one the move clock enforces
(matches_clock_expired now plays the fallback at HUMAN_MOVE_SECONDS), until the next ply.

Reproduction: a guest deals a table, its seat view (200, ETag E) is on its turn; the browser signs up; GET the seat
view with If-None-Match: E -> 304, although a fresh GET shows another name, guest false and another deadline.
Fix: put what else the view depends on into the tag (e.g. the seat players' ids and the match's move_seconds /
last_progress_at), or bump a per-match version column on guest_adopt.
"""

import pytest
from django.test import Client

from games.models import Match
from games.selectors import match_state
from games.services import match_advance
from personas import press_deal, table_of

pytestmark = pytest.mark.django_db


def _csrf(client: Client) -> str:
    client.get("/")
    return client.cookies["csrftoken"].value


def test_breaker2_the_seat_view_is_not_answered_304_after_the_guest_signs_up(house_bots):
    browser = Client()
    match_id = table_of(press_deal(browser))
    match_advance(match_id=match_id)  # the house bot plays until it is the guest's turn
    assert match_state(match=Match.objects.get(pk=match_id)).to_play == 0
    url = f"/api/matches/{match_id}/seats/0/"
    before = browser.get(url)
    assert before.status_code == 200 and before.json()["seats"][0]["guest"] is True
    assert before.json()["move_deadline"] is not None

    signup = browser.post("/accounts/signup/", {"username": "maya", "password1": "a-long-pass-9876",
                                                "password2": "a-long-pass-9876", "csrfmiddlewaretoken": _csrf(browser)})
    assert signup.status_code == 302, signup.content[:300]
    fresh = browser.get(url).json()
    assert fresh["seats"][0]["guest"] is False and fresh["seats"][0]["name"] == "maya"
    assert fresh["move_deadline"] == before.json()["move_deadline"]  # the clock the match started with (issue 23)
    assert fresh["ply"] == before.json()["ply"]  # nothing was played: only the seat's player and clock changed

    revalidated = browser.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert revalidated.status_code == 200, "304: the table keeps the guest's name, badge and deadline"
