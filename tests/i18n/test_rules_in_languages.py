"""The rules read in each language (issue 24, 1): the rules written from a ruleset (eights_engine.describe, with
games.matches.reasons.RulesWords) for every preset and every field's values in Russian and Bulgarian hold no
English word, and English stays exactly as before (engine/tests/test_describe.py); the rules pages too."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.utils import translation

from eights_engine import PRESETS, Ruleset
from eights_engine.describe import rules_text
from games.matches.reasons import RulesWords

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "engine" / "tests"))
from test_describe import FIELD_VALUES  # noqa: E402


def _rulesets():
    for name in sorted(PRESETS):
        yield name, Ruleset.preset(name)
        for field, (overrides, values) in FIELD_VALUES.items():
            for value in values:
                try:
                    yield f"{name} {field}={value}", Ruleset.preset(name, **{**overrides, field: value})
                except (ValueError, TypeError):
                    continue


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_the_rules_of_every_preset_and_every_field_read_with_no_english(language):
    seen = 0
    with translation.override(language):
        for label, ruleset in _rulesets():
            for seats in (None, ruleset.seats_min, ruleset.seats_max):
                text = rules_text(ruleset, seats, RulesWords())
                left = re.findall(r"[A-Za-z]{2,}", text)
                assert not left, f"{label}, {seats} seats: English left {left}"
                seen += 1
    assert seen > 1000


def test_english_rules_spell_small_numbers_and_others_use_digits():
    ruleset = Ruleset.preset("web-table")
    with translation.override("en"):
        assert "This table has two seats." in rules_text(ruleset, 2, RulesWords())
        assert rules_text(ruleset, 2, RulesWords()) == rules_text(ruleset, 2)
    with translation.override("ru"):
        assert "Мест за этим столом: 2." in rules_text(ruleset, 2, RulesWords())


@pytest.mark.django_db
@pytest.mark.parametrize("language,heading", [("ru", "Как играть"), ("bg", "Как се играе")])
def test_the_rules_pages_read_in_the_language(language, heading):
    client = Client()
    index = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f"<h1>{heading}</h1>" in index
    for name in sorted(PRESETS):
        page = client.get(f"/rules/{name}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        article = page.split('<article class="rules">', 1)[1].split('<details class="options">', 1)[0]
        text = re.sub(r"<[^>]+>", " ", article).replace(name, " ")
        left = re.findall(r"[A-Za-z]{2,}", text)
        assert not left, f"/rules/{name}/ in {language}: {left}"
    missing = client.get("/rules/nosuch/", HTTP_ACCEPT_LANGUAGE=language)
    assert missing.status_code == 404 and "nosuch" in missing.content.decode()
