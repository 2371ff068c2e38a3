"""Deal codes: once a match ends, anyone can play its deals again (same cards) and compare results."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from eights_engine import Deal, Ruleset
from games.models import Match
from games.selectors import match_state
from games.services import match_advance, match_create


@pytest.mark.django_db
def test_a_finished_deal_can_be_played_again_with_the_same_cards_and_compared(house_bots):
    original = match_create(players=house_bots[2:4], ruleset=Ruleset.preset("pagat"), seed=2024)
    running = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=77)
    assert match_advance(match_id=original.pk) == "finished"
    deal = original.deals.order_by("number").first()
    hidden = running.deals.first().code
    person = get_user_model().objects.create_user("duo", password="pw-duo-12345")
    page = Client()
    page.force_login(person)
    assert page.get(f"/deals/{hidden}/").status_code == 404  # a running match's code stays secret
    assert f"/deals/{deal.code}/" in page.get(f"/matches/{original.pk}/").content.decode()
    listing = page.get(f"/deals/{deal.code}/").content.decode()
    assert f"#{original.pk}" in listing and "Play this deal" in listing
    anonymous = Client().get(f"/deals/{deal.code}/").content.decode()
    assert "log in</a>" in anonymous and 'name="seat"' not in anonymous  # no live button for a visitor

    response = page.post(f"/deals/{deal.code}/play/", {"seat": "1"})
    assert response.status_code == 302
    replay_match = Match.objects.exclude(pk__in=[original.pk, running.pk]).get()
    assert response["Location"] == f"/matches/{replay_match.pk}/play/"
    first = replay_match.deals.get()
    assert (first.key, first.code, first.dealer) == (deal.key, deal.code, deal.dealer)
    assert replay_match.single_deal_key == deal.key and replay_match.engine_version == "2"
    assert replay_match.seats.get(index=1).player.user == person
    assert replay_match.seats.get(index=0).player.strategy == house_bots[2].strategy  # same house strategy
    dealt = Deal.start(Ruleset.preset("pagat"), 2, bytes.fromhex(deal.key), dealer=deal.dealer)
    state = match_state(match=replay_match)
    assert state.deal.seed == bytes.fromhex(deal.key)
    assert Deal.start(Ruleset.preset("pagat"), 2, bytes.fromhex(first.key), dealer=first.dealer).hand(1) == dealt.hand(1)

    api = APIClient()
    api.force_authenticate(person)
    for _ in range(500):  # the person plays the deal out through the API; the match ends with that one deal
        match_advance(match_id=replay_match.pk)
        view = api.get(f"/api/matches/{replay_match.pk}/seats/1/").json()
        if view["status"] != "running":
            break
        api.post(f"/api/matches/{replay_match.pk}/seats/1/actions/", {"ply": view["ply"],
                                                                   "action": view["legal_actions"][0]}, format="json")
    replay_match.refresh_from_db()
    assert replay_match.status == Match.Status.FINISHED and replay_match.deal_number == 1
    assert not hasattr(replay_match, "ladder_match") or replay_match.ladder_match is None  # casual: unrated
    listing = Client().get(f"/deals/{deal.code}/").content.decode()
    assert f"#{original.pk}" in listing and f"#{replay_match.pk}" in listing and "duo" in listing


@pytest.mark.django_db
def test_play_this_deal_rejects_unknown_codes_and_seats(house_bots):
    from games.services import deal_replay_create

    person = get_user_model().objects.create_user("solo", password="pw-solo-12345")
    with pytest.raises(ValueError, match="code is public once its match ends"):
        deal_replay_create(code="ZZZZZZZZ", user=person)
    original = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=5)
    match_advance(match_id=original.pk)
    with pytest.raises(ValueError, match="seats 0 to 1"):
        deal_replay_create(code=original.deals.first().code, user=person, seat=5)
