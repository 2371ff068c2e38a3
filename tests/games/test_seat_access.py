"""A seat is played only by the one who sits in it: a person plays only the human seats that are theirs; a bot's
seat is played only by the bot, never by its owner (a bot's player carries its owner as ``user``)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from bots_api.models import Bot
from bots_api.services import bot_register
from eights_engine import Ruleset
from games.models import Match, Move, Player
from games.selectors import match_state
from games.services import SeatForbidden, match_advance, match_create, match_submit_action, player_for_user

from bot_servers import BotServer


@pytest.fixture
def server():
    bot_server = BotServer("good")
    yield bot_server
    bot_server.stop()


@pytest.fixture
def ada(db):
    """A bot owner."""
    return get_user_model().objects.create_user("ada", password="pw-ada-12345")


@pytest.fixture
def ruth(db):
    """A person."""
    return get_user_model().objects.create_user("ruth", password="pw-ruth-12345")


def _bot(owner, server, name="Probe") -> Bot:
    bot, _secret = bot_register(owner=owner, name=name, endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
    bot.refresh_from_db()
    return bot


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_a_bot_owner_can_neither_read_nor_play_the_bot_seat(ada, server, house_bots):
    bot = _bot(ada, server)
    match = next(m for seed in range(40) if match_state(match=(m := match_create(
        players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=seed))).to_play == 0)
    view = match_state(match=match)
    action = view.legal_actions()[0]
    owner = _api(ada)
    read = owner.get(f"/api/matches/{match.pk}/seats/0/")
    assert read.status_code == 403 and read.json()["error"] == "permission_denied", read.content
    assert view.deal.hand(0)[0] not in read.content.decode()
    play = owner.post(f"/api/matches/{match.pk}/seats/0/actions/", {"ply": 0, "action": action}, format="json")
    assert play.status_code == 403 and "not yours" in play.json()["detail"], play.content
    with pytest.raises(SeatForbidden, match="not yours"):
        match_submit_action(match_id=match.pk, seat=0, ply=0, action=action, user=ada)
    assert not Move.objects.filter(deal__match=match).exists()
    page = Client()
    page.force_login(ada)
    assert page.get(f"/matches/{match.pk}/play/").status_code == 403
    assert f"/matches/{match.pk}/play/" not in page.get(f"/matches/{match.pk}/").content.decode()


@pytest.mark.django_db
def test_a_bot_owner_sees_no_deal_result_of_a_running_match_their_bot_plays(ada, ruth, server):
    bot = _bot(ada, server)
    match = match_create(players=[bot.player, player_for_user(user=ruth)], ruleset=Ruleset.preset("pagat"), seed=5)
    person = _api(ruth)
    for _ in range(500):  # ruth plays until the first deal is over, the match still running
        match_advance(match_id=match.pk)
        view = person.get(f"/api/matches/{match.pk}/seats/1/").json()
        if view["deals_finished"] or view["status"] != "running":
            break
        person.post(f"/api/matches/{match.pk}/seats/1/actions/", {"ply": view["ply"],
                                                                  "action": view["legal_actions"][0]}, format="json")
    assert view["deals_finished"] and view["status"] == "running"
    assert person.get(f"/api/matches/{match.pk}/deals/1/").status_code == 200  # ruth sits here
    answer = _api(ada).get(f"/api/matches/{match.pk}/deals/1/")
    assert answer.status_code == 403 and answer.json()["error"] == "permission_denied", answer.content


@pytest.mark.django_db
def test_a_person_who_owns_a_bot_in_their_match_gets_only_their_own_seat(ada, ruth, server):
    """A match from before owners were kept apart (Play now paired a person with their own bot): the table, the
    seat API and the deal results still give the person their human seat only."""
    bot = _bot(ruth, server)  # ruth's bot, handed to ada afterwards: the pairing match_create now refuses
    match = match_create(players=[bot.player, player_for_user(user=ada)], ruleset=Ruleset.preset("pagat"), seed=3)
    Player.objects.filter(pk=bot.player_id).update(user=ada)
    Bot.objects.filter(pk=bot.pk).update(owner=ada)
    page = Client()
    page.force_login(ada)
    assert 'data-seat="1"' in page.get(f"/matches/{match.pk}/play/").content.decode()
    match_page = page.get(f"/matches/{match.pk}/").content.decode()
    assert "You play seat 1 here" in match_page and f"/matches/{match.pk}/play/" in match_page
    assert _api(ada).get(f"/api/matches/{match.pk}/seats/1/").status_code == 200
    assert _api(ada).get(f"/api/matches/{match.pk}/seats/0/").status_code == 403


@pytest.mark.django_db
def test_no_match_seats_a_person_with_their_own_bot_or_two_bots_of_one_owner(ada, server, house_bots):
    bot = _bot(ada, server)
    other = _bot(ada, server, name="Probe Two")
    with pytest.raises(ValueError, match="same owner"):
        match_create(players=[bot.player, player_for_user(user=ada)], ruleset=Ruleset.preset("pagat"))
    with pytest.raises(ValueError, match="same owner"):
        match_create(players=[bot.player, other.player], ruleset=Ruleset.preset("pagat"))
    casual = _api(ada).post("/api/matches/casual/", {"opponents": [bot.name]}, format="json")
    assert casual.status_code == 400 and "not a house bot" in str(casual.json()["detail"])  # casual: house bots only
    assert not Match.objects.exists()
