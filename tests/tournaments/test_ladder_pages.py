"""Ladder pages: the leaderboard says how sure its order is and marks provisional entries, each entry has a rating
history page with an inline SVG chart, and each rated match page shows every seat's rating change."""

import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from games.services import match_advance
from tournaments.models import LadderEntry, RatingChange
from tournaments.services import ladder_schedule_matches


@pytest.fixture
def played(ladder):
    for _ in range(3):
        for m in ladder_schedule_matches(ladder=ladder):
            assert match_advance(match_id=m.pk) == "finished"
    return ladder


def _no_inline_style_or_script(body: str) -> None:
    assert not re.search(r"\sstyle=", body), "inline style (the CSP forbids it)"
    assert not re.search(r"<script(?![^>]*\bsrc=)", body), "inline script (the CSP forbids it)"


@pytest.mark.django_db
def test_the_leaderboard_says_how_sure_its_order_is_and_marks_provisional_entries(client, played, settings,
                                                                                   django_assert_max_num_queries):
    settings.LADDER_PROVISIONAL_MATCHES = 3
    LadderEntry.objects.filter(ladder=played, player__name="Rando").update(matches_played=1)
    with django_assert_max_num_queries(6):
        page = client.get(reverse("ladder-detail", args=[played.slug]))
    body = page.content.decode()
    assert "How sure is this order?" in body
    assert body.count("cannot yet be told apart") + body.count("ahead of") >= 2  # three established: two pairs
    assert "provisional" in body and "Provisional, listed below and not ranked until they have played 3 matches: Rando" in body
    rows = re.findall(r"<tr class=\"entry[^\"]*\">.*?</tr>", body, flags=re.S)
    assert "Rando" in rows[-1] and "provisional" in rows[-1]
    entry = LadderEntry.objects.get(ladder=played, player__name="Professor")
    assert reverse("ladder-entry", args=[played.slug, entry.pk]) in body
    _no_inline_style_or_script(body)


@pytest.mark.django_db
def test_an_entry_page_shows_its_rating_history_as_a_chart_and_a_table(client, played):
    entry = LadderEntry.objects.get(ladder=played, player__name="Professor")
    changes = list(RatingChange.objects.filter(entry=entry).order_by("created_at"))
    assert len(changes) == 3
    page = client.get(reverse("ladder-entry", args=[played.slug, entry.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    svg = re.search(r"<svg[^>]*id=\"rating-chart\"[^>]*>", body).group(0)
    assert 'role="img"' in svg and "aria-label=\"Rating of Professor over 3 matches" in svg
    assert "<figcaption" in body and "<polygon" in body and body.count("<polyline") == 2
    for change in changes:
        assert reverse("match-detail", args=[change.match_id]) in body
    assert f"{entry.mu:.2f}" in body and f"{entry.sigma:.2f}" in body
    _no_inline_style_or_script(body)
    profile = client.get(reverse("player-profile", args=["Professor"])).content.decode()
    assert reverse("ladder-entry", args=[played.slug, entry.pk]) in profile  # the player's page links the history


@pytest.mark.django_db
def test_an_entry_page_answers_404_for_an_entry_of_another_ladder_or_none(client, played, house_bots):
    from tournaments.services import ladder_create, ladder_entry_create

    other = ladder_create(name="Other", slug="other")
    stranger = ladder_entry_create(ladder=other, player=house_bots[0])
    assert client.get(reverse("ladder-entry", args=[played.slug, stranger.pk])).status_code == 404
    assert client.get(reverse("ladder-entry", args=[played.slug, 999999])).status_code == 404
    assert client.get(reverse("ladder-entry", args=["nope", stranger.pk])).status_code == 404
    page = client.get(reverse("ladder-entry", args=[other.slug, stranger.pk]))  # no matches yet: no chart, says so
    assert page.status_code == 200 and "No rated matches yet" in page.content.decode()


@pytest.mark.django_db
def test_a_rated_match_page_shows_each_seats_rating_change_with_mu_and_sigma(client, played):
    change = RatingChange.objects.select_related("entry__player").first()
    body = client.get(reverse("match-detail", args=[change.match_id])).content.decode()
    section = body[body.index('id="ladder-ratings"'):]
    assert change.entry.player.name in section
    assert f"{change.mu_before:.2f} → {change.mu_after:.2f}" in section
    assert f"{change.sigma_before:.2f} → {change.sigma_after:.2f}" in section
    assert reverse("ladder-entry", args=[played.slug, change.entry_id]) in section


@pytest.mark.django_db
def test_the_leaderboard_command_prints_how_sure_the_order_is(played, capsys, settings):
    settings.LADDER_PROVISIONAL_MATCHES = 1
    call_command("leaderboard", "--ladder", played.slug)
    out = capsys.readouterr().out
    assert "How sure is this order" in out and ("cannot yet be told apart" in out or "ahead of" in out)


@pytest.mark.django_db
def test_a_long_rating_history_is_paged_and_its_chart_bounded(client, played, settings, django_assert_max_num_queries):
    """An entry with hundreds of rated matches: the chart shows the last 200, the table 50 a page, newest first,
    and the page reads a bounded number of rows whatever the history's length."""
    from tournaments.views import CHART_MATCHES

    entry = LadderEntry.objects.get(ladder=played, player__name="Professor")
    change = RatingChange.objects.filter(entry=entry).first()
    from games.models import Match  # each change needs its own match (unique entry + match): copies of one

    template = Match.objects.get(pk=change.match_id)
    copies = []
    for n in range(247):
        template.pk = None
        template.save()
        copies.append(template.pk)
    RatingChange.objects.bulk_create([
        RatingChange(entry=entry, match_id=pk, place=1 + n % 2, mu_before=20 + n / 100, sigma_before=7,
                     mu_after=20 + (n + 1) / 100, sigma_after=7, ordinal_before=n / 100, ordinal_after=(n + 1) / 100)
        for n, pk in enumerate(copies)])
    total = RatingChange.objects.filter(entry=entry).count()
    assert total == 250
    url = reverse("ladder-entry", args=[played.slug, entry.pk])
    with django_assert_max_num_queries(12):
        body = client.get(url).content.decode()
    assert f"over {CHART_MATCHES} matches" in body and "most recent (of 250)" in body
    rows = re.findall(r"<td><a href=\"/matches/(\d+)/\">", body)
    assert len(rows) == 50 and int(rows[0]) == copies[-1]  # newest first
    assert "page 1 of 5" in body and 'href="?page=2"' in body
    last = client.get(url + "?page=5").content.decode()
    assert len(re.findall(r"<td><a href=\"/matches/(\d+)/\">", last)) == 50 and "page 5 of 5" in last
    assert "page 1 of 5" in client.get(url + "?page=zz").content.decode()  # not a number: the first page


@pytest.mark.django_db
def test_a_board_with_nobody_ranked_says_when_it_will_have_a_ranking(client, played, settings):
    settings.LADDER_PROVISIONAL_MATCHES = 10
    LadderEntry.objects.filter(ladder=played).update(matches_played=2)
    LadderEntry.objects.filter(ladder=played, player__name="Professor").update(matches_played=7)
    body = client.get(reverse("ladder-detail", args=[played.slug])).content.decode()
    assert "Nobody is ranked yet: the closest, Professor, needs 3 more matches; the ladder plays on by itself." in body


@pytest.mark.django_db
def test_the_ladders_address_leads_to_the_ladders_on_the_home_page(client, ladder):
    """Found by a newcomer's trial: /ladders/ was a 404 while every ladder lives under it."""
    answer = client.get("/ladders/")
    assert answer.status_code == 302 and answer["Location"] == "/#ladders"
    home = client.get("/").content.decode()
    assert 'id="ladders"' in home and reverse("ladder-detail", args=[ladder.slug]) in home
