"""Duplicate ladder matches: the scheduler makes a set of rotations from one match seed, checked from the stored
deals; the set is rated once, from its combined result, when all of it is finished; its page shows it side by side."""

import pytest
from django.core.management import call_command
from django.test import Client

from eights_engine import Deal as EngineDeal
from eights_engine import Ruleset
from games.models import Deal, Match
from games.services import match_abort, match_advance, player_house_create
from games.hooks import match_finished
from tournaments.duplicate import SetMatch, combined_places
from tournaments.models import DuplicateSet, LadderEntry, LadderMatch, RatingChange
from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches


def _duplicate_ladder(players, *, slug="dup", preset="pagat", seats=2, **kwargs):
    ladder = ladder_create(name="Duplicate", slug=slug, preset=preset, seats_per_match=seats, duplicate=True,
                           max_running_matches=8, **kwargs)
    for p in players:
        ladder_entry_create(ladder=ladder, player=p)
    return ladder


def _starting_hands(match: Match, number: int) -> tuple[int, int, list[list[str]]]:
    """Deal ``number`` of ``match`` as stored (key, dealer) and each seat's starting hand dealt from them."""
    row = Deal.objects.get(match=match, number=number)
    deal = EngineDeal.start(Ruleset.from_dict(match.ruleset), match.seat_count, bytes.fromhex(row.key),
                            dealer=row.dealer)
    return row.key, row.dealer, [sorted(deal.hand(s)) for s in range(match.seat_count)]


def _check_rotated_and_same_cards(matches: list[Match]) -> int:
    """The set's matches seat the rotations and, deal by deal where all played it, deal seat s the same cards."""
    seatings = [[s.player_id for s in m.seats.order_by("index")] for m in matches]
    n = len(seatings[0])
    for r, seating in enumerate(seatings):
        assert seating == [seatings[0][(s - r) % n] for s in range(n)]
    assert len({m.secret for m in matches}) == 1 and len(matches[0].secret) == 64  # one fresh secret a set
    common = min(m.deals.exclude(points=None).count() for m in matches)
    assert common >= 1
    for number in range(1, common + 1):
        stored = [_starting_hands(m, number) for m in matches]
        assert len({(seed, dealer) for seed, dealer, _ in stored}) == 1, f"deal {number}: seeds or dealers differ"
        assert all(hands == stored[0][2] for _, _, hands in stored), f"deal {number}: seat hands differ"
    return common


@pytest.mark.django_db
def test_a_duplicate_pairing_is_a_mirror_from_one_seed_rated_once_when_both_are_finished(house_bots):
    ladder = _duplicate_ladder(house_bots[2:])  # Greedy and Professor
    matches = ladder_schedule_matches(ladder=ladder)
    assert len(matches) == 2
    dup = DuplicateSet.objects.get()
    assert [sm.match_id for sm in dup.set_matches.order_by("rotation")] == [m.pk for m in matches]
    assert {m.reveal_group for m in matches} == {dup.reveal_key}
    assert ladder_schedule_matches(ladder=ladder) == []  # both players are busy until the set is over

    # the mirror waits for the first rotation: nothing of it is played meanwhile
    assert matches[1].after_id == matches[0].pk and matches[0].after_id is None
    assert match_advance(match_id=matches[1].pk) == "waiting"
    assert matches[1].deals.get().moves.count() == 0

    assert match_advance(match_id=matches[0].pk) == "finished"
    assert RatingChange.objects.count() == 0  # the mirror still runs: nothing is rated yet
    assert not LadderMatch.objects.exclude(rated_at=None).exists()
    assert set(LadderEntry.objects.values_list("matches_played", flat=True)) == {0}

    assert match_advance(match_id=matches[1].pk) == "finished"
    common = _check_rotated_and_same_cards(matches)
    assert common >= 1
    changes = list(RatingChange.objects.select_related("entry"))
    assert len(changes) == 2 and {c.match_id for c in changes} == {matches[0].pk}  # once, against the first match
    assert set(LadderEntry.objects.values_list("matches_played", flat=True)) == {1}
    assert LadderMatch.objects.filter(rated_at=None).count() == 0
    dup.refresh_from_db()
    assert dup.rated_at is not None

    # the places rated are the set's combined result (swings over the common deals), not either match's places
    sets = [SetMatch.of([s.player_id for s in m.seats.order_by("index")],
                        [d.points for d in m.deals.exclude(points=None).order_by("number")]) for m in matches]
    expected = combined_places(sets, lower_is_better=True)
    assert {c.entry.player_id: c.place for c in changes} == expected
    for change in changes:
        if expected[change.entry.player_id] == 1 and list(expected.values()).count(1) == 1:
            assert change.mu_after > change.mu_before

    for m in matches:  # a repeated signal rates nothing again
        match_finished.send(sender=Match, match=m)
    assert RatingChange.objects.count() == 2

    page = Client().get(f"/ladders/dup/duplicates/{dup.pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Combined result" in body and "Greedy" in body and "Professor" in body
    assert Deal.objects.get(match=matches[0], number=1).code in body  # codes once the whole set is over
    assert "The set side by side" in Client().get(f"/matches/{matches[1].pk}/").content.decode()
    assert f"set #{dup.pk}" in Client().get("/ladders/dup/").content.decode()


@pytest.mark.django_db
def test_a_duplicate_ladder_played_through_the_ladder_loop(house_bots, settings):
    settings.TASKS = "eager"
    ladder = _duplicate_ladder(house_bots)
    call_command("ladder_run", "--ladder", "dup", "--matches", "4")
    sets = list(DuplicateSet.objects.filter(ladder=ladder).order_by("id"))
    assert len(sets) >= 2
    rated = 0
    for dup in sets:
        matches = [sm.match for sm in dup.set_matches.order_by("rotation")]
        assert len(matches) == 2
        if all(m.status == Match.Status.FINISHED for m in matches):
            _check_rotated_and_same_cards(matches)
            assert dup.rated_at is not None
            assert RatingChange.objects.filter(match__in=matches).count() == 2
            rated += 1
        else:
            assert dup.rated_at is None and not RatingChange.objects.filter(match__in=matches).exists()
    assert rated >= 1
    assert sum(LadderEntry.objects.values_list("matches_played", flat=True)) == 2 * rated


@pytest.mark.django_db
def test_three_seats_play_the_three_rotations(house_bots):
    ladder = _duplicate_ladder(house_bots[1:], slug="dup3", preset="web-table", seats=3)
    matches = ladder_schedule_matches(ladder=ladder)
    assert len(matches) == 3
    for m in matches:
        assert match_advance(match_id=m.pk) == "finished"
    _check_rotated_and_same_cards(matches)
    assert RatingChange.objects.count() == 3
    assert set(RatingChange.objects.values_list("match_id", flat=True)) == {matches[0].pk}


@pytest.mark.django_db
def test_a_set_with_an_aborted_match_is_not_rated(house_bots):
    ladder = _duplicate_ladder(house_bots[2:])
    first, second = ladder_schedule_matches(ladder=ladder)
    match_abort(match_id=first.pk, reason="test")
    assert match_advance(match_id=second.pk) == "finished"  # an aborted predecessor ends the wait too
    dup = DuplicateSet.objects.get()
    assert dup.rated_at is None and "aborted" in dup.void_reason
    assert RatingChange.objects.count() == 0


@pytest.mark.django_db
def test_play_now_on_a_duplicate_ladder_starts_one_ordinary_match(house_bots):
    from django.contrib.auth import get_user_model

    from tournaments.services import ladder_play_now

    ladder = _duplicate_ladder(house_bots)
    person = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    match, seat = ladder_play_now(ladder=ladder, user=person, match_with="bots")
    assert seat == 0 and match.reveal_group == "" and not DuplicateSet.objects.exists()


@pytest.mark.django_db
def test_a_ladder_keeps_its_duplicate_setting_once_it_has_matches(house_bots):
    ladder = _duplicate_ladder(house_bots[2:])
    ladder_schedule_matches(ladder=ladder)
    with pytest.raises(ValueError, match="rules cannot change"):
        ladder_create(name="Duplicate", slug="dup", preset="pagat", seats_per_match=2, max_running_matches=8)
    player_house_create(name="x", strategy="random")


@pytest.mark.django_db
def test_the_demo_has_a_running_duplicate_ladder(settings):
    settings.TASKS = "eager"
    call_command("demo_setup")
    call_command("demo_setup")  # idempotent
    from tournaments.models import Ladder

    ladder = Ladder.objects.get(slug="duplicate")
    assert ladder.duplicate and ladder.is_active and ladder.entries.count() == 4
    call_command("ladder_run", "--ladder", "duplicate", "--matches", "2")
    assert DuplicateSet.objects.filter(ladder=ladder, rated_at__isnull=False).exists()


@pytest.mark.django_db(transaction=True)
def test_the_two_matches_of_a_set_finishing_at_once_rate_it_exactly_once():
    """Each finishing transaction locks the set's row and only then reads the other match's status: the first to get
    the lock sees the other still running (its end is not committed); the second waits for the first to commit and
    sees both finished. So the set is rated once, whichever commits first."""
    import threading
    import time

    from django.db import connection, transaction

    from tournaments import services

    house = [player_house_create(name=n, strategy=s) for n, s in (("Greedy", "greedy"), ("Professor", "heuristic"))]
    ladder = _duplicate_ladder(house)
    first, second = ladder_schedule_matches(ladder=ladder)
    match_finished.disconnect(dispatch_uid="tournaments-ratings")
    try:
        for m in (first, second):
            assert match_advance(match_id=m.pk) == "finished"
    finally:
        match_finished.connect(services.on_match_finished, dispatch_uid="tournaments-ratings")
    Match.objects.filter(pk__in=[first.pk, second.pk]).update(status=Match.Status.RUNNING)  # both on their last ply

    hooked, waited = threading.Event(), {}

    def finish(match: Match, hold: bool) -> None:
        try:
            with transaction.atomic():
                Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
                match.refresh_from_db()
                began = time.monotonic()
                match_finished.send(sender=Match, match=match)
                waited[match.pk] = time.monotonic() - began
                if hold:
                    hooked.set()
                    time.sleep(0.5)  # the other transaction is now waiting for the set's row
        finally:
            connection.close()

    one = threading.Thread(target=finish, args=(first, True))
    one.start()
    assert hooked.wait(10)
    two = threading.Thread(target=finish, args=(second, False))
    two.start()
    one.join(10)
    two.join(10)
    assert waited[second.pk] >= 0.3  # it waited for the first transaction's lock on the set
    assert RatingChange.objects.count() == 2
    assert DuplicateSet.objects.get().rated_at is not None
    assert set(LadderEntry.objects.values_list("matches_played", flat=True)) == {1}
