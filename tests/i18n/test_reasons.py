"""Why a card does not fit, in the reader's language (issue 24, 1): every reason the engine gives for a refused move
in random play of every preset is said in Russian and Bulgarian with no English left (games/matches/reasons.py),
English stays exactly the engine's words, and the API's refusal carries it under its English code."""

from __future__ import annotations

import random
import re

import pytest
from django.utils import translation

from eights_engine import IllegalAction, MatchState, Ruleset
from eights_engine.actions import ACTIONS
from eights_engine.rules import PRESETS
from games.matches.reasons import card_words, reason_words

#: English that stays in a translation: the API's JSON words and a ruleset's field name, quoted as code
_CODE = re.compile(r'\{[^}]*\}|last_card_penalty')


def _reasons() -> dict[str, str]:
    """One engine reason per shape (cards and numbers aside), from random play of every preset at 2 and 3 seats."""
    found: dict[str, str] = {}
    for name in sorted(PRESETS):
        for seats, seed in ((2, 7), (3, 7), (2, 8), (3, 8)):
            try:
                state = MatchState.start(Ruleset.preset(name), seats, seed)
            except ValueError:  # a preset for two only
                continue
            rng = random.Random(seed)
            for _ in range(150):
                if state.is_over:
                    break
                deal, legal = state.deal, set(state.deal.legal_ids())
                for a in range(len(ACTIONS)):
                    if a in legal:
                        continue
                    try:
                        deal.apply_id(a)
                    except IllegalAction as exc:
                        text = str(exc)
                        shape = re.sub(r"\b[A2-9TJQK][CDHS]\b|\d+|(?<=top card )\w+ of \w+", "_", text)
                        found.setdefault(shape, text)
                state.apply_id(rng.choice(sorted(legal)))
    return found


REASONS = _reasons()


def test_random_play_meets_the_common_reasons():
    shapes = " | ".join(REASONS)
    for words in ("does not fit", "cannot pass while you can play", "drawn the limit", "nothing to draw"):
        assert words in shapes


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_every_reason_reads_in_the_language_with_no_english_left(language):
    with translation.override(language):
        for shape, reason in REASONS.items():
            said = reason_words(reason)
            assert said != reason, f"not translated: {reason}"
            left = re.findall(r"[A-Za-z]{3,}", _CODE.sub(" ", said))
            assert not left, f"{reason!r} -> {said!r}: English left {left}"


def test_english_is_the_engines_own_words():
    with translation.override("en"):
        for reason in REASONS.values():
            assert reason_words(reason) == reason


@pytest.mark.parametrize("language,expected", [
    ("ru", "дама треф не подходит: нужно масть пики, достоинство 10 или восьмёрка (верхняя карта 10 пик)"),
    ("bg", "дама спатия не пасва: трябва боя пика, ранг 10 или осмица (горна карта 10 пика)"),
])
def test_the_card_that_does_not_fit_says_what_would(language, expected):
    reason = "the QC does not fit: needs a spade, a 10 or an eight (top card 10 of spades)"
    with translation.override(language):
        assert reason_words(reason) == expected


@pytest.mark.parametrize("count,ru,bg", [
    (1, "нужно взять 1 штрафную карту или ответить двойкой", "трябва да изтеглите 1 наказателна карта"),
    (2, "нужно взять 2 штрафные карты или ответить двойкой", "трябва да изтеглите 2 наказателни карти"),
    (5, "нужно взять 5 штрафных карт или ответить двойкой", "трябва да изтеглите 5 наказателни карти"),
])
def test_penalty_draws_count_in_each_languages_plural(count, ru, bg):
    reason = f"seat 1 must draw the {count} penalty cards or answer with a two"
    with translation.override("ru"):
        assert reason_words(reason) == ru
    with translation.override("bg"):
        assert reason_words(reason).startswith(bg)


def test_card_names_in_words():
    with translation.override("ru"):
        assert [card_words(c) for c in ("AS", "QH", "8D", "TC")] == ["туз пик", "дама червей", "восьмёрка бубен",
                                                                    "10 треф"]
    with translation.override("bg"):
        assert [card_words(c) for c in ("AS", "KH", "8D", "JC")] == ["асо пика", "поп купа", "осмица каро",
                                                                    "вале спатия"]


@pytest.mark.django_db
def test_the_apis_refusal_keeps_its_code_and_says_why_in_the_language(house_bots):
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from games.services import match_create, player_for_user

    user = get_user_model().objects.create_user("vera", password="a-long-pass-9876")
    person = player_for_user(user=user)
    client = APIClient()
    client.force_authenticate(user)
    for _ in range(30):  # a match where the person leads and holds a card that does not fit (each deals afresh)
        match = match_create(players=[person, house_bots[0]], ruleset=Ruleset.preset("web-table"))
        view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
        unplayable = [c for c in view["view"]["hand"] if not any(a.get("card") == c for a in view["legal_actions"])]
        if view["your_turn"] and unplayable:
            break
        from games.services import match_abort

        match_abort(match_id=match.pk, reason="the test deals again")
    else:
        raise AssertionError("30 deals without a card that does not fit on the person's lead")
    for language, words in (("ru", "не подходит"), ("bg", "не пасва"), ("en", "does not fit")):
        refused = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                              {"ply": view["ply"], "action": {"type": "play", "card": unplayable[0]}},
                              format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert refused.status_code == 400
        assert refused.json()["error"] == "illegal_action" and words in refused.json()["detail"]
