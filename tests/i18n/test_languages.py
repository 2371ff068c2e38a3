"""The site in English, Russian and Bulgarian (issue 24): the browser's Accept-Language picks the first visit's
language, the switcher changes it and a cookie (a guest) or the account (signed in) remembers it, URLs stay the
same; the scripts' words come from Django's JavaScript catalogue under the Content-Security-Policy; the API's
codes and field names stay English; plural forms (Russian three, Bulgarian two)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation

from games.models import Player
from games.services import player_for_user

pytestmark = pytest.mark.django_db

GUEST_TITLE = {"en": "Play now as a guest", "ru": "Играть сейчас как гость", "bg": "Играй сега като гост"}


def _page(client: Client, path: str = "/", **headers) -> str:
    response = client.get(path, **headers)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.mark.parametrize("language", ["en", "ru", "bg"])
def test_the_browsers_language_picks_the_pages_language(language):
    page = _page(Client(), HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")
    assert f'<html lang="{language}">' in page
    assert GUEST_TITLE[language] in page
    for other, title in GUEST_TITLE.items():
        if other != language:
            assert title not in page
    assert f'src="/jsi18n/?v={language}"' in page  # the scripts' words in the same language


def test_an_unknown_or_regional_language_falls_back_sensibly():
    assert '<html lang="en">' in _page(Client(), HTTP_ACCEPT_LANGUAGE="de,fr;q=0.9")
    assert '<html lang="ru">' in _page(Client(), HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9")
    assert '<html lang="bg">' in _page(Client(), HTTP_ACCEPT_LANGUAGE="bg-BG")


def test_the_switcher_sets_a_cookie_that_wins_over_the_browser_and_keeps_the_url():
    client = Client(enforce_csrf_checks=True)
    page = _page(client, "/matches/", HTTP_ACCEPT_LANGUAGE="ru")
    assert 'id="language-switcher"' in page and 'name="next"' not in page  # back to the page it was sent from
    chosen = client.post("/language/", {"language": "bg", "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
                         HTTP_ACCEPT_LANGUAGE="ru", HTTP_REFERER="http://testserver/matches/")
    assert chosen.status_code == 302 and chosen["Location"] == "http://testserver/matches/"
    assert client.cookies["language"].value == "bg"
    assert '<html lang="bg">' in _page(client, "/", HTTP_ACCEPT_LANGUAGE="ru")
    assert GUEST_TITLE["bg"] in _page(client, "/", HTTP_ACCEPT_LANGUAGE="ru")


def test_the_switcher_refuses_an_unknown_language_and_a_foreign_next():
    client = Client()
    refused = client.post("/language/", {"language": "xx", "next": "/"})
    assert refused.status_code == 400
    assert "no such language 'xx': choose one of en, ru, bg" in refused.content.decode()
    away = client.post("/language/", {"language": "ru", "next": "https://evil.example/"})
    assert away.status_code == 302 and away["Location"] == "/"  # Django's set_language: never off the site


def test_a_signed_in_person_keeps_their_language_on_the_account_across_log_ins():
    user = get_user_model().objects.create_user("lena", password="a-long-pass-9876")
    player_for_user(user=user)
    first = Client()
    first.force_login(user)
    first.get("/")
    first.post("/language/", {"language": "ru", "next": "/"})
    assert Player.objects.get(user=user).language == "ru"
    elsewhere = Client()  # another browser: no cookie, it asks for Bulgarian
    elsewhere.post("/accounts/login/", {"username": "lena", "password": "a-long-pass-9876"}, HTTP_ACCEPT_LANGUAGE="bg")
    page = _page(elsewhere, "/", HTTP_ACCEPT_LANGUAGE="bg")
    assert '<html lang="ru">' in page and "Выйти (lena)" in page


def test_a_sign_up_keeps_the_language_the_person_was_reading():
    client = Client()
    client.get("/accounts/signup/", HTTP_ACCEPT_LANGUAGE="bg")
    signed = client.post("/accounts/signup/", {"username": "petar", "password1": "a-long-pass-9876",
                                               "password2": "a-long-pass-9876"}, HTTP_ACCEPT_LANGUAGE="bg")
    assert signed.status_code == 302
    assert Player.objects.get(user__username="petar").language == "bg"
    assert '<html lang="bg">' in _page(client, "/", HTTP_ACCEPT_LANGUAGE="en")


def test_sign_up_and_log_in_forms_and_their_validation_read_in_the_language():
    client = Client()
    page = _page(client, "/accounts/signup/", HTTP_ACCEPT_LANGUAGE="ru")
    assert "Создать учётную запись" in page and "Регистрация" in page
    refused = client.post("/accounts/signup/", {"username": "x", "password1": "short", "password2": "other"},
                          HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Create my account" not in refused
    assert "пароль" in refused.lower()  # Django's own validation messages, in Russian
    login = _page(Client(), "/accounts/login/", HTTP_ACCEPT_LANGUAGE="bg")
    assert "Потребителско име" in login and "Парола" in login


@pytest.mark.parametrize("language,words", [("ru", ["Ваш ход.", "Взять", "туз", "треф"]),
                                            ("bg", ["Ваш ред е.", "Изтегли", "асо", "спатия"])])
def test_the_javascript_catalogue_carries_the_tables_words_under_the_policy(language, words):
    client = Client()
    client.cookies["language"] = language
    response = client.get(f"/jsi18n/?v={language}")
    assert response.status_code == 200 and "javascript" in response["Content-Type"]
    body = response.content.decode()
    for word in words:  # the catalogue is JSON with \u escapes
        assert json.dumps(word)[1:-1] in body or word in body
    assert "max-age=86400" in response["Cache-Control"]
    page = client.get("/")
    assert "script-src 'self'" in page["Content-Security-Policy"]  # the catalogue is a file of ours, not inline


def test_the_api_keeps_its_codes_and_field_names_in_english(house_bots):
    client = Client()
    missing = client.get("/api/matches/999999/", HTTP_ACCEPT_LANGUAGE="ru")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    listing = client.get("/api/matches/", HTTP_ACCEPT_LANGUAGE="bg")
    assert listing.status_code == 200 and "results" in listing.json()


@pytest.mark.parametrize("count,ru,bg", [(1, "игрок", "играч"), (2, "игрока", "играчи"), (5, "игроков", "играчи"),
                                         (11, "игроков", "играчи"), (21, "игрок", "играчи"),
                                         (22, "игрока", "играчи")])
def test_plural_forms_russian_three_bulgarian_two(count, ru, bg):
    with translation.override("ru"):
        assert translation.ngettext("player", "players", count) == ru
    with translation.override("bg"):
        assert translation.ngettext("player", "players", count) == bg
    with translation.override("en"):
        assert translation.ngettext("player", "players", count) == ("player" if count == 1 else "players")


def test_the_switcher_names_each_language_in_itself():
    page = _page(Client(), HTTP_ACCEPT_LANGUAGE="ru")
    for code, name in (("en", "English"), ("ru", "Русский"), ("bg", "Български")):
        assert f'<option value="{code}" lang="{code}"' in page and f">{name}</option>" in page


@pytest.mark.parametrize("count,ru,bg", [(1, "1 карту", "1 карта"), (2, "2 карты", "2 карти"), (5, "5 карт", "5 карти"),
                                         (11, "11 карт", "11 карти"), (21, "21 карту", "21 карти"),
                                         (22, "22 карты", "22 карти")])
def test_plural_forms_of_cards_and_matches(count, ru, bg):
    with translation.override("ru"):
        assert translation.ngettext("%(n)s card", "%(n)s cards", count) % {"n": count} == ru
        assert translation.ngettext("%(counter)s match", "%(counter)s matches", count) % {"counter": count} == (
            f"{count} " + ("партия" if count % 10 == 1 and count % 100 != 11 else
                           "партии" if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14 else "партий"))
    with translation.override("bg"):
        assert translation.ngettext("%(n)s card", "%(n)s cards", count) % {"n": count} == bg
