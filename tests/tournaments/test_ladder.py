"""Ladder scheduling and ratings."""

from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from games.models import Match
from games.services import match_advance, player_house_create
from games.hooks import match_finished
from tournaments.models import LadderEntry, RatingChange
from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches


def _finish_all(matches):
    for m in matches:
        assert match_advance(match_id=m.pk) == "finished"


@pytest.mark.django_db
def test_it_caps_running_matches_per_player_and_per_ladder(ladder):
    first = ladder_schedule_matches(ladder=ladder)
    assert len(first) == 2  # 4 players, one running match each
    seated = Counter(s.player_id for m in first for s in m.seats.all())
    assert set(seated.values()) == {1}
    assert ladder_schedule_matches(ladder=ladder) == []  # everybody is busy
    ladder.max_running_matches = 1
    ladder.save()
    _finish_all(first)
    assert len(ladder_schedule_matches(ladder=ladder)) == 1


@pytest.mark.django_db
def test_it_spreads_opponents_over_rounds(ladder):
    met = Counter()
    for _ in range(3):
        matches = ladder_schedule_matches(ladder=ladder)
        _finish_all(matches)
        for m in matches:
            a, b = sorted(s.player_id for s in m.seats.all())
            met[(a, b)] += 1
    assert len(met) == 6 and set(met.values()) == {1}  # three rounds of four players: everybody met everybody


@pytest.mark.django_db
def test_a_finished_ladder_match_updates_ratings_exactly_once(ladder):
    (match, *_rest) = ladder_schedule_matches(ladder=ladder, limit=1)
    _finish_all([match])
    match.refresh_from_db()
    changes = {c.entry.player_id: c for c in RatingChange.objects.filter(match=match).select_related("entry")}
    assert len(changes) == 2
    winner = match.seats.get(place=1).player_id
    loser = match.seats.exclude(player_id=winner).get().player_id
    assert changes[winner].mu_after > changes[winner].mu_before
    assert changes[loser].mu_after < changes[loser].mu_before
    for change in changes.values():
        assert change.sigma_after < change.sigma_before
        assert change.ordinal_after == pytest.approx(change.mu_after - 3 * change.sigma_after)
    match_finished.send(sender=Match, match=match)  # a repeated signal must not rate twice
    assert RatingChange.objects.filter(match=match).count() == 2
    entries = {e.player_id: e for e in LadderEntry.objects.filter(ladder=ladder)}
    assert entries[winner].matches_played == 1 and entries[winner].wins == 1
    assert entries[loser].wins == 0
    assert entries[winner].ordinal == pytest.approx(changes[winner].ordinal_after)


@pytest.mark.django_db
def test_ladder_create_rejects_bad_settings():
    with pytest.raises(ValueError, match="unknown preset"):
        ladder_create(name="x", slug="x", preset="poker")
    with pytest.raises(ValueError, match="seats 2 to 2"):
        ladder_create(name="x", slug="x", preset="hollywood", seats_per_match=3)
    with pytest.raises(ValueError, match="target"):
        ladder_create(name="x", slug="x", target=0)


@pytest.mark.django_db
def test_a_ladder_with_matches_keeps_its_rules(ladder):
    assert ladder_create(name="Renamed", slug="test", preset="pagat", seats_per_match=2).name == "Renamed"
    ladder_schedule_matches(ladder=ladder, limit=1)
    with pytest.raises(ValueError, match="cannot change"):
        ladder_create(name="x", slug="test", preset="crazy-eights", seats_per_match=3)
    assert ladder_create(name="Same rules", slug="test", max_running_matches=2).max_running_matches == 2


@pytest.mark.django_db
def test_ladder_run_in_process_first_finishes_matches_an_interrupted_run_left(ladder, settings, capsys):
    settings.TASKS = "eager"
    (left,) = ladder_schedule_matches(ladder=ladder, limit=1)
    match_advance(match_id=left.pk, ply_budget=5)  # then the process was stopped
    call_command("ladder_run", "--ladder", "test", "--matches", "1")
    left.refresh_from_db()
    assert left.status == Match.Status.FINISHED
    assert f"resumed and finished match #{left.pk}" in capsys.readouterr().out


@pytest.mark.django_db
def test_ladder_run_unless_played_plays_the_demo_only_on_a_new_database(ladder, settings, capsys):
    """`make run` on an existing database serves the site at once: the demo matches are played only the first time."""
    settings.TASKS = "in_process"
    call_command("ladder_run", "--ladder", "test", "--matches", "1", "--unless-played")
    first = Match.objects.filter(status=Match.Status.FINISHED).count()
    assert first >= 1
    call_command("ladder_run", "--ladder", "test", "--matches", "1", "--unless-played")
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == first  # nothing played the second time
    assert "were played before: no demo matches now" in capsys.readouterr().out


@pytest.mark.django_db
def test_the_commands_reject_bad_arguments_with_a_clear_message():
    with pytest.raises(CommandError, match="no active ladder"):
        call_command("ladder_run", "--matches", "1")
    with pytest.raises(CommandError, match="unknown preset"):
        call_command("demo_setup", "--preset", "poker")
    with pytest.raises(CommandError, match="--target"):
        call_command("demo_setup", "--target", "0")
    call_command("demo_setup")
    with pytest.raises(CommandError, match="no active ladder 'nope'"):
        call_command("ladder_run", "--ladder", "nope")
    with pytest.raises(CommandError, match="--matches"):
        call_command("ladder_run", "--matches", "-1")
    with pytest.raises(CommandError, match="no ladder 'nope'"):
        call_command("leaderboard", "--ladder", "nope")
    with pytest.raises(ValueError, match="unknown strategy"):
        player_house_create(name="x", strategy="psychic")


@pytest.mark.django_db
def test_the_demo_commands_play_matches_and_print_the_leaderboard(capsys, settings):
    settings.TASKS = "eager"
    call_command("demo_setup", "--max-running", "2")
    call_command("ladder_run", "--matches", "2")
    call_command("leaderboard")
    out = capsys.readouterr().out
    assert "2 matches finished" in out and "Professor" in out and "rank" in out
    assert Match.objects.filter(status="finished").count() >= 2


@pytest.mark.django_db
def test_people_on_a_ladder_are_never_scheduled_by_it(ladder):
    from django.contrib.auth import get_user_model

    from games.services import player_for_user

    person = player_for_user(user=get_user_model().objects.create_user("pat", password="pw-pat-12345"))
    ladder_entry_create(ladder=ladder, player=person)
    for _ in range(3):
        matches = ladder_schedule_matches(ladder=ladder)
        assert all(s.player_id != person.pk for m in matches for s in m.seats.all())
        _finish_all(matches)


@pytest.mark.django_db
def test_the_demo_roster_seats_the_tactician_with_a_description():
    from games.models import Player

    call_command("demo_setup")
    tactician = Player.objects.get(strategy="tactician")
    assert tactician.kind == Player.Kind.HOUSE and tactician.name == "Old Hand"
    assert "eights" in tactician.description and "last card" in tactician.description
    assert tactician.ladder_entries.filter(ladder__slug="demo").exists()


@pytest.mark.django_db
def test_the_scheduler_rotates_seat_zero_fairly_over_rounds(house_bots):
    """Seat 0 leads the first deal and the last seat deals it: over rounds each entry sits in each seat about as
    often (within 1.5 of its matches / seats), and an entry's recent matches, not its rating, decide who plays."""
    from games.models import Seat

    ladder = ladder_create(name="Short", slug="short", seats_per_match=2, target=10)
    for bot in house_bots:
        ladder_entry_create(ladder=ladder, player=bot)
    for _ in range(8):
        _finish_all(ladder_schedule_matches(ladder=ladder))
    played = Counter(Seat.objects.filter(match__ladder_match__ladder=ladder).values_list("player_id", flat=True))
    first = Counter(Seat.objects.filter(match__ladder_match__ladder=ladder, index=0).values_list("player_id", flat=True))
    assert set(played.values()) == {8}
    for player_id, count in played.items():
        assert abs(first[player_id] - count / 2) <= 1.5, (first, played)


@pytest.mark.django_db
def test_the_scheduler_seats_no_idle_entry_behind_busier_ones(house_bots):
    """Five entries on two seats, one match at a time: nobody waits while another plays twice in a row (an
    entry's recent matches, running ones included, decide who plays next)."""
    lad = ladder_create(name="Five", slug="five", seats_per_match=2, max_running_matches=1, target=10)
    for bot in [*house_bots, player_house_create(name="Fifth", strategy="random")]:
        ladder_entry_create(ladder=lad, player=bot)
    seen = []
    for _ in range(5):
        (match,) = ladder_schedule_matches(ladder=lad)
        seen.append({s.player.name for s in match.seats.all()})
        _finish_all([match])
    everyone = set().union(*seen[:3])
    assert len(everyone) == 5, seen
