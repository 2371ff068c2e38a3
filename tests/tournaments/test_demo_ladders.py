"""The demo shows every rule system playing (issue 12): beside the default ladder, web-table (B, 3 seats),
eights-classic partners (A, 4 seats), crazy-eights to 300 (C), points-game (E, 4 seats) and hollywood (A1, 2 seats),
each played by house bots through the ladder loop and open to people through Play now."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from eights_engine import Ruleset
from games.models import Match
from tournaments.models import Ladder, LadderMatch

SYSTEMS = {  # slug: (preset, seats, partnership, target)
    "web-table-3": ("web-table", 3, False, 100),
    "classic-partners": ("eights-classic", 4, True, 100),
    "crazy-eights-300": ("crazy-eights", 3, False, 300),
    "points-game-4": ("points-game", 4, False, 200),
    "hollywood": ("hollywood", 2, False, None),
}


@pytest.mark.django_db
def test_demo_setup_creates_a_ladder_for_every_rule_system_with_the_house_bots_on_it():
    call_command("demo_setup")
    call_command("demo_setup")  # idempotent
    assert Ladder.objects.filter(slug="demo", preset="pagat", seats_per_match=2).exists()
    for slug, (preset, seats, partnership, target) in SYSTEMS.items():
        ladder = Ladder.objects.get(slug=slug)
        ruleset = Ruleset.from_dict(ladder.ruleset)
        assert (ladder.preset, ladder.seats_per_match, ruleset.partnership) == (preset, seats, partnership)
        if target is not None:
            assert ruleset.target_for(seats) == target and ladder.target == target
        assert ladder.entries.filter(player__kind="house").count() >= 2 * seats - 1
        ladder.full_clean()


@pytest.mark.django_db
def test_demo_setup_with_only_makes_just_the_named_ladder():
    call_command("demo_setup", "--slug", "quick", "--target", "10", "--only")
    assert list(Ladder.objects.values_list("slug", flat=True)) == ["quick"]


@pytest.mark.django_db
def test_the_ladder_loop_plays_every_rule_systems_ladder_and_rates_it(settings, capsys):
    """The in-process ladder loop (no broker), as `make run` runs it: a match of each ladder finishes and is rated;
    the partnership ladder's partners share their side's place."""
    settings.TASKS = "eager"
    call_command("demo_setup", "--max-running", "1")
    call_command("ladder_run", "--matches", "8", "--timeout", "600")  # the first tick: one on each ladder, two on the duplicate one
    for slug in ["demo", *SYSTEMS]:
        rated = LadderMatch.objects.filter(ladder__slug=slug, rated_at__isnull=False)
        assert rated.exists(), f"no rated match on {slug}: {capsys.readouterr().out[-2000:]}"
    match = LadderMatch.objects.filter(ladder__slug="classic-partners", rated_at__isnull=False).first().match
    places = [s.place for s in match.seats.order_by("index")]
    assert places[0] == places[2] and places[1] == places[3] and sorted({places[0], places[1]}) == [1, 2]
    assert match.rating_changes.count() == 4
    capsys.readouterr()
    call_command("leaderboard")  # bin/run prints every ladder's board
    out = capsys.readouterr().out
    for slug in ["demo", *SYSTEMS]:
        assert f"({slug}): rank by rating" in out


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["demo", *SYSTEMS])
def test_a_person_can_play_now_on_every_demo_ladder(slug):
    call_command("demo_setup")
    person = get_user_model().objects.create_user("pat", password="pw-pat-12345")
    api = APIClient()
    api.force_authenticate(person)
    answer = api.post(f"/api/ladders/{slug}/play/", {"match_with": "bots"}, format="json")
    assert answer.status_code == 201, answer.content
    match = Match.objects.get(pk=answer.json()["match_id"])
    assert match.seat_count == Ladder.objects.get(slug=slug).seats_per_match
    assert [s.player.kind for s in match.seats.order_by("index")][0] == "human"
