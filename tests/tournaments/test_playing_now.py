"""Playing now (issue 13): the home page and each ladder list the matches being played, strongest first, each linked to
its watch page; the featured match (``/watch/``, like lichess TV) is the strongest of them. A match waiting for its
duplicate predecessor is not being played and is never listed. Pages pin their query counts."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from eights_engine import Ruleset
from games.models import Match
from games.services import match_create, player_house_create
from tournaments.models import LadderEntry, LadderMatch
from tournaments.selectors import featured_match, matches_playing_now
from tournaments.services import ladder_create, ladder_entry_create


@pytest.fixture(autouse=True)
def _read_now(settings):
    """Every read here sees the matches as they are (the cache is tested on its own below)."""
    settings.PLAYING_NOW_CACHE_SECONDS = 0


def _rate(ladder, name, ordinal):
    LadderEntry.objects.filter(ladder=ladder, player__name=name).update(ordinal=ordinal)


def _ladder_match(ladder, players):
    match = match_create(players=players, ruleset=Ruleset.preset(ladder.preset), preset=ladder.preset)
    LadderMatch.objects.create(ladder=ladder, match=match)
    return match


@pytest.fixture
def rated(ladder, house_bots):
    """The test ladder with ratings Rando 1 < Eager 2 < Greedy 3 < Professor 10."""
    for name, ordinal in (("Rando", 1.0), ("Eager", 2.0), ("Greedy", 3.0), ("Professor", 10.0)):
        _rate(ladder, name, ordinal)
    return ladder


@pytest.mark.django_db
def test_running_matches_are_listed_strongest_first_by_the_summed_ratings_of_their_seats(rated, house_bots):
    rando, eager, greedy, professor = house_bots
    weak = _ladder_match(rated, [rando, eager])  # 1 + 2
    strong = _ladder_match(rated, [greedy, professor])  # 3 + 10
    middle = _ladder_match(rated, [rando, professor])  # 1 + 10
    other = ladder_create(name="Other", slug="other")
    ladder_entry_create(ladder=other, player=rando)
    LadderEntry.objects.filter(ladder=other, player=rando).update(ordinal=50.0)
    elsewhere = _ladder_match(other, [rando, professor])  # 50 (its own ladder) + 10 (best elsewhere: Professor has no entry)
    casual = match_create(players=[eager, greedy], ruleset=Ruleset.preset("pagat"))  # no ladder: their best ordinals, 2 + 3
    finished = _ladder_match(rated, [greedy, professor])
    Match.objects.filter(pk=finished.pk).update(status=Match.Status.FINISHED)

    listed = matches_playing_now()
    assert [m.pk for m in listed] == [elsewhere.pk, strong.pk, middle.pk, casual.pk, weak.pk]
    assert [round(m.strength, 6) for m in listed] == [60.0, 13.0, 11.0, 5.0, 3.0]
    assert [s.player.name for s in listed[1].seats.all()] == ["Greedy", "Professor"]
    assert [m.pk for m in matches_playing_now(ladder=rated)] == [strong.pk, middle.pk, weak.pk]
    assert [m.pk for m in matches_playing_now(limit=2)] == [elsewhere.pk, strong.pk]
    assert featured_match().pk == elsewhere.pk
    Match.objects.filter(pk=elsewhere.pk).update(status=Match.Status.ABORTED)
    assert featured_match().pk == strong.pk  # the featured match moves on when it ends


@pytest.mark.django_db
def test_a_duplicate_sets_matches_and_a_waiting_match_are_not_listed(rated, house_bots):
    """A duplicate set's plies would tell the cards of its other matches: watched only as replays once the set is
    over (games.live.check_watchable). A match waiting for its predecessor is not being played."""
    rando, eager, greedy, professor = house_bots
    plain = _ladder_match(rated, [rando, greedy])
    first = _ladder_match(rated, [rando, eager])
    mirror = match_create(players=[eager, rando], ruleset=Ruleset.preset("pagat"), reveal_group="set-1", after=first)
    LadderMatch.objects.create(ladder=rated, match=mirror)
    Match.objects.filter(pk=first.pk).update(reveal_group="set-1")
    assert [m.pk for m in matches_playing_now()] == [plain.pk]
    Match.objects.filter(pk=first.pk).update(status=Match.Status.FINISHED)
    assert [m.pk for m in matches_playing_now()] == [plain.pk]
    waiting = match_create(players=[greedy, professor], ruleset=Ruleset.preset("pagat"), after=plain)
    assert waiting.pk not in [m.pk for m in matches_playing_now()]
    Match.objects.filter(pk=plain.pk).update(status=Match.Status.FINISHED)  # its turn now: it is being played
    assert [m.pk for m in matches_playing_now()] == [waiting.pk]


@pytest.mark.django_db
def test_nothing_playing_gives_no_featured_match(db):
    assert featured_match() is None
    assert matches_playing_now() == []


def _queries(client, url) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url)
    assert page.status_code == 200
    return len(queries), page.content.decode()


@pytest.mark.django_db
def test_the_home_page_and_the_ladder_page_list_playing_now_with_watch_links_in_bounded_queries(client, rated,
                                                                                                 house_bots):
    rando, eager, greedy, professor = house_bots
    first = _ladder_match(rated, [greedy, professor])
    home_one, body = _queries(client, reverse("home"))
    assert reverse("match-watch", args=[first.pk]) in body
    assert reverse("watch-featured") in body
    ladder_one, body = _queries(client, reverse("ladder-detail", args=[rated.slug]))
    assert reverse("match-watch", args=[first.pk]) in body
    more = [_ladder_match(rated, pair) for pair in ([rando, eager], [rando, greedy], [eager, professor])]
    more.append(match_create(players=[player_house_create(name="Extra", strategy="random"), rando],
                             ruleset=Ruleset.preset("pagat")))
    home_five, body = _queries(client, reverse("home"))
    assert home_five == home_one, "the home page's queries grow with the running matches (N+1)"
    section = re.search(r'id="playing-now".*?</section>', body, flags=re.S).group(0)
    for match in [first, *more]:
        assert reverse("match-watch", args=[match.pk]) in section
    assert section.index(f"/matches/{first.pk}/watch/") < section.index(f"/matches/{more[0].pk}/watch/")
    ladder_five, body = _queries(client, reverse("ladder-detail", args=[rated.slug]))
    assert ladder_five == ladder_one
    section = re.search(r'id="playing-now".*?</section>', body, flags=re.S).group(0)
    assert f"/matches/{more[3].pk}/watch/" not in section  # a casual match is not this ladder's


@pytest.mark.django_db
def test_the_featured_match_page_shows_the_strongest_match_and_says_when_none_plays(client, rated, house_bots):
    page = client.get(reverse("watch-featured"))
    assert page.status_code == 200 and "No match is being played right now" in page.content.decode()
    rando, eager, greedy, professor = house_bots
    _ladder_match(rated, [rando, eager])
    strong = _ladder_match(rated, [greedy, professor])
    page = client.get(reverse("watch-featured"))
    body = page.content.decode()
    assert page.status_code == 200
    assert f'data-match="{strong.pk}"' in body and 'data-featured="yes"' in body
    assert not re.search(r"\sstyle=", body) and not re.search(r'<script(?![^>]*\b(?:src=|type="application/json"))', body)


@pytest.mark.django_db
def test_the_list_is_kept_a_few_seconds_and_the_featured_match_is_always_one_still_running(settings, rated,
                                                                                           house_bots,
                                                                                           django_assert_num_queries):
    settings.PLAYING_NOW_CACHE_SECONDS = 30
    rando, eager, greedy, professor = house_bots
    strong = _ladder_match(rated, [greedy, professor])
    weak = _ladder_match(rated, [rando, eager])
    assert [m.pk for m in matches_playing_now()] == [strong.pk, weak.pk]
    later = _ladder_match(rated, [rando, professor])
    with django_assert_num_queries(0):  # from the cache: the list of a moment ago
        assert [m.pk for m in matches_playing_now()] == [strong.pk, weak.pk]
    assert [m.pk for m in matches_playing_now(fresh=True)] == [strong.pk, later.pk, weak.pk]
    assert featured_match().pk == strong.pk
    Match.objects.filter(pk=strong.pk).update(status=Match.Status.FINISHED)
    assert featured_match().pk == later.pk  # the cached list's first still running
    Match.objects.filter(pk__in=[later.pk, weak.pk]).update(status=Match.Status.FINISHED)
    assert featured_match() is None  # every cached one ended: read now


@pytest.mark.django_db
def test_the_ladder_cards_count_players_finished_and_running_matches(rated, house_bots):
    from tournaments.selectors import ladder_list

    rando, eager, greedy, professor = house_bots
    for pair in ([rando, eager], [greedy, professor], [rando, greedy]):
        _ladder_match(rated, pair)
    done = _ladder_match(rated, [eager, professor])
    Match.objects.filter(pk=done.pk).update(status=Match.Status.FINISHED)
    LadderEntry.objects.filter(ladder=rated, player=rando).update(is_active=False)
    empty = ladder_create(name="Empty", slug="empty")
    counts = {lad.slug: (lad.entry_count, lad.finished_count, lad.running_count) for lad in ladder_list()}
    assert counts == {rated.slug: (3, 1, 3), empty.slug: (0, 0, 0)}


@pytest.mark.django_db
def test_nothing_playing_is_not_kept_so_the_first_match_shows_at_once(settings, rated, house_bots):
    settings.PLAYING_NOW_CACHE_SECONDS = 30
    assert matches_playing_now() == []  # a fresh demo: nothing started yet
    first = _ladder_match(rated, house_bots[:2])
    assert [m.pk for m in matches_playing_now()] == [first.pk]  # not the empty list of a moment ago
