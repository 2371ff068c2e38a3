"""Concurrency on one match, on real PostgreSQL with real concurrent connections: a person's move never waits for
the worker's lease (a compare-and-set on ``Match.ply_count`` decides who stores a ply), and every read of a match
is one consistent snapshot, also when a deal's end is stored in the middle of it."""

import threading
import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app
from games import hooks
from eights_engine import Ruleset, replay
from games.models import Deal, Match, Move
from games.selectors import match_record, match_snapshot, match_state
from games.services import casual_match_create, match_advance, match_create, match_submit_action, player_for_user


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def _in_thread(fn):
    """Run ``fn`` in its own thread (its own database connection) to the end; its result or its exception."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
    if "error" in out:
        raise out["error"]
    return out["value"]


def _seat_of(match, user):
    return match.seats.get(player__user=user).index


def _view_is_consistent(body, plies_by_deal):
    """A view's ``ply`` (the match's stored plies) is the plies of the deals before the one shown plus the shown
    deal's own ply: the view and its ``ply`` come from the same instant."""
    view = body["view"]
    before = sum(plies_by_deal[n] for n in range(1, view["deal_number"]))
    return body["ply"] == before + view["ply"]


# -- finding 5: a person's move never waits for the match lease --------------------------------------------------

def _casual_at_persons_turn(person):
    match = casual_match_create(user=person, opponents=["Professor"])
    assert match_advance(match_id=match.pk) == "waiting"
    match.refresh_from_db()
    return match


@pytest.mark.django_db(transaction=True)
def test_a_persons_move_is_stored_at_once_while_a_worker_holds_the_lease(person, house_bots):
    match = _casual_at_persons_turn(person)
    Match.objects.filter(pk=match.pk).update(lease_owner="a-worker", lease_until=timezone.now() + timezone.timedelta(minutes=1))
    view = _client(person).get(f"/api/matches/{match.pk}/seats/0/").json()
    started = time.monotonic()
    response = _client(person).post(f"/api/matches/{match.pk}/seats/0/actions/",
                                    {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
    took = time.monotonic() - started
    assert response.status_code == 200, response.content
    assert took < 1.0, f"the move waited {took:.1f} s"
    assert response.json()["ply"] >= view["ply"] + 1  # with any house answers stored in the same transaction
    assert Match.objects.get(pk=match.pk).lease_owner == "a-worker"  # the move did not touch the worker's lease


@pytest.mark.django_db(transaction=True)
def test_a_persons_move_beats_the_clock_fallback_the_worker_is_about_to_store(person, house_bots, monkeypatch):
    """The worker decides the person's clock ran out; the person's move lands before the worker stores the fallback:
    the move is stored, the worker stores nothing for that ply, re-reads, and plays on to the person's next turn."""
    # a deal where the person can play a card: the move ends their turn, so the bot is to play next
    for _ in range(30):
        match = _casual_at_persons_turn(person)
        if any(a["type"] == "play" for a in match_state(match=match).legal_actions()):
            break
    else:
        raise AssertionError("no casual deal in 30 gave the person a playable card")
    ply = match.ply_count
    Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timezone.timedelta(hours=1))
    real = hooks.agent_for("human")
    answers = []

    def clock_ran_out_but_the_move_lands_first(**kw):
        decision = real(**kw)
        if decision is not None and not answers:
            legal = kw["turn"].legal_actions
            play = next(a for a in legal if a["type"] == "play")
            answers.append(_in_thread(lambda: _client(person).post(
                f"/api/matches/{match.pk}/seats/0/actions/", {"ply": ply, "action": play}, format="json")))
        return decision

    monkeypatch.setitem(hooks._AGENTS, "human", clock_ran_out_but_the_move_lands_first)
    started = time.monotonic()
    status = match_advance(match_id=match.pk)
    assert time.monotonic() - started < 2.5
    assert answers[0].status_code == 200, answers[0].content
    assert status in ("waiting", "finished")
    first = Move.objects.filter(deal__match=match).order_by("deal__number", "ply")[ply]
    assert first.seat == 0 and first.source == "agent" and first.fault_kind == ""
    assert not Move.objects.filter(deal__match=match, source="fallback").exists()
    match.refresh_from_db()
    assert match.ply_count == Move.objects.filter(deal__match=match).count() > ply + 1  # the bot played on
    assert replay(match_record(match=match)).totals == match.totals


@pytest.mark.django_db(transaction=True)
def test_a_move_answering_a_ply_the_worker_already_stored_is_stale(person, house_bots):
    match = _casual_at_persons_turn(person)
    view = _client(person).get(f"/api/matches/{match.pk}/seats/0/").json()
    Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timezone.timedelta(hours=1))
    match_advance(match_id=match.pk)  # stores the person's fallback (the clock ran out), then the bot plays on
    response = _client(person).post(f"/api/matches/{match.pk}/seats/0/actions/",
                                    {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "stale_ply", response.content
    assert Move.objects.filter(deal__match=match, source="fallback").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_tabs_sending_different_moves_at_once_store_one(person, house_bots):
    match = _casual_at_persons_turn(person)
    for _ in range(30):  # the deal is not seeded: play on until the person has two different moves to send
        view = _client(person).get(f"/api/matches/{match.pk}/seats/0/").json()
        if len(view["legal_actions"]) >= 2:
            break
        _client(person).post(f"/api/matches/{match.pk}/seats/0/actions/",
                             {"ply": view["ply"], "action": view["legal_actions"][0]}, format="json")
        assert match_advance(match_id=match.pk) == "waiting"
    assert len(view["legal_actions"]) >= 2
    persons_before = Move.objects.filter(deal__match=match, seat=0).count()  # the moves played to get here
    barrier = threading.Barrier(2)
    answers = []

    def tab(action):
        def send():
            barrier.wait(10)
            return _client(person).post(f"/api/matches/{match.pk}/seats/0/actions/",
                                        {"ply": view["ply"], "action": action}, format="json")
        return send

    threads = [threading.Thread(target=lambda a=a: answers.append(_in_thread(tab(a))))
               for a in (view["legal_actions"][0], view["legal_actions"][-1])]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(a.status_code for a in answers) == [200, 409]
    assert [a.json()["error"] for a in answers if a.status_code == 409] == ["stale_ply"]
    won = next(a.json() for a in answers if a.status_code == 200)  # one move (with the house's answers) stored
    assert Move.objects.filter(deal__match=match).count() == won["ply"]
    assert Move.objects.filter(deal__match=match, seat=0).count() == persons_before + 1


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_loses_a_ply_to_another_writer_rereads_and_plays_on(house_bots, monkeypatch):
    whole = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=7)
    assert match_advance(match_id=whole.pk) == "finished"
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=7)
    assert match_advance(match_id=match.pk, ply_budget=10) == "budget"
    real = hooks.agent_for("house")
    raced = []

    def racing(**kw):
        decision = real(**kw)
        if not raced:  # this worker's lease runs out while it thinks; a redelivered task stores this very ply first
            raced.append(True)
            Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timezone.timedelta(seconds=1))
            assert _in_thread(lambda: match_advance(match_id=match.pk, ply_budget=1)) == "budget"
        return decision

    monkeypatch.setitem(hooks._AGENTS, "house", racing)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    log = lambda m: list(Move.objects.filter(deal__match=m).order_by("deal__number", "ply").values_list(  # noqa: E731
        "deal__number", "ply", "seat", "action"))
    assert log(match) == log(whole) and match.totals == Match.objects.get(pk=whole.pk).totals
    assert match.ply_count == len(log(match))


# -- finding 6: every read of a match is one consistent snapshot -------------------------------------------------

def _two_people_at_the_last_ply_of_deal_1(single_deal=False):
    """A match between two people (or a single-deal match: deal 1's end is the match's), played (first legal action
    each time) to the ply that ends deal 1; returns the match, the users by seat, and that ply's (seat, action)."""
    users = [get_user_model().objects.create_user(n, password="pw-12345-abc") for n in ("ann", "bob")]
    match = match_create(players=[player_for_user(user=u) for u in users], ruleset=Ruleset.preset("pagat"), seed=31337,
                         single_deal={"seed": 8675309, "dealer": 1} if single_deal else None)
    while True:
        match.refresh_from_db()
        state = match_state(match=match)
        seat, action = state.to_play, state.legal_actions()[0]
        probe = match_state(match=match)
        probe.apply(action)
        if probe.deal_number > 1 or probe.is_over:
            return match, users, (seat, action)
        match_submit_action(match_id=match.pk, seat=seat, ply=match.ply_count, action=action, user=users[seat])


def _store_between_reads(store):
    """A database hook on this thread's connection: right after the first statement that reads stored moves
    returns, ``store`` runs to its commit on another connection (a real concurrent writer)."""
    fired = []

    def hook(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not fired and sql.lstrip().upper().startswith("SELECT") and '"games_move"' in sql:
            fired.append(sql)
            _in_thread(store)
        return result

    return hook, fired


@pytest.mark.django_db(transaction=True)
def test_a_deal_end_stored_in_the_middle_of_a_seat_view_read_gives_the_view_before_it(db):
    match, users, (seat, action) = _two_people_at_the_last_ply_of_deal_1()
    ply = match.ply_count
    hook, fired = _store_between_reads(lambda: match_submit_action(match_id=match.pk, seat=seat, ply=ply,
                                                                   action=action, user=users[seat]))
    client = _client(users[0])
    with connection.execute_wrapper(hook):
        response = client.get(f"/api/matches/{match.pk}/seats/0/")
    assert fired and Deal.objects.filter(match=match).count() == 2  # the deal's end was stored meanwhile
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["ply"] == ply and body["view"]["deal_number"] == 1 and body["deals_finished"] == 0
    assert body["view"]["ply"] == ply and body["status"] == "running"
    assert body["your_turn"] == (seat == 0)
    after = client.get(f"/api/matches/{match.pk}/seats/0/").json()
    assert after["ply"] == ply + 1 and after["view"]["deal_number"] == 2 and after["deals_finished"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_deal_end_stored_in_the_middle_of_a_deal_result_read_is_not_half_shown(db):
    match, users, (seat, action) = _two_people_at_the_last_ply_of_deal_1()
    hook, fired = _store_between_reads(lambda: match_submit_action(match_id=match.pk, seat=seat, ply=match.ply_count,
                                                                   action=action, user=users[seat]))
    client = _client(users[0])
    with connection.execute_wrapper(hook):
        response = client.get(f"/api/matches/{match.pk}/deals/1/")
    assert fired
    assert response.status_code == 404, response.content[:300]  # deal 1 was not over at the instant read
    assert client.get(f"/api/matches/{match.pk}/deals/1/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_deal_end_stored_in_the_middle_of_a_match_page_read_shows_one_instant(client, db):
    match, users, (seat, action) = _two_people_at_the_last_ply_of_deal_1()
    ply = match.ply_count
    fired = []

    def hook(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not fired and sql.lstrip().upper().startswith("SELECT") and '"games_match"' in sql:
            fired.append(sql)
            _in_thread(lambda: match_submit_action(match_id=match.pk, seat=seat, ply=ply, action=action,
                                                   user=users[seat]))
        return result

    with connection.execute_wrapper(hook):
        page = client.get(f"/matches/{match.pk}/")
    assert fired and page.status_code == 200
    body = page.content.decode()
    shown_plies = f"{ply} plies stored" in body or f">{ply} ply stored" in body or f" {ply} ply stored" in body
    shown_deal_end = "went out" in body or "blocked</td>" in body
    assert shown_plies != shown_deal_end, "the page mixes the match before the deal's end with the deal table after it"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_polling_the_seat_view_while_a_worker_plays_deals_to_their_end_is_always_whole(person, house_bots,
                                                                                        monkeypatch):
    """A person plays a whole match against two house bots (a real worker plays the bots) from two tabs that both
    send moves, while a third tab polls: no answer is a 5xx, every move answer is 200 or a stale 409, and every
    view's ``ply`` is the ply the view was built from."""
    from rest_framework.throttling import ScopedRateThrottle

    for scope in ("seat_view", "seat_action"):  # four busy tabs of one person: not what the limits are about here
        monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, scope, "100000/min")
    app.control.purge()
    views, moves, errors = [], [], []
    done = threading.Event()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        match = casual_match_create(user=person, opponents=["Professor", "Greedy"])
        url = f"/api/matches/{match.pk}/seats/0/"

        def tab(sends):
            client = _client(person)
            try:
                while not done.is_set():
                    response = client.get(url)
                    if response.status_code != 200:
                        errors.append((response.status_code, response.content[:300]))
                        done.set()
                        break
                    body = response.json()
                    views.append(body)
                    if body["status"] != "running":
                        done.set()
                    elif sends and body["your_turn"]:
                        answer = client.post(url + "actions/", {"ply": body["ply"], "action": body["legal_actions"][
                            sends % len(body["legal_actions"])]}, format="json")
                        moves.append((answer.status_code, answer.json().get("error")))
            except BaseException as exc:  # noqa: BLE001
                errors.append(repr(exc))
                done.set()
            finally:
                connection.close()

        tabs = [threading.Thread(target=tab, args=(n,)) for n in (1, 2, 0, 0)]
        for t in tabs:
            t.start()
        done.wait(float(__import__("os").environ.get("POLL_SECONDS", "240")))
        done.set()
        for t in tabs:
            t.join(60)
    match.refresh_from_db()
    assert not errors, errors[:5]
    assert match.status == Match.Status.FINISHED and match.deal_number >= 2, (
        match.status, match.ply_count, len(views), sorted(set(moves)), len(moves), match.awaiting_human,
        match.lease_until, views[-1]["your_turn"] if views else None)
    assert {code for code, _ in moves} <= {200, 409} and {e for code, e in moves if code == 409} <= {"stale_ply"}
    assert Move.objects.filter(deal__match=match).count() == match.ply_count
    plies = dict(match.deals.values_list("number", "plies"))
    torn = [(v["ply"], v["view"]["deal_number"], v["view"]["ply"]) for v in views if not _view_is_consistent(v, plies)]
    assert not torn, f"{len(torn)} of {len(views)} views: ply not the view's: {torn[:5]}"
    # The polling covered the whole match: every deal was seen, and more views than the moves they answered (a count
    # of views would measure the machine's speed, not the test's reach: the house seats now answer inside the move).
    assert {v["view"]["deal_number"] for v in views if v["status"] == "running"} == set(range(1, match.deal_number + 1))
    assert len(views) > len(moves) >= match.deal_number  # a move a deal at least


@pytest.mark.parametrize("clock", ["clock ran out", "clock running"])
@pytest.mark.parametrize("ends", ["deal", "match"])
@pytest.mark.django_db(transaction=True)
def test_at_a_deal_or_match_end_two_tabs_and_the_worker_race_and_one_ply_is_stored(db, ends, clock):
    """The ply that ends deal 1 (or, in a single-deal match, the match): two tabs send it while the worker runs
    (storing the fallback when the clock ran out), all at once on their own connections. One writer stores it; the
    others get a stale 409 or find nothing to do; the deal rows, the finish and the ply count agree with the log."""
    match, users, (seat, action) = _two_people_at_the_last_ply_of_deal_1(single_deal=ends == "match")
    ply = match.ply_count
    if clock == "clock ran out":
        Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timezone.timedelta(hours=1))
    barrier = threading.Barrier(3)
    results = {}

    def tab(name):
        def send():
            barrier.wait(10)
            return _client(users[seat]).post(f"/api/matches/{match.pk}/seats/{seat}/actions/",
                                             {"ply": ply, "action": action}, format="json")
        results[name] = _in_thread(send)

    def worker():
        def run():
            barrier.wait(10)
            return match_advance(match_id=match.pk, ply_budget=1)
        results["worker"] = _in_thread(run)

    threads = [threading.Thread(target=tab, args=("tab1",)), threading.Thread(target=tab, args=("tab2",)),
               threading.Thread(target=worker)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    codes = sorted(results[t].status_code for t in ("tab1", "tab2"))
    assert codes in ([200, 409], [409, 409]), codes
    assert results["worker"] in ("budget", "finished", "waiting", "busy", "not_running")
    assert all(results[t].json()["error"] == "stale_ply" for t in ("tab1", "tab2") if results[t].status_code == 409)
    worker_stored = results["worker"] == "budget" or (results["worker"] == "finished" and codes == [409, 409])
    assert worker_stored == (codes == [409, 409]), (  # the plies stored since, to tell a race of the test from a bug
        results["worker"], codes, ply, list(Move.objects.filter(deal__match=match, ply__gte=ply - 1)
                                            .values_list("deal__number", "ply", "seat", "source")))
    match.refresh_from_db()
    moves = list(Move.objects.filter(deal__match=match).order_by("deal__number", "ply"))
    assert len(moves) == match.ply_count == ply + 1
    stored = moves[ply]
    assert stored.seat == seat and (stored.source == "fallback") == worker_stored
    state = replay(match_record(match=match))
    deals = list(match.deals.order_by("number").values_list("number", "points"))
    assert [n for n, _ in deals] == list(range(1, len(deals) + 1)) == list(range(1, state.deal_number + 1))
    assert [p for _, p in deals if p is not None] == [r.points for r in state.results]
    assert match.status == ("finished" if state.is_over else "running")
    if not worker_stored:
        assert state.deal_number == 2 if ends == "deal" else state.is_over and all(s.place for s in match.seats.all())


@pytest.mark.django_db
def test_a_snapshot_carries_the_match_rows_progress_as_stored(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=11)
    assert match_advance(match_id=match.pk, ply_budget=40) == "budget"
    for _ in range(2):  # running, then finished
        row = Match.objects.get(pk=match.pk)
        snapshot = match_snapshot(match=match)
        for field in ("status", "ply_count", "deal_number", "awaiting_human", "totals", "last_progress_at",
                      "finished_at"):
            assert getattr(snapshot.match, field) == getattr(row, field), field
        assert sum(len(d["actions"]) for d in snapshot.record["deals"]) == row.ply_count
        assert snapshot.state.totals == row.totals
        match_advance(match_id=match.pk)
    assert snapshot.match.status == "finished" and snapshot.match.finished_at is not None
    assert match.status == "running"  # the caller's row is left as it was read
