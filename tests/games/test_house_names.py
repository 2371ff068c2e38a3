"""A house bot never takes over a person's or a user's bot's player (breaker F4): ``player_house_create`` picks a
free name instead of rewriting a non-house player with the wanted name."""

import pytest
from django.contrib.auth import get_user_model

from games.people.guests import guest_opponents
from games.models import Player
from games.services import player_house_create

pytestmark = pytest.mark.django_db


def _user_bot(name: str) -> Player:
    owner = get_user_model().objects.create_user("owner", password="pw-owner-1")
    return Player.objects.create(name=name, kind=Player.Kind.BOT, user=owner)


def test_house_create_leaves_a_users_bot_alone():
    bot = _user_bot("House eager 1")
    house = player_house_create(name="House eager 1", strategy="eager")
    bot.refresh_from_db()
    assert bot.kind == Player.Kind.BOT and bot.name == "House eager 1" and bot.strategy != "eager"
    assert house.pk != bot.pk and house.kind == Player.Kind.HOUSE and house.name == "House eager 1 (2)"


def test_house_create_updates_a_house_of_that_name():
    first = player_house_create(name="Rando", strategy="random")
    again = player_house_create(name="Rando", strategy="eager", description="now eager")
    assert again.pk == first.pk and again.strategy == "eager"


def test_guest_opponents_never_turn_a_users_bot_into_a_house_bot(settings):
    settings.GUEST_OPPONENTS = ["eager", "greedy"]
    bot = _user_bot("House eager 1")
    opponents = guest_opponents(1)
    bot.refresh_from_db()
    assert bot.kind == Player.Kind.BOT
    assert opponents[0].kind == Player.Kind.HOUSE and opponents[0].pk != bot.pk
