"""A ladder's seats per match must be one its ruleset allows (breaker F6): the admin refuses another, and the
rules page of a ladder stored with one anyway answers a plain 404, not 500."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games.engine import Ruleset
from tournaments.admin import LadderForm
from tournaments.models import Ladder

pytestmark = pytest.mark.django_db


def _fields(**changes) -> dict:
    pagat = Ruleset.preset("pagat")
    return {"name": "Nine", "slug": "nine", "preset": "pagat", "ruleset": pagat.to_dict(), "seats_per_match": 9,
            "target": 100, "max_concurrent_per_player": 1, "max_running_matches": 4, "turn_timeout_ms": 1000,
            "move_seconds": 60, "is_active": True, **changes}


def test_full_clean_refuses_a_seat_count_outside_the_rulesets_range():
    pagat = Ruleset.preset("pagat")
    with pytest.raises(ValidationError) as refused:
        Ladder(**_fields()).full_clean()
    words = " ".join(refused.value.message_dict["seats_per_match"])
    assert f"{pagat.seats_min} to {pagat.seats_max}" in words and "not 9" in words
    Ladder(**_fields(seats_per_match=pagat.seats_max)).full_clean()  # in range: fine


def test_the_admin_form_refuses_it():
    import json

    form = LadderForm(data={**_fields(), "ruleset": json.dumps(Ruleset.preset("pagat").to_dict())})
    assert not form.is_valid() and "seats_per_match" in form.errors


def test_the_rules_page_of_a_ladder_stored_with_it_is_a_plain_404(client):
    ladder = Ladder.objects.create(**_fields())  # as a ladder saved before this check was
    page = client.get(reverse("ladder-rules", args=[ladder.slug]))
    assert page.status_code == 404
    assert b"The rules of the ladder Nine cannot be shown" in page.content and b"9" in page.content
