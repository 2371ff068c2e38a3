"""Match services against real PostgreSQL: play, store, resume, never store a ply twice."""

import threading

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import hooks
from eights_engine import Ruleset, replay
from eights_engine.keys import key_code
from games.models import Deal, Match, Move
from games.selectors import match_record
from games.services import match_advance, match_create, matches_stalled

SEED = 424242


def _play(players, seed=SEED, **kwargs):
    match = match_create(players=players, ruleset=Ruleset.preset("pagat"), preset="pagat", seed=seed)
    while (status := match_advance(match_id=match.pk, **kwargs)) == "budget":
        pass
    assert status == "finished"
    match.refresh_from_db()
    return match


def _log(match):
    return list(Move.objects.filter(deal__match=match).order_by("deal__number", "ply")
                .values_list("deal__number", "ply", "seat", "action"))


@pytest.mark.django_db
def test_it_plays_a_match_to_100_and_stores_every_deal_and_ply(house_bots):
    match = _play(house_bots[:2])
    assert match.status == Match.Status.FINISHED
    assert max(match.totals) >= 100
    deals = list(match.deals.order_by("number"))
    assert len(deals) == match.deal_number >= 1
    assert all(d.outcome in ("out", "blocked") and d.points is not None for d in deals)
    assert all(d.code == key_code(bytes.fromhex(d.key)) and d.seed is None and not d.salt for d in deals)
    assert [sum(col) for col in zip(*(d.points for d in deals))] == match.totals
    assert Move.objects.filter(deal__match=match).count() == match.ply_count == sum(d.plies for d in deals)
    state = replay(match_record(match=match))  # the stored log replays to the same result
    assert state.is_over and state.totals == match.totals
    seats = list(match.seats.order_by("index"))
    assert [s.total for s in seats] == match.totals
    assert [s.place for s in seats] == state.standings
    assert min(s.place for s in seats) == 1


@pytest.mark.django_db
def test_it_resumes_after_every_interruption_with_the_result_of_an_uninterrupted_run(house_bots):
    whole = _play(house_bots[2:4])
    pieces = _play(house_bots[2:4], ply_budget=7)  # stops every 7 plies and is called again
    assert _log(pieces) == _log(whole)
    assert pieces.totals == whole.totals
    assert list(pieces.deals.values_list("seed", "points")) == list(whole.deals.values_list("seed", "points"))


@pytest.mark.django_db
@pytest.mark.parametrize("batch", [1, 32])  # every ply in its own transaction; house plies stored 32 at a time
def test_it_recovers_from_a_worker_that_died_holding_the_match(house_bots, monkeypatch, settings, batch):
    settings.MATCH_BATCH_PLIES, settings.MATCH_BATCH_MS = batch, 10_000
    whole = _play(house_bots[:2])
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=SEED)
    calls = {"n": 0}
    real = hooks.agent_for("house")

    def dies_at_ply_30(**kw):
        calls["n"] += 1
        if calls["n"] == 30:
            raise SystemExit("worker killed")
        return real(**kw)

    monkeypatch.setitem(hooks._AGENTS, "house", dies_at_ply_30)
    with pytest.raises(SystemExit):
        match_advance(match_id=match.pk)
    monkeypatch.setitem(hooks._AGENTS, "house", real)
    # a SIGKILLed worker never releases its lease: fake that, with the lease already expired
    Match.objects.filter(pk=match.pk).update(lease_owner="dead-worker", lease_until=timezone.now(),
                                            last_progress_at=timezone.now() - timezone.timedelta(hours=1))
    assert match.pk in matches_stalled()
    # the plies in hand died with the worker (nobody had seen them); what was stored stays
    assert Move.objects.filter(deal__match=match).count() == (29 if batch == 1 else 0)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    assert _log(match) == _log(whole) and match.totals == whole.totals


@pytest.mark.django_db
def test_a_live_lease_keeps_a_second_worker_out(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=SEED)
    Match.objects.filter(pk=match.pk).update(lease_owner="other", lease_until=timezone.now() + timezone.timedelta(minutes=1))
    assert match_advance(match_id=match.pk) == "busy"
    assert match.pk not in matches_stalled(now=timezone.now() + timezone.timedelta(seconds=30))
    assert not Move.objects.filter(deal__match=match).exists()


@pytest.mark.django_db
def test_the_database_refuses_a_second_row_for_the_same_ply(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=SEED)
    deal = match.deals.get()
    Move.objects.create(deal=deal, ply=0, seat=1, action={"type": "draw"})
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.create(deal=deal, ply=0, seat=1, action={"type": "draw"})


@pytest.mark.django_db
def test_a_retried_task_that_loses_the_race_overwrites_nothing_and_the_match_finishes_the_same(house_bots, monkeypatch):
    whole = _play(house_bots[:2])
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=SEED)
    assert match_advance(match_id=match.pk, ply_budget=10) == "budget"
    real = hooks.agent_for("house")
    raced = []

    def another_writer_first(**kw):
        decision = real(**kw)
        if not raced:  # the duplicate task (e.g. redelivered after a broker hiccup) stores this very ply first
            raced.append(True)
            turn = kw["turn"]  # agents get the seat's turn (eights_engine.referee), never the match state
            deal = Deal.objects.get(match_id=turn.match_id, number=turn.deal_number)
            Move.objects.create(deal=deal, ply=turn.ply, seat=turn.seat, action=decision.action)
            Match.objects.filter(pk=turn.match_id).update(ply_count=11)
        return decision

    monkeypatch.setitem(hooks._AGENTS, "house", another_writer_first)
    assert match_advance(match_id=match.pk) == "finished"  # lost ply 10, read the log again, played on
    match.refresh_from_db()
    assert _log(match) == _log(whole) and match.totals == whole.totals
    assert match.ply_count == len(_log(match))


@pytest.mark.django_db(transaction=True)
def test_two_workers_on_one_match_store_each_ply_once(house_bots):
    whole = _play(house_bots[:2], seed=99)
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=99)
    results = []

    def work():
        from django.db import connection

        try:
            while (status := match_advance(match_id=match.pk, ply_budget=3)) in ("budget", "busy", "conflict"):
                pass
            results.append(status)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert "finished" in results or Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    match.refresh_from_db()
    assert _log(match) == _log(whole)


@pytest.mark.django_db
def test_match_create_rejects_bad_seatings(house_bots):
    with pytest.raises(ValueError, match="only one seat"):
        match_create(players=[house_bots[0], house_bots[0]], ruleset=Ruleset.preset("pagat"))
    with pytest.raises(ValueError, match="seats 2 to 2"):
        match_create(players=house_bots[:3], ruleset=Ruleset.preset("hollywood"))
