"""Breaker: a person's player can still be named with ASCII digits only.

Today's change refuses a name of ASCII digits only at sign-up and for bots (``sitekit.names.player_name_check``:
``/api/players/<ref>/`` reads digits as a player id). ``services.player_for_user`` (the person's player, made on first
use from the user name) only normalises the name: a user made by ``createsuperuser``, the Django admin, or before
today (a user name "2024") gets the player name "2024", which ``/api/players/2024/`` reads as player id 2024 (another
player, or a 404), and NFKC turns a fullwidth "２０２４" into "2024" the same way.

Reproduction: ``create_user("2024")``; ``player_for_user`` -> a player named "2024".
Fix: in ``player_for_user``, suffix a digits-only base as a taken name is (``"2024 (2)"``), or prefix a letter.
"""

import pytest
from django.contrib.auth import get_user_model

from games.services import player_for_user


@pytest.mark.django_db
def test_breaker2_a_persons_player_is_never_named_with_digits_only():
    user = get_user_model().objects.create_user("\uff12\uff10\uff12\uff14", password="pw-digits-12345")
    name = player_for_user(user=user).name
    assert not (name.isascii() and name.isdigit()), name
    assert name == "2024 (2)"  # suffixed as a taken name is
