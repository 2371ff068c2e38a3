"""A check cannot be told from real play (docs/BOT_PROTOCOL.md, "Checks look like real turns"): its turns carry
match ids drawn from just above the newest real match (never a constant), positions of real deals from random
seeds besides the tricky ones, the real time bank, the service's client and headers. So a bot that plays well only
for the checker's requests fails the check.

Real bots over HTTP on loopback (tests/support/bot_servers.py), the service's check run in-process.
"""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from bot_servers import BotServer
from bots_api import check as conformance
from bots_api.models import Bot, BotCheck
from bots_api.protocol import schema_errors
from bots_api import services
from bots_api.services import bot_check_request, bot_check_run, bot_register
from games.engine import Ruleset
from games.models import Player
from games.services import match_advance, match_create


@pytest.fixture
def server():
    started = BotServer("good", "s3cret")
    yield started
    started.stop()


def _bot(owner, server) -> Bot:
    bot, _secret = bot_register(owner=owner, name="Spotter", endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret")
    bot.refresh_from_db()
    return bot


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
    bot = _bot(owner, server)
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
    bot = _bot(owner, server)
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
    """``python -m bots_api.check`` (no database): random ids, never the old constant; dealt matches played from
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
        assert len(dealt) >= conformance.DEALT_MATCHES * conformance.DEALT_TURNS - 1  # ids may collide rarely
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
    bot = _bot(owner, server)
    settings.BOT_TIME_BANK_MS = 5000
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED, check.detail
    settings.BOT_TIME_BANK_MS = 0
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.FAILED and "past the 150 ms deadline" in check.detail, check.detail
