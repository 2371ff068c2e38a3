"""One referee for every seat: the worker, the local runner, a house strategy and a person's table all give the seat
to play the same Turn (eights_engine.referee) for the same position, and a bot's request is built from it."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from eights_engine.bots import localrun
from bots_api.models import Bot
from eights_engine.bots.protocol import turn_request
from bots_api.services import bot_register
from games import hooks
from eights_engine import STRATEGIES, Ruleset, referee
from games.services import casual_match_create, match_advance, match_create

from bot_servers import BotServer

SEED = 7
#: Fields that are the caller's context, not the position: the match's id, the round trip just measured, and the
#: deal's commitment (a fresh secret salt each time the deal is dealt: docs/FAIRNESS.md).
CONTEXT = {"match_id", "last_latency_ms", "commitment"}


def _position(turn: referee.Turn) -> dict:
    return {k: v for k, v in vars(turn).items() if k not in CONTEXT}


def _spy_strategy(monkeypatch, name: str) -> list:
    """What the house strategy ``name`` is given: (view, legal actions) per call (the example bot plays it too, in
    this process: its calls are there as well)."""
    seen, real = [], STRATEGIES[name]
    monkeypatch.setitem(STRATEGIES, name, lambda view, legal, rng: seen.append((view, legal)) or real(view, legal, rng))
    return seen


@pytest.fixture
def server():
    bot_server = BotServer("good", "s3cret")
    yield bot_server
    bot_server.stop()


@pytest.mark.django_db
def test_the_worker_the_local_runner_and_a_house_strategy_give_a_seat_the_same_turn(server, house_bots, monkeypatch,
                                                                                  settings):
    settings.BOT_TIME_BANK_MS = 5000
    owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
    bot, _ = bot_register(owner=owner, name="Probe", endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())

    # the worker: the bot in seat 0, the house heuristic in seat 1
    worker_turns = []
    for kind in ("bot", "house"):
        real = hooks.agent_for(kind)
        monkeypatch.setitem(hooks._AGENTS, kind,
                            lambda real=real, **kw: worker_turns.append(kw["turn"]) or real(**kw))
    seen = _spy_strategy(monkeypatch, "heuristic")
    match = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=SEED,
                         turn_timeout_ms=1000)
    assert match_advance(match_id=match.pk) == "finished"
    worker_bodies = server.bodies("turn")
    server.requests.clear()
    worker_seen = [(view, legal) for view, legal in seen if view["seat"] == 1]  # the house seat's calls
    seen.clear()

    # the local runner: the same seats, rules and seed
    local_turns, real_play_turn = [], referee.play_turn

    def spying_play_turn(state, agent, **kw):
        return real_play_turn(state, lambda turn: local_turns.append(turn) or agent(turn), **kw)

    monkeypatch.setattr(localrun.referee, "play_turn", spying_play_turn)
    args = localrun.parse_args([server.url, "house:heuristic", "--preset", "pagat", "--seed", str(SEED), "--secret",
                                "s3cret", "--timeout-ms", "1000", "--time-bank-ms", "5000"])
    localrun.run(args, io.StringIO())
    local_bodies = server.bodies("turn")
    local_seen = [(view, legal) for view, legal in seen if view["seat"] == 1]

    assert len(worker_turns) == len(local_turns) > 20
    assert all(type(t) is referee.Turn for t in worker_turns + local_turns)
    for worker, local in zip(worker_turns, local_turns):
        assert _position(worker) == _position(local)
    # a house strategy is given exactly its turn's view and legal actions, in both
    house_turns = [t for t in worker_turns if t.seat == 1]
    assert worker_seen == local_seen == [(t.view, list(t.legal_actions)) for t in house_turns]
    # a bot's request is its turn, field by field, and the same from both (but for the match id and the latency)
    bot_turns = [t for t in worker_turns if t.seat == 0]
    assert worker_bodies == [json.loads(json.dumps(turn_request(t))) for t in bot_turns]
    assert len(worker_bodies) == len(local_bodies)
    for worker, local in zip(worker_bodies, local_bodies):
        assert {k: v for k, v in worker.items() if k not in CONTEXT} == {k: v for k, v in local.items()
                                                                          if k not in CONTEXT}


@pytest.mark.django_db
def test_a_person_is_shown_the_turn_the_worker_holds_for_their_seat(house_bots, monkeypatch):
    person = get_user_model().objects.create_user("lin", password="pw-lin-12345")
    asked = []
    real = hooks.agent_for("human")
    monkeypatch.setitem(hooks._AGENTS, "human", lambda **kw: asked.append(kw["turn"]) or real(**kw))
    match = casual_match_create(user=person, opponents=["Professor"])
    match_advance(match_id=match.pk)  # the house bot plays until the person is to play
    client = APIClient()
    client.force_authenticate(person)
    for _ in range(3):
        turn = asked[-1]
        seen = client.get(f"/api/matches/{match.pk}/seats/0/").json()
        assert seen["your_turn"] and turn.seat == 0
        assert seen["view"] == json.loads(json.dumps(turn.view))
        assert seen["legal_actions"] == list(turn.legal_actions)
        asked.clear()
        answer = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                             {"ply": seen["ply"], "action": seen["legal_actions"][-1]}, format="json")
        assert answer.status_code == 200, answer.content
        match_advance(match_id=match.pk)
        if not asked:  # the match ended
            break
