"""A duplicate tournament pod's rotations share one match seed: nothing published about the finished rotation
(record, starting hands, deal codes) deals the cards of its sibling while the sibling still runs (``reveal_group``).
Found by a breaker; the rotations now also run one after another (``Match.after``)."""

import pytest
from django.test import Client

from eights_engine import Ruleset
from eights_engine.deal import Deal as EngineDeal
from games.models import Deal, Match
from games.services import match_advance, player_house_create
from tournaments.models import TournamentMatch
from tournaments.tournament_services import (
    tournament_create,
    tournament_register,
    tournament_start,
)


@pytest.fixture
def mirrored(db):
    """A duplicate round robin of two house bots: game 0 played to the end, game 1 (the mirror) still running."""
    a = player_house_create(name="Lefty", strategy="greedy")
    b = player_house_create(name="Righty", strategy="heuristic")
    t = tournament_create(name="Mirror cup", format="round_robin", duplicate=True, target=30)
    tournament_register(tournament=t, player=a)
    tournament_register(tournament=t, player=b)
    tournament_start(tournament=t)
    g0, g1 = (tm.match for tm in TournamentMatch.objects.filter(round__tournament=t).order_by("game")
              .select_related("match"))
    assert match_advance(match_id=g0.pk) == "finished"
    assert match_advance(match_id=g1.pk, ply_budget=5) == "budget"  # the mirror is under way
    g1.refresh_from_db()
    assert g1.status == Match.Status.RUNNING
    running_deal = Deal.objects.filter(match=g1).order_by("-number").first()
    return g0, g1, running_deal


def test_the_finished_rotations_record_is_withheld_while_the_sibling_runs(mirrored):
    g0, g1, running_deal = mirrored
    resp = Client().get(f"/api/matches/{g0.pk}/record/")  # anonymous
    assert resp.status_code == 403 and running_deal.key not in resp.content.decode()
    assert match_advance(match_id=g1.pk) == "finished"
    record = Client().get(f"/api/matches/{g0.pk}/record/").json()  # public once both are over
    published = {d["key"] for d in record["deals"]}
    assert running_deal.key in published and record["secret"] == g1.secret  # the same cards: hence the wait


def test_the_finished_rotations_page_does_not_show_the_running_siblings_hands(mirrored):
    g0, g1, running_deal = mirrored
    ruleset = Ruleset.from_dict(g1.ruleset)
    hidden = EngineDeal.start(ruleset, g1.seat_count, bytes.fromhex(running_deal.key), dealer=running_deal.dealer)
    starting = " ".join(hidden.hand(0))  # the running sibling's seat 0 hand, as the page's starting hands list it
    html = Client().get(f"/matches/{g0.pk}/").content.decode()
    # the finished rotation's page shows starting hands, seeds and deal codes; the running sibling's same deal
    assert running_deal.key not in html and g1.secret not in html, "the running sibling's key is on a public page"
    assert running_deal.code not in html, "the running sibling's deal code is on a public page"
    assert not all(f'data-card="{c}"' in html or f">{c}<" in html for c in hidden.hand(0)), (
        f"every card of the running sibling's seat 0 hand ({starting}) is on the finished rotation's page")


def test_the_deal_code_page_of_the_running_siblings_deal_is_not_public(mirrored):
    _g0, g1, running_deal = mirrored
    resp = Client().get(f"/deals/{running_deal.code}/")
    assert resp.status_code == 404, (
        f"/deals/{running_deal.code}/ (the running match {g1.pk}'s current deal) answers {resp.status_code}: "
        "a stranger sees its cards and may 'Play this deal'")
