"""A page action done by a form's POST (Play now, Deal) answers any other request by sending the person back to the
page with its button and a message, never a blank 405: the login page sends a person back with a GET."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages


@pytest.mark.django_db
def test_play_now_after_logging_in_returns_to_the_ladder_page_with_a_message(client, ladder):
    answer = client.post(f"/ladders/{ladder.slug}/play/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    client.force_login(get_user_model().objects.get(username="ruth"))
    back = client.get(f"/ladders/{ladder.slug}/play/")  # where the login page's ?next= sends the person
    assert back.status_code == 303 and back["Location"] == f"/ladders/{ladder.slug}/"
    page = client.get(back["Location"])
    assert page.status_code == 200
    assert "Press Play now to start a match on this ladder." in [str(m) for m in get_messages(page.wsgi_request)] \
        or "Press Play now to start a match on this ladder." in page.content.decode()


@pytest.mark.django_db
def test_a_get_of_the_deal_action_returns_to_the_home_page(client):
    back = client.get("/play/guest/")
    assert back.status_code == 303 and back["Location"] == "/"
    assert "press Deal to play" in client.get("/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["enter", "withdraw", "start"])
def test_a_get_of_a_tournament_action_returns_to_the_tournament_page(client, action):
    from tournaments.tournament_services import tournament_create

    t = tournament_create(name="Get cup", format="round_robin")
    client.force_login(get_user_model().objects.create_user("ruth", password="pw-ruth-12345"))
    back = client.get(f"/tournaments/{t.pk}/{action}/")
    assert back.status_code == 303 and back["Location"] == f"/tournaments/{t.pk}/"
