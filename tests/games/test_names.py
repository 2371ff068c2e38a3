"""Player names cannot pass for one another: a name is normalised (NFKC, one space between words), refused with
control or invisible characters, and refused when it looks like a taken name (Unicode TR39 confusable skeleton,
ignoring case): for bots (API), people at sign-up, and the player made from a person's user name."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Player
from games.people.players import player_name_check
from sitekit.names import NameRefused, name_skeleton
from games.services import player_for_user

LOOK_ALIKES = [
    "Pr\u03bffessor",  # Greek small omicron
    "\uff30\uff52\uff4f\uff46\uff45\uff53\uff53\uff4f\uff52",  # fullwidth letters
    "PROFESSOR",
    "Pr0fessor",  # digit zero
    "Prof\u0435ssor",  # Cyrillic small ie
    "\U0001d40f\U0001d42b\U0001d428\U0001d41f\U0001d41e\U0001d42c\U0001d42c\U0001d428\U0001d42b",  # math bold
]


def test_the_skeleton_maps_look_alikes_to_one_form():
    base = name_skeleton("Professor")
    for name in LOOK_ALIKES:
        assert name_skeleton(name) == base, name
    assert name_skeleton("Professorm") == name_skeleton("Professorrn")
    assert name_skeleton("Ada") != name_skeleton("Ava")


@pytest.mark.django_db
@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_look_alike_of_a_taken_name_is_refused_and_the_message_names_both(house_bots, name):
    with pytest.raises(NameRefused) as err:
        player_name_check(name=name)
    assert err.value.code == "name_taken"
    assert "'Professor'" in err.value.detail and "choose another" in err.value.detail


@pytest.mark.django_db
def test_names_are_normalised_and_invisible_characters_refused(db):
    assert player_name_check(name="  Crazy \t  Eights ") == "Crazy Eights"
    assert player_name_check(name="Crazy\u2028\u3000Nines") == "Crazy Nines"  # line separator, ideographic space
    assert player_name_check(name="\uff23razy") == "Crazy"
    for bad, words in (("Cra\u200bzy", "U+200B"), ("Cra\u202ezy", "U+202E"), ("Cra\x07zy", "U+0007"),
                       ("Cra\u3164zy", "U+3164"), ("Cra\ufe0fzy", "U+FE0F")):
        with pytest.raises(NameRefused) as err:
            player_name_check(name=bad)
        assert err.value.code == "invalid_name" and words in err.value.detail, (bad, err.value.detail)
        assert "letters, digits, spaces and punctuation" in err.value.detail


@pytest.fixture
def owner_api(db):
    user = get_user_model().objects.create_user("ada", password="pw-ada-123")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Pr\u03bffessor", "\uff30rofessor", "Pro\u200bfessor"])
def test_registering_a_bot_with_a_look_alike_name_is_refused(owner_api, house_bots, name):
    response = owner_api.post("/api/bots/", {"name": name, "endpoint_url": "http://127.0.0.1:9/"}, format="json")
    assert response.status_code in (400, 409), response.content
    assert response.json()["error"] in ("name_taken", "invalid_name")
    assert not Player.objects.filter(kind="bot").exists()


@pytest.mark.django_db
def test_a_bot_name_with_doubled_spaces_is_stored_with_one(owner_api):
    response = owner_api.post("/api/bots/", {"name": "Crazy   Eights", "endpoint_url": "http://127.0.0.1:9/"},
                              format="json")
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Crazy Eights"
    again = owner_api.post("/api/bots/", {"name": "Crazy Eight\u0455", "endpoint_url": "http://127.0.0.1:9/"},
                           format="json")  # Cyrillic dze for the s
    assert again.status_code == 409 and "'Crazy Eights'" in again.json()["detail"]
    bot_id = response.json()["id"]
    renamed = owner_api.patch(f"/api/bots/{bot_id}/", {"name": "Crazy  Eight\u0455"}, format="json")
    assert renamed.status_code == 200, renamed.content  # its own name: not taken by itself


@pytest.mark.django_db
def test_sign_up_refuses_a_user_name_that_looks_like_a_player(house_bots):
    response = Client().post("/accounts/signup/", {"username": "Pr\u03bffessor", "password1": "a-long-pass-9876",
                                                  "password2": "a-long-pass-9876"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "looks like" in page and "Professor" in page
    assert not get_user_model().objects.filter(username="Pr\u03bffessor").exists()


@pytest.mark.django_db
def test_sign_up_refuses_a_look_alike_of_another_person(db):
    client = Client()
    ok = client.post("/accounts/signup/", {"username": "alice", "password1": "a-long-pass-9876",
                                           "password2": "a-long-pass-9876"})
    assert ok.status_code == 302
    assert Player.objects.filter(name="alice", kind="human").exists()  # the person's player is made at sign-up
    response = Client().post("/accounts/signup/", {"username": "\u0430lice", "password1": "a-long-pass-9876",
                                                  "password2": "a-long-pass-9876"})  # Cyrillic a
    assert response.status_code == 200 and "looks like" in response.content.decode()


@pytest.mark.django_db
def test_a_persons_player_never_takes_a_look_alike_of_a_taken_name(house_bots):
    # a user made outside sign-up (admin, createsuperuser) whose name looks like a house bot's
    user = get_user_model().objects.create_user("PR\u03bfFESSOR", password="pw-12345-long")
    player = player_for_user(user=user)
    assert player.name != user.username and name_skeleton(player.name) != name_skeleton("Professor")
    assert player.name.startswith("PR\u03bfFESSOR (")


#: look-alikes the first key let through (a breaker's list), each next to the name it imitates
LOOK_ALIKES_2 = [
    ("CounseI", "Counsel"),  # capital I for l: TR39 maps before case-folding
    ("ExampIe", "Example"),
    ("Quo\u043a\u043aa", "Quokka"),  # Cyrillic ka (TR39: kra)
    ("Wom\u042cat", "Wombat"),  # Cyrillic capital soft sign
    ("Pr\u1d0f\u0493essor", "Professor"),  # small capital O, Cyrillic ghe with stroke (a small capital F)
    ("Professo\u1e59", "Professor"),  # r with dot above (a combining mark)
    ("Profe\u0073\u0073o\u0072\u0307", "Professor"),  # r + combining dot above
    ("Profess\u00f6r", "Professor"),  # o with diaeresis: accents do not make a new name
    ("Zo\u00eb", "Zoe"),
]


def test_the_skeleton_maps_the_second_round_of_look_alikes():
    for name, original in LOOK_ALIKES_2:
        assert name_skeleton(name) == name_skeleton(original), (name, original)
    for one, other in (("Ada", "Adam"), ("Rando", "Random"), ("Ada", "Ava"), ("Eager", "Eagle"), ("Zoe", "Zoey")):
        assert name_skeleton(one) != name_skeleton(other), (one, other)


@pytest.mark.django_db
@pytest.mark.parametrize("name,original", LOOK_ALIKES_2)
def test_a_bot_may_not_take_a_look_alike_of_a_taken_name(owner_api, name, original):
    from games.services import player_house_create

    player_house_create(name=original, strategy="random")
    response = owner_api.post("/api/bots/", {"name": name, "endpoint_url": "http://127.0.0.1:9/"}, format="json")
    assert response.status_code == 409, response.content
    assert response.json()["error"] == "name_taken" and repr(original) in response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("name,original", [("Adam", "Ada"), ("Random", "Rando"), ("Zoey", "Zoe")])
def test_a_different_name_next_to_a_taken_one_is_accepted(owner_api, name, original):
    from games.services import player_house_create

    player_house_create(name=original, strategy="random")
    response = owner_api.post("/api/bots/", {"name": name, "endpoint_url": "http://127.0.0.1:9/"}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_sign_up_refuses_a_capital_i_for_an_l(db):
    from games.services import player_house_create

    player_house_create(name="Counsel", strategy="random")
    response = Client().post("/accounts/signup/", {"username": "CounseI", "password1": "a-long-pass-9876",
                                                  "password2": "a-long-pass-9876"})
    assert response.status_code == 200 and "looks like" in response.content.decode()
    assert not get_user_model().objects.filter(username="CounseI").exists()


@pytest.mark.django_db(transaction=True)
def test_the_migration_recomputes_every_skeleton():
    from django.core.management import call_command

    from games.services import player_house_create

    player = player_house_create(name="CounseI", strategy="random")
    Player.objects.filter(pk=player.pk).update(name_skeleton="counsei")  # what the first key stored
    call_command("migrate", "games", "0007", verbosity=0)  # also unapplies later migrations that depend on games
    call_command("migrate", verbosity=0)  # every app back to its latest (tournaments' tables too)
    assert Player.objects.get(pk=player.pk).name_skeleton == name_skeleton("Counsel")


GUEST_LOOK_ALIKES = ["Guest 0a0a0a", "Guest", "guest", "GUEST 1B2C3D", "Guest_0a0a0a", "Guest0a0a0a",
                     "Gu\u0435st 0a0a0a", "\uff27uest 123abc", "Guest  0a0a0a", "Guest-OaOaOa"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", GUEST_LOOK_ALIKES)
def test_a_name_that_looks_like_a_guests_is_refused(name):
    """Guests are named ``Guest <6 hex digits>``: no bot or person may look like one (breaker F8)."""
    with pytest.raises(NameRefused) as refused:
        player_name_check(name=name)
    assert refused.value.code == "invalid_name" and "guest" in refused.value.detail


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Guesthouse", "Guest star", "Guest 12345", "Our guest 0a0a0a", "Guesty"])
def test_names_merely_containing_guest_are_fine(name):
    assert player_name_check(name=name) == name


@pytest.mark.django_db
def test_a_bot_or_account_named_like_a_guest_is_refused_with_400(owner_api):
    response = owner_api.post("/api/bots/", {"name": "Guest 0a0a0a", "endpoint_url": "http://127.0.0.1:9/"},
                              format="json")
    assert response.status_code == 400 and response.json()["error"] == "invalid_name", response.content
    assert "guest" in response.json()["detail"]
    signup = Client().post("/accounts/signup/", {"username": "Guest_0a0a0a", "password1": "a-long-pass-9876",
                                                "password2": "a-long-pass-9876"})
    assert signup.status_code == 200 and "guest" in signup.content.decode()
    assert not get_user_model().objects.filter(username="Guest_0a0a0a").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["2024", "\uff17\uff17\uff17", " 42 "])  # fullwidth digits become ASCII (NFKC)
def test_a_name_of_digits_only_is_refused_it_would_read_as_a_player_id(owner_api, name):
    with pytest.raises(NameRefused) as err:
        player_name_check(name=name)
    assert err.value.code == "invalid_name" and "player id" in err.value.detail and "add a letter" in err.value.detail
    response = owner_api.post("/api/bots/", {"name": name, "endpoint_url": "http://127.0.0.1:9/"}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "invalid_name", response.content
    signup = APIClient().post("/api/accounts/", {"username": name, "password": "a-long-pass-phrase-9"}, format="json")
    assert signup.status_code == 400 and "player id" in signup.content.decode(), signup.content
    assert not get_user_model().objects.filter(username=name.strip()).exists()
    assert player_name_check(name="R2D2") == "R2D2" and player_name_check(name="2024 Bot") == "2024 Bot"
