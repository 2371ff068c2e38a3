"""A logged-in person's casual matches are limited (breaker F2): running at once (CASUAL_RUNNING_PER_PERSON) and
new ones per account (CASUAL_MATCH_RATE), on the home page's Deal, the casual API and "Play this deal": 429 with
Retry-After and words naming the limit; nothing created when refused."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from eights_engine import Ruleset
from games.models import Match, Player
from games.services import match_advance, match_create
from tournaments.services import ladder_play_now

pytestmark = pytest.mark.django_db


@pytest.fixture
def person_client(client, house_bots):
    client.force_login(get_user_model().objects.create_user("casual-person", password="pw-casual-1"))
    return client


def _api(client):
    return client.post(reverse("api-casual-match"), {"opponents": ["Professor"]}, content_type="application/json")


def test_the_api_caps_running_casual_matches(person_client, settings):
    settings.CASUAL_RUNNING_PER_PERSON = 2
    assert [_api(person_client).status_code for _ in range(2)] == [201, 201]
    refused = _api(person_client)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    body = refused.json()
    assert body["error"] == "throttled" and "limit 2 running casual matches per account" in body["detail"]
    assert Match.objects.count() == 2
    Match.objects.update(status=Match.Status.FINISHED)  # one finishes: a place again
    assert _api(person_client).status_code == 201


def test_the_api_limits_the_rate_of_new_casual_matches(person_client, settings):
    settings.CASUAL_RUNNING_PER_PERSON = 100
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "casual_match": "3/hour"}}
    assert [_api(person_client).status_code for _ in range(3)] == [201] * 3
    refused = _api(person_client)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 60
    assert "limit 3/hour new casual matches per account" in refused.json()["detail"]
    assert Match.objects.count() == 3


def test_the_home_pages_deal_caps_a_logged_in_persons_matches(person_client, settings):
    settings.CASUAL_RUNNING_PER_PERSON = 1
    first = person_client.post(reverse("guest-deal"), {"preset": "web-table", "seats": "2"})
    assert first.status_code == 302
    refused = person_client.post(reverse("guest-deal"), {"preset": "web-table", "seats": "2"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert b"limit 1 running casual matches per account" in refused.content
    assert Match.objects.count() == 1
    assert _api(person_client).status_code == 429  # one count for the page and the API


def test_ladder_matches_do_not_count(person_client, settings, ladder):
    settings.CASUAL_RUNNING_PER_PERSON = 1
    match, _seat = ladder_play_now(ladder=ladder, user=get_user_model().objects.get(username="casual-person"))
    assert match is not None and match.status == Match.Status.RUNNING
    assert _api(person_client).status_code == 201


def test_play_this_deal_counts_too_and_takes_ascii_seats_only(person_client, settings):
    settings.CASUAL_RUNNING_PER_PERSON = 1
    houses = list(Player.objects.filter(kind=Player.Kind.HOUSE).order_by("pk"))[:2]
    original = match_create(players=houses, ruleset=Ruleset.preset("pagat"), seed=2024)
    assert match_advance(match_id=original.pk) == "finished"
    code = original.deals.order_by("number").first().code
    assert person_client.post(f"/deals/{code}/play/", {"seat": "\u0661"}).status_code == 302  # refused: a message
    assert Match.objects.count() == 1
    assert person_client.post(f"/deals/{code}/play/", {"seat": "1"}).status_code == 302
    refused = person_client.post(f"/deals/{code}/play/", {"seat": "1"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "limit 1 running casual matches per account" in refused.content.decode()
    assert Match.objects.count() == 2
