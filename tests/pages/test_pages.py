"""Pages render with data; the busy ones have pinned query counts; deal codes stay hidden while a match runs."""


import pytest
from django.test import Client
from django.urls import reverse

from games.services import match_advance
from tournaments.services import ladder_schedule_matches


@pytest.fixture
def played(ladder):
    matches = ladder_schedule_matches(ladder=ladder)
    for m in matches:
        match_advance(match_id=m.pk)
    running = ladder_schedule_matches(ladder=ladder, limit=1)[0]
    match_advance(match_id=running.pk, ply_budget=5)
    return matches, running


@pytest.mark.django_db
def test_home_lists_ladders_and_recent_matches(client, played, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        page = client.get(reverse("home"))
    assert page.status_code == 200
    body = page.content.decode()
    assert "Test ladder" in body and "Professor" in body


@pytest.mark.django_db
def test_ladder_page_shows_the_leaderboard(client, ladder, played, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        page = client.get(reverse("ladder-detail", args=[ladder.slug]))
    assert page.status_code == 200
    body = page.content.decode()
    for name in ("Rando", "Eager", "Greedy", "Professor"):
        assert name in body
    assert "μ − 3σ" in body and body.count('class="bar"') == 4


@pytest.mark.django_db
def test_match_pages_show_deals_totals_and_standings(client, played):
    finished, running = played
    match = finished[0]
    match.refresh_from_db()
    body = client.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert "Final standings" in body
    for deal in match.deals.all():
        assert deal.code in body  # finished: codes are public
    assert "Rating change" in body
    body = client.get(reverse("match-detail", args=[running.pk])).content.decode()
    assert "playing" in body
    for deal in running.deals.all():
        assert deal.code not in body  # running: the code would reveal the cards
    listing = client.get(reverse("match-list")).content.decode()
    assert f"#{match.pk}" in listing and f"#{running.pk}" in listing
    assert client.get(reverse("match-list") + "?status=finished&page=x").status_code == 200


@pytest.mark.django_db
def test_unknown_pages_answer_404(client, db):
    assert client.get(reverse("match-detail", args=[999999])).status_code == 404
    assert client.get(reverse("ladder-detail", args=["nope"])).status_code == 404


@pytest.mark.django_db
def test_health_and_api_schema(client, db):
    assert client.get(reverse("healthz")).json()["status"] == "ok"  # its checks: tests/config/test_ops.py
    assert client.get(reverse("api-schema")).status_code == 200
    docs = client.get(reverse("api-docs")).content.decode()
    assert "cdn.jsdelivr" not in docs and "/static/drf_spectacular_sidecar/" in docs  # works offline
    assert client.get("/static/admin/css/base.css").status_code == 200  # whitenoise serves static files


@pytest.mark.django_db
def test_a_newcomer_signs_up_and_is_logged_in(client):
    from django.contrib.auth import get_user_model

    assert client.get(reverse("signup")).status_code == 200
    response = client.post(reverse("signup"), {"username": "newbie", "password1": "a-long-pass-9876",
                                               "password2": "a-long-pass-9876", "next": "/bots/"})
    assert response.status_code == 302 and response["Location"] == "/bots/"
    assert get_user_model().objects.filter(username="newbie").exists()
    assert client.get("/bots/").status_code == 200  # logged in
    bad = client.post(reverse("signup"), {"username": "x2", "password1": "a", "password2": "b",
                                          "next": "https://evil.example/"})
    assert bad.status_code == 200 and "didn" in bad.content.decode()  # "The two password fields didn't match."


def _sign_up(client, name, password2="a-long-pass-9876", **extra):
    return client.post(reverse("signup"), {"username": name, "password1": "a-long-pass-9876", "password2": password2},
                       **extra)


@pytest.mark.django_db
def test_sign_ups_are_throttled_with_the_page_and_a_clear_429(client):
    """10 accounts created per hour per address; the 11th post gets the sign-up page (429) saying so."""
    for i in range(10):
        assert _sign_up(Client(), f"u{i}").status_code == 302
    response = _sign_up(client, "u99")
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "Too many sign-ups from your address (limit 10/hour accounts created)" in page
    assert "Create my account" in page and 'value="u99"' in page  # the form again, the name kept
    asked = _sign_up(client, "u98", HTTP_ACCEPT="application/json")  # an API-like client gets JSON
    assert asked.status_code == 429 and asked.json()["error"] == "throttled" and "10/hour" in asked.json()["detail"]


@pytest.mark.django_db
def test_failed_sign_up_posts_do_not_use_the_account_budget_but_have_their_own_limit(client):
    for i in range(12):
        assert _sign_up(client, f"u{i}", password2="other").status_code == 200  # passwords differ: the form again
    assert _sign_up(client, "newbie").status_code == 302  # failures did not use the account budget
    for i in range(60 - 13):
        assert _sign_up(Client(), f"v{i}", password2="other").status_code == 200
    hammered = _sign_up(Client(), "w1", password2="other")
    assert hammered.status_code == 429 and int(hammered["Retry-After"]) > 0
    assert "Too many sign-up attempts from your address (limit 60/hour form posts)" in hammered.content.decode()




@pytest.mark.django_db
def test_an_empty_filter_says_what_it_filtered(client):
    assert "No aborted matches." in client.get("/matches/?status=aborted").content.decode()
    assert "No matches yet." in client.get("/matches/").content.decode()


@pytest.mark.django_db
def test_a_match_page_says_whether_the_match_is_rated(client, played, house_bots):
    """Newcomer trial: a guest's finished match promised a rating change; casual matches are unrated and say so."""
    from eights_engine import Ruleset
    from games.services import match_create

    finished, _ = played
    body = client.get(reverse("match-detail", args=[finished[0].pk])).content.decode()
    assert "rated ladder match" in body and "unrated" not in body
    casual = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=3)
    body = client.get(reverse("match-detail", args=[casual.pk])).content.decode()
    assert "casual match (unrated)" in body
