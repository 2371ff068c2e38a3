"""The match page (issue 11, item 2): seats, standings, a chart of the running totals deal by deal (inline SVG, no
inline style or script), the deal table, and for a finished match each seat's starting hand per deal, dealt again
from the stored seeds; a running match shows no hand, no code and no seed."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from eights_engine import MatchState, Ruleset
from games.models import Deal, Match, Seat
from games.selectors import match_record
from games.services import match_advance, match_create


def _played(players, preset="pagat", seed=7) -> Match:
    match = match_create(players=players, ruleset=Ruleset.preset(preset), preset=preset, seed=seed)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    return match


def _dealt_hands(match: Match) -> list[list[list[str]]]:
    """Each seat's hand at the start of every deal, as the engine plays the stored record through."""
    record = match_record(match=match)
    state = MatchState.start(Ruleset.from_dict(record["ruleset"]), record["seats"], record["seed"])
    hands = []
    for deal in record["deals"]:
        hands.append([state.deal.hand(s) for s in range(match.seat_count)])
        for action in deal["actions"]:
            state.apply(action)
    return hands


@pytest.mark.django_db
@pytest.mark.parametrize("preset, seats", [("pagat", 2), ("crazy-eights", 4), ("hollywood", 2)])
def test_the_chart_plots_the_stored_running_totals(house_bots, preset, seats):
    match = _played(house_bots[:seats], preset=preset)
    page = Client().get(f"/matches/{match.pk}/")
    assert page.status_code == 200
    chart = page.context["chart"]
    deals = list(Deal.objects.filter(match=match, points__isnull=False).order_by("number"))
    assert chart["deals"] == len(deals)
    for series in chart["series"]:
        running, expected = 0, [0]
        for deal in deals:
            running += deal.points[series["index"]]
            expected.append(running)
        assert series["totals"] == expected
        assert len(series["points"].split()) == len(deals) + 1
    if preset != "hollywood":  # hollywood's match totals are its games' scores, not the deal points summed
        assert [s["totals"][-1] for s in chart["series"]] == match.totals
        assert [s["totals"][-1] for s in chart["series"]] == [
            s.total for s in Seat.objects.filter(match=match).order_by("index")]
    body = page.content.decode()
    svg = re.search(r'<svg id="totals-chart".*?</svg>', body, re.S).group(0)
    assert 'role="img"' in svg and 'aria-label="Each seat' in svg and "style=" not in svg and "<script" not in svg
    assert svg.count("<polyline") == seats
    assert '<figcaption id="totals-chart-caption"' in body
    legend = re.search(r'<ul class="legend">.*?</ul>', body, re.S).group(0)
    for s in Seat.objects.filter(match=match).select_related("player"):
        assert f"seat {s.index}, {s.player.name}:" in legend  # a legend in words, not colour alone


@pytest.mark.django_db
@pytest.mark.parametrize("preset, seats", [("pagat", 2), ("crazy-eights", 4)])
def test_the_starting_hands_are_what_the_engine_deals_from_the_seeds(house_bots, preset, seats):
    match = _played(house_bots[:seats], preset=preset, seed=21)
    page = Client().get(f"/matches/{match.pk}/")
    shown = [[[c["code"] for c in hand] for hand in row["hands"]] for row in page.context["deals"]]
    assert shown == _dealt_hands(match)
    body = page.content.decode()
    first = re.search(r'<tr id="hands-1">.*?</tr>', body, re.S).group(0)
    cells = re.findall(r"<td><span class=\"hand\">(.*?)</span></td>", first, re.S)
    assert [re.findall(r'data-card="(..)"', cell) for cell in cells] == shown[0]
    assert "sr-only" in first  # each card's name in words for a screen reader


@pytest.mark.django_db
def test_a_running_match_page_shows_no_hand_no_code_and_no_seed(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=424242)
    while match.deal_number < 3:  # some deals end, the match goes on
        match_advance(match_id=match.pk, ply_budget=5)
        match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.deal_number > 1
    page = Client().get(f"/matches/{match.pk}/")
    body = page.content.decode()
    assert "Starting hands" not in body and 'data-card="' not in body
    assert all("hands" not in row for row in page.context["deals"])
    assert page.context["chart"]["deals"] == match.deal_number - 1  # the ended deals are charted
    for deal in Deal.objects.filter(match=match):
        assert deal.code not in body and str(deal.seed) not in body
    assert str(match.seed) not in body


@pytest.mark.django_db
def test_a_partnership_match_page_names_the_sides_and_their_totals(house_bots):
    ruleset = Ruleset.preset("eights-classic", partnership=True, target=60)
    match = match_create(players=house_bots[:4], ruleset=ruleset, preset="eights-classic", seed=5)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    body = Client().get(f"/matches/{match.pk}/").content.decode()
    sides = re.findall(r'<td class="side">(.*?)</td>', body)
    by_seat = {s.index: s.place for s in Seat.objects.filter(match=match)}
    podium = sorted(by_seat, key=lambda i: (by_seat[i], i))
    assert sides == ["A (seats 0+2)" if i % 2 == 0 else "B (seats 1+3)" for i in podium]
    t = match.totals
    assert f"Side A: {t[0] + t[2]} points." in body and f"Side B: {t[1] + t[3]} points." in body
    plain = _played(house_bots[:4], preset="crazy-eights")
    assert "Side" not in Client().get(f"/matches/{plain.pk}/").content.decode().split("<h2")[1]


@pytest.mark.django_db
def test_a_hollywood_match_page_says_games_won_not_total(house_bots):
    match = _played(house_bots[:2], preset="hollywood", seed=3)
    body = Client().get(f"/matches/{match.pk}/").content.decode()
    standings = body.split("<h2")[1]
    assert '<th class="num">Games won</th>' in standings and ">Total<" not in standings
    assert "match goes by games won" in body
    assert ">Total<" in Client().get(f"/matches/{_played(house_bots[:2]).pk}/").content.decode().split("<h2")[1]
