"""A check cannot be told from real play (docs/BOT_PROTOCOL.md, "Checks look like real turns"): its turns come
before any ping, badly signed request or match_end, so a bot has played every turn it is judged on before anything
could tell it this was a check; and every turn is a real one's in shape and in draw: a match played from its first
ply under a ladder's rules, seats and deadline, its id drawn from just above the newest real match (never a
constant), cards that add up, the seat's time bank and last latency as in a match, the service's client and
headers. So a bot that plays well only for the checker's requests fails the check.

Real bots over HTTP on loopback (tests/support/bot_servers.py), the service's check run in-process, real ladder
matches played by ``match_advance`` beside it.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from django.utils import timezone

from bot_servers import BotServer
from eights_engine.bots import check as conformance
from bots_api.models import Bot, BotCheck
from eights_engine.bots.protocol import schema_errors, verify
from bots_api import services
from bots_api.services import bot_check_request, bot_check_run
from eights_engine import Ruleset
from games.models import Player
from games.services import match_advance, match_create
from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches
from personas import bot_of


@pytest.fixture
def server():
    started = BotServer("good", "s3cret")
    yield started
    started.stop()


def _real_matches(house_bots, count=3) -> list[int]:
    short = Ruleset.preset("pagat", target=40)
    ids = []
    for seed in range(1, count + 1):
        match = match_create(players=house_bots[:2], ruleset=short, seed=seed)
        match_advance(match_id=match.pk)
        ids.append(match.pk)
    return ids


@pytest.mark.django_db
def test_a_checks_match_ids_vary_and_look_like_real_ones(owner, server, house_bots, settings):
    real = _real_matches(house_bots)
    bot = bot_of(owner, server, "Spotter", verified=False, active=False)
    seen = []
    for _ in range(2):
        server.requests.clear()
        check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
        assert check.state == BotCheck.State.PASSED, check.detail
        turns = [json.loads(body) for _headers, body in server.requests if json.loads(body)["type"] == "turn"]
        assert len(turns) >= conformance.TURN_CHECKS
        ids = [t["match_id"] for t in turns]
        assert len(set(ids)) > 1, ids  # not one constant
        assert all(max(real) < i <= max(real) + services.CHECK_MATCH_ID_SPREAD for i in ids), (ids, real)
        assert all(t["time_bank_ms"] == settings.BOT_TIME_BANK_MS for t in turns)  # the real bank, not 0
        # a deal's commitment, as every real turn carries one (docs/FAIRNESS.md): its absence would give a check away
        assert all(isinstance(t["commitment"], str) and len(t["commitment"]) == 64 for t in turns)
        seen.append(turns)
    hands = [{json.dumps(t["view"]["hand"]) for t in turns} for turns in seen]
    assert hands[0] != hands[1]  # real deals from random seeds: two checks send different positions
    ua = {headers.get("User-Agent") for headers, _body in server.requests}
    assert ua == {"EightsLadder/1 (+bot protocol v1)"}  # the same client as real turns


@pytest.mark.django_db
@pytest.mark.parametrize("spotted", ["999000", "constant"])
def test_a_bot_that_plays_well_only_for_the_checkers_ids_fails_the_check(spotted, owner, server, house_bots):
    """The breaker's bot: well for match 999000 (the old checker's constant), cards it does not hold otherwise.
    Also a bot that learnt the ids of one check: the next check's ids are others."""
    _real_matches(house_bots, 1)
    bot = bot_of(owner, server, "Spotter", verified=False, active=False)
    if spotted == "999000":
        server.behaviour = "checkonly:999000"
    else:
        check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
        assert check.state == BotCheck.State.PASSED
        learnt = {json.loads(body)["match_id"] for _h, body in server.requests if json.loads(body)["type"] == "turn"}
        server.behaviour = "checkonly:" + ",".join(str(i) for i in learnt)
        _real_matches(house_bots, 1)  # meanwhile a real match begins: the next ids are above it
    Bot.objects.filter(pk=bot.pk).update(suspended_reason="failed 3 matches in a row",
                                         verified_at=timezone.now())
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.FAILED, check.detail
    assert "illegal action" in check.detail
    bot.refresh_from_db()
    assert bot.suspended_reason and not bot.can_play
    assert not Player.objects.get(pk=bot.player_id).is_active


def test_the_standalone_checker_also_varies_its_ids_and_deals(server):
    """``python -m eights_engine.bots.check`` (no database): random ids, never the old constant; dealt matches played
    from
    their first ply with one id per match, so two runs send different positions."""
    runs = []
    for _ in range(2):
        server.requests.clear()
        checks = conformance.run_checks(server.url, "s3cret", 1000)
        assert all(c.ok for c in checks), [c for c in checks if not c.ok]
        runs.append([json.loads(body) for _h, body in server.requests if json.loads(body)["type"] == "turn"])
    for turns in runs:
        assert all(schema_errors("turn", t) == [] for t in turns)
        assert 999_000 not in {t["match_id"] for t in turns} and len({t["match_id"] for t in turns}) > 1
        dealt = [t for t in turns if sum(u["match_id"] == t["match_id"] for u in turns) > 1]
        assert len(dealt) >= conformance.DEALT_MATCHES * conformance.DEALT_TURNS
        for match_id in {t["match_id"] for t in dealt}:
            asked = [t for t in dealt if t["match_id"] == match_id]
            plies = [t["ply"] for t in asked]
            assert plies == sorted(plies)  # in order
            first = asked[0]  # the seat's first turn of the match: the other seats may have drawn a few plies first
            assert first["deal_number"] == 1 and first["ply"] == len(first["view"]["history"])
            assert all(entry["seat"] != first["you"] for entry in first["view"]["history"])
    assert [t["view"]["hand"] for t in runs[0]] != [t["view"]["hand"] for t in runs[1]]
    assert not hasattr(conformance, "MATCH_ID")


@pytest.mark.django_db
def test_a_check_honours_the_time_bank_its_turns_state(owner, server, settings):
    """A turn states the real bank, so a bot that uses it (a bit slow, as a match allows) passes; without a bank
    the same bot is late."""
    settings.BOT_TURN_TIMEOUT_MS = 150
    server.behaviour = "sleep:250"
    bot = bot_of(owner, server, "Spotter", verified=False, active=False)
    settings.BOT_TIME_BANK_MS = 5000
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED, check.detail
    settings.BOT_TIME_BANK_MS = 0
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.FAILED and "past the 150 ms deadline" in check.detail, check.detail


def _sent(server) -> list[tuple[str, bool, dict]]:
    """Every request the server got, in order: its type, whether it was correctly signed, its body."""
    sent = []
    for headers, raw in server.requests:
        signed = verify("s3cret", raw, headers.get("X-Eights-Timestamp"), headers.get("X-Eights-Signature"))
        sent.append((json.loads(raw)["type"], signed, json.loads(raw)))
    return sent


def _assert_turns_come_first(sent) -> None:
    kinds = [kind if signed else f"unsigned {kind}" for kind, signed, _body in sent]
    turns = kinds.count("turn")
    assert turns >= conformance.TURN_CHECKS - 1  # a situation the rules do not allow is left out
    assert kinds[:turns] == ["turn"] * turns, kinds  # no turn follows a ping, a refusal or a match_end
    rest = kinds[turns:]
    ends = rest.count("match_end")
    assert rest == ["match_end"] * ends + ["ping"] + ["unsigned ping"] * 3, rest
    turn_ids = {body["match_id"] for kind, _s, body in sent if kind == "turn"}
    assert {body["match_id"] for kind, _s, body in sent if kind == "match_end"} == turn_ids  # one per check match
    assert ends == len(turn_ids)


@pytest.mark.django_db
def test_the_service_sends_every_turn_of_a_check_before_any_ping_refusal_or_match_end(owner, server):
    bot = bot_of(owner, server, "Spotter", verified=False, active=False)
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED, check.detail
    _assert_turns_come_first(_sent(server))
    # the report still reads in its old order: the ping and the refusals first
    assert [c["name"] for c in check.checks][:4] == ["ping", "bad signature", "stale timestamp", "no signature"]
    assert check.checks[-1]["name"] == "match_end" and check.latency_ms is not None


def test_the_standalone_checker_sends_every_turn_before_any_ping_refusal_or_match_end(server):
    out = io.StringIO()
    assert conformance.main([server.url, "--secret", "s3cret"], out=out) == 0, out.getvalue()
    _assert_turns_come_first(_sent(server))
    lines = out.getvalue().splitlines()
    assert lines[2].startswith("PASS  ping") and "the turns first" in lines[1]


def test_a_bot_that_plays_well_only_once_pinged_fails_the_standalone_check(server):
    """A ping used to come first, so a bot could play well from its first ping on and cheat before any."""
    server.behaviour = "afterping"
    checks = conformance.run_checks(server.url, "s3cret", 1000)
    turns = [c for c in checks if c.name.startswith("turn: ")]
    assert turns and all(c.status == "FAIL" and "illegal action" in c.detail for c in turns), turns
    assert next(c for c in checks if c.name == "ping").status == "PASS"


@pytest.mark.django_db
def test_a_bot_that_plays_well_only_once_pinged_fails_the_services_check(owner, server):
    server.behaviour = "afterping"
    bot = bot_of(owner, server, "Spotter", verified=False, active=False)
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.FAILED and "illegal action" in check.detail, check.detail
    assert check.detail.startswith("turn: ")


@pytest.mark.django_db
def test_nothing_more_is_sent_once_the_bot_refuses_the_services_signature(owner, server):
    """The ping that used to come first stopped a check of a bot that cannot be reached; now the first turn does."""
    server.behaviour = "status:401"
    bot = bot_of(owner, server, "Spotter", verified=False, active=False)
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.FAILED and "HTTP 401" in check.detail, check.detail
    assert [kind for kind, _s, _b in _sent(server)] == ["turn"]
    assert len(check.checks) == 1 and check.latency_ms is None


def test_no_two_checks_send_the_same_position(server):
    """The tricky situations are found in real deals from random seeds, not built once: a bot cannot learn them."""
    positions = []
    for _ in range(2):
        server.requests.clear()
        conformance.run_checks(server.url, "s3cret", 1000)
        positions.append({json.dumps(body["view"], sort_keys=True) for kind, _s, body in _sent(server)
                          if kind == "turn"})
    assert not positions[0] & positions[1]


CARD = re.compile(r"^[A2-9TJQK][CDHS]$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _kind(value) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return {type(None): "null", bool: "bool", int: "int", float: "float"}[type(value)]
    if isinstance(value, str):
        return "card" if CARD.match(value) else "hex64" if HEX64.match(value) else "str"
    return "object" if isinstance(value, dict) else "list"


def _shape(value, path: str = "", into: dict | None = None) -> dict[str, set[str]]:
    """Every path of a JSON value (an object's keys, a list's items as "[]") with the kinds of value found there. The
    objects in a list (legal actions, history entries) are not entered: which of their forms a match shows depends
    on the cards, and the schema checks each."""
    into = {} if into is None else into
    into.setdefault(path or "(body)", set()).add(_kind(value))
    if isinstance(value, dict):
        for key, item in value.items():
            _shape(item, f"{path}.{key}", into)
    elif isinstance(value, list):
        for item in value:
            into.setdefault(f"{path}[]", set()).add(_kind(item))
    return into


def _inconsistencies(turns: list[dict]) -> list[str]:
    """What in a bot's turns (in the order received) no real match could send: cards that do not add up to the
    deck, a hand that is not the seat's count, a match whose first turn for the seat is not in deal 1 or has the
    seat in its history already, a last latency on the seat's first turn of a match or none after it."""
    problems, seen = [], set()
    for turn in turns:
        view, where = turn["view"], f"match {turn['match_id']} deal {turn['deal_number']} ply {turn['ply']}"
        seats = len(view["hand_counts"])
        deck = Ruleset.from_dict(turn["ruleset"]).deck_size(seats)
        if sum(view["hand_counts"]) + view["stock_count"] + view["discard_count"] != deck:
            problems.append(f"{where}: the cards do not add up to the {deck}-card deck")
        if len(view["hand"]) != view["hand_counts"][turn["you"]]:
            problems.append(f"{where}: the hand is not the seat's count")
        first = turn["match_id"] not in seen
        seen.add(turn["match_id"])
        if first and (turn["deal_number"] != 1 or any(e["seat"] == turn["you"] for e in view["history"])):
            problems.append(f"{where}: the seat's first turn of the match, yet not its first ply")
        if first != (turn["last_latency_ms"] is None):
            which = "the seat's first" if first else "a later"
            problems.append(f"{where}: last_latency_ms {turn['last_latency_ms']} on {which} turn of the match")
    return problems


@pytest.fixture
def ladder_turns(owner, server, house_bots):
    """A web-table ladder of three seats with an 800 ms deadline, the bot on it, and the turns the bot was sent in
    real ladder matches (at least 60): ``(ladder, bot, turns)``."""
    ladder = ladder_create(name="Spot", slug="spot", preset="web-table", seats_per_match=3, target=50,
                           turn_timeout_ms=800)
    bot = bot_of(owner, server, "Spotter", active=True)
    for player in (bot.player, house_bots[1], house_bots[3]):
        ladder_entry_create(ladder=ladder, player=player)
    while len(server.bodies("turn")) < 60:
        (match,) = ladder_schedule_matches(ladder=ladder)
        assert match_advance(match_id=match.pk) == "finished"
    turns = server.bodies("turn")
    assert _inconsistencies(turns) == []  # what holds of real turns
    server.requests.clear()
    return ladder, bot, turns


@pytest.mark.django_db
def test_a_checks_turns_have_the_keys_and_value_shapes_of_a_real_ladder_matchs_turns(ladder_turns, server):
    ladder, bot, real = ladder_turns
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED, check.detail
    checked = server.bodies("turn")
    assert len(checked) >= 4
    for turn in checked:
        assert schema_errors("turn", turn) == []
        assert set(turn) == set(real[0]) and set(turn["view"]) == set(real[0]["view"])
        # drawn from the ladder the bot is on: its rules, seat count and deadline, the seat's real bank
        assert turn["ruleset"] == ladder.ruleset and len(turn["totals"]) == 3 and turn["deadline_ms"] == 800
        assert turn["time_bank_ms"] == real[0]["time_bank_ms"]
    real_shape, check_shape = {}, {}
    for turn in real:
        _shape(turn, into=real_shape)
    for turn in checked:
        _shape(turn, into=check_shape)
    assert set(check_shape) <= set(real_shape), set(check_shape) - set(real_shape)
    assert {p: k - real_shape[p] for p, k in check_shape.items() if k - real_shape[p]} == {}


@pytest.mark.django_db
def test_a_checks_turns_and_match_ends_hang_together_as_a_real_matchs_do(ladder_turns, server):
    ladder, bot, _real = ladder_turns
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED, check.detail
    sent = _sent(server)
    turns = [body for kind, _s, body in sent if kind == "turn"]
    assert _inconsistencies(turns) == []
    seat_of = {turn["match_id"]: turn["you"] for turn in turns}
    target = Ruleset.from_dict(ladder.ruleset).target_for(3)
    for end in (body for kind, _s, body in sent if kind == "match_end"):
        assert schema_errors("match_end", end) == []
        assert end["you"] == seat_of[end["match_id"]]  # a match the bot played, in the seat it had there
        assert max(end["totals"]) >= target  # played to its end: lowest total first
        assert end["standings"][end["totals"].index(min(end["totals"]))] == 1
