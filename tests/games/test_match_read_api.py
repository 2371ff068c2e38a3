"""A match over the API (issue 14): GET /api/matches/{id}/ gives seats, deals and results as the match page does, and
nothing it hides: no deal code, seed, salt or hand of a running or aborted match, in a fixed number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from match_secrets import match_secrets
from eights_engine import Ruleset
from eights_engine.cards import card_code
from games.models import Deal, Match
from games.selectors import match_starting_hands, match_state
from games.services import match_advance, match_create


def _get(match_id: int):
    answer = APIClient().get(f"/api/matches/{match_id}/")
    assert answer.status_code == 200, answer.content
    return answer


@pytest.mark.django_db
def test_a_finished_match_shows_seats_deals_results_and_its_published_deals(house_bots):
    match = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat"), seed=12)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    data = _get(match.pk).json()
    assert (data["status"], data["public"], data["preset"], data["seat_count"]) == ("finished", True, "", 2)  # no preset given to match_create
    assert data["totals"] == match.totals and data["ladder"] is None
    assert data["record"] == f"/api/matches/{match.pk}/record/" and data["replay"] == f"/matches/{match.pk}/replay/"
    seats = {s["index"]: s for s in data["seats"]}
    for seat in match.seats.select_related("player"):
        got = seats[seat.index]
        assert (got["player"], got["player_id"], got["kind"], got["total"], got["place"]) == (
            seat.player.name, seat.player_id, "house", seat.total, seat.place)
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    assert [d["number"] for d in data["deals"]] == [d.number for d in deals]
    hands = match_starting_hands(match=match, deals=deals)
    running = [0, 0]
    for got, deal, dealt in zip(data["deals"], deals, hands):
        running = [a + b for a, b in zip(running, deal.points)]
        assert (got["code"], got["key"], got["seed"], got["salt"], got["commitment"]) == (
            deal.code, deal.key, None, None, deal.commitment)
        assert (got["points"], got["running"], got["winner"], got["outcome"]) == (deal.points, running, deal.winner,
                                                                                  deal.outcome)
        assert got["hands"] == [[c["code"] for c in hand] for hand in dealt]
    assert running == match.totals


@pytest.mark.django_db
def test_a_running_match_shows_no_code_seed_salt_hand_or_stock_card(house_bots):
    match = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat"), seed=31337)
    while True:
        match_advance(match_id=match.pk, ply_budget=9)
        match.refresh_from_db()
        assert match.status == Match.Status.RUNNING, "the match ended before the test could look at it"
        state = match_state(match=match)
        if state.deal_number >= 2 and state.deal.history:
            break
    deal = state.deal
    public = {h["card"] for h in deal.history if "card" in h} | {deal.top_card}
    hidden = (set(deal.hand(0)) | set(deal.hand(1)) | {card_code(c) for c in deal.stock}) - public
    answer = _get(match.pk)
    body = answer.content.decode()
    data = answer.json()
    assert (data["status"], data["public"], data["record"], data["replay"]) == ("running", False, None, None)
    rows = list(Deal.objects.filter(match=match).order_by("number"))
    assert match.secret and all(row.key for row in rows)
    for secret in match_secrets(match):
        assert secret not in body
    import re
    tokens = set(re.findall(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])", body))
    assert not tokens & hidden, sorted(tokens & hidden)
    for got, row in zip(data["deals"], rows):
        assert got["code"] is got["key"] is got["seed"] is got["salt"] is got["hands"] is None
        assert got["commitment"] == row.commitment  # public from the deal's start
    assert data["deals"][0]["points"] == rows[0].points and data["deals"][-1]["outcome"] == "playing"
    assert [s["place"] for s in data["seats"]] == [None, None]
    assert [s["total"] for s in data["seats"]] == match.totals


@pytest.mark.django_db
def test_an_aborted_match_keeps_its_seeds(house_bots):
    match = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat"), seed=5)
    match_advance(match_id=match.pk, ply_budget=5)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABORTED, abort_reason="test abort")
    data = _get(match.pk).json()
    assert (data["status"], data["public"], data["abort_reason"]) == ("aborted", False, "test abort")
    assert all(d["seed"] is None and d["code"] is None and d["hands"] is None for d in data["deals"])
    assert str(Deal.objects.get(match=match, number=1).seed) not in _get(match.pk).content.decode()


@pytest.mark.django_db
def test_a_ladder_match_names_its_ladder(ladder):
    from tournaments.services import ladder_schedule_matches

    match = ladder_schedule_matches(ladder=ladder, limit=1)[0]
    assert _get(match.pk).json()["ladder"] == "test"


def _queries(match_id: int) -> int:
    with CaptureQueriesContext(connection) as ctx:
        _get(match_id)
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_the_match_read_takes_a_fixed_number_of_queries(house_bots):
    short = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat", target=10), seed=3)
    long = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat", target=300), seed=3)
    for m in (short, long):
        assert match_advance(match_id=m.pk) == "finished"
    assert Deal.objects.filter(match=long).count() > Deal.objects.filter(match=short).count() + 2
    assert _queries(short.pk) == _queries(long.pk) <= 8


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_match_is_a_json_404(settings, debug):
    settings.DEBUG = debug
    for url in ("/api/matches/987654/", "/api/matches/987654/nothing/", "/api/matches/abc/",
                "/api/matches/99999999999999999999999/"):
        answer = APIClient().get(url)
        assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json"), (url, answer)
        assert set(answer.json()) == {"error", "detail"} and answer.json()["error"] == "not_found", url
    refused = APIClient().delete("/api/matches/987654/")
    assert refused.status_code == 405 and refused.json()["error"] == "method_not_allowed"
