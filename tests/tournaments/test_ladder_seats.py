"""A ladder's seats per match must be one its ruleset allows (breaker F6): the admin refuses another, and the
rules page of a ladder stored with one anyway answers a plain 404, not 500."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from eights_engine import Ruleset
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


def test_a_partnership_ladder_must_seat_four():
    """``partnership`` (A, C) is seats 0+2 against 1+3: a ladder of other seats is refused by the service and the
    admin alike, saying what would be right."""
    from tournaments.services import ladder_create

    with pytest.raises(ValueError, match="exactly 4 seats"):
        ladder_create(name="Pairs", slug="pairs", preset="eights-classic", seats_per_match=2,
                      overrides={"partnership": True})
    classic = Ruleset.preset("eights-classic", partnership=True).to_dict()
    with pytest.raises(ValidationError) as refused:
        Ladder(**_fields(preset="eights-classic", ruleset=classic, seats_per_match=3)).full_clean()
    assert "exactly 4 seats" in " ".join(refused.value.message_dict["seats_per_match"])
    Ladder(**_fields(preset="eights-classic", ruleset=classic, seats_per_match=4)).full_clean()


def test_the_admin_refuses_caps_and_clocks_that_could_never_schedule_or_play():
    for field, value, words in [("max_concurrent_per_player", 0, "at least 1"), ("max_running_matches", 0, "1 to 1000"),
                                ("turn_timeout_ms", 10, "50 to 60000"), ("move_seconds", 0, "5 to 86400")]:
        with pytest.raises(ValidationError) as refused:
            Ladder(**_fields(seats_per_match=2, **{field: value})).full_clean()
        assert words in " ".join(refused.value.message_dict[field]), (field, refused.value.message_dict)
