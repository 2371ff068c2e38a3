"""Versions (issues 14 and 26): the version a bot runs is recorded with every match it plays (what it says to a ping
at its first turn; before that, the version of its last check), and its page shows results and rating movement per
version, in one query."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots_api.models import Bot, BotMatchVersion
from bots_api.services import match_end_notify
from bots_api.versions import bot_versions
from eights_engine import Ruleset
from games.services import match_advance, match_create
from tournaments.models import LadderMatch, RatingChange
from tournaments.services import ladder_entry_create

from bot_servers import BotServer
from personas import bot_of


@pytest.fixture
def server():
    srv = BotServer("good", "s3cret")
    yield srv
    srv.stop()


def _ladder_match(ladder, bot, house, seed):
    match = match_create(players=[bot.player, house], ruleset=Ruleset.preset("pagat"), seed=seed)
    LadderMatch.objects.create(ladder=ladder, match=match)
    assert match_advance(match_id=match.pk) == "finished"
    match_end_notify(match_id=match.pk)  # the bots' worker's task after the commit: match_end, then the ping
    return match


@pytest.mark.django_db
def test_each_match_records_the_version_the_bot_says_it_runs(owner, server, ladder, house_bots):
    bot = bot_of(owner, server, "Versioned", version="1.0")
    ladder_entry_create(ladder=ladder, player=bot.player)
    first = [_ladder_match(ladder, bot, house_bots[3], seed) for seed in (1, 2)]
    server.version = "2.0-beta"  # the author changed the bot and restarted it, without a new check
    second = _ladder_match(ladder, bot, house_bots[0], 3)
    assert Bot.objects.get(pk=bot.pk).reported_version == "1.0"  # its last check's: the match has what it said
    assert BotMatchVersion.objects.get(match=second).said
    kinds = [json.loads(body)["type"] for _headers, body in server.requests]
    assert kinds[-2:] == ["match_end", "ping"]  # asked after the match_end, as a check asks after its turns
    assert "ping" not in kinds[:kinds.index("match_end")]  # never before a turn is judged
    unrecorded = _ladder_match(ladder, bot, house_bots[1], 4)
    BotMatchVersion.objects.filter(match=unrecorded).delete()  # as a match played before versions were kept
    assert dict(BotMatchVersion.objects.filter(bot=bot).values_list("match_id", "version")) == {
        first[0].pk: "1.0", first[1].pk: "1.0", second.pk: "2.0-beta"}
    assert not BotMatchVersion.objects.filter(match__in=first, seat=1).exists()  # house seats have none

    with CaptureQueriesContext(connection) as queries:
        stats = {s.version: s for s in bot_versions(bot=bot)}
    assert len(queries) == 1
    assert [s.version for s in bot_versions(bot=bot)] == ["", "2.0-beta", "1.0"]  # most recently played first
    v1 = stats["1.0"]
    seats = [m.seats.get(index=0) for m in first]
    assert (v1.matches, v1.finished, v1.rated) == (2, 2, 2)
    assert v1.wins == sum(s.place == 1 for s in seats)
    assert v1.mean_place == pytest.approx(sum(s.place for s in seats) / 2)
    changes = RatingChange.objects.filter(match__in=first, entry__player=bot.player)
    assert v1.rating_change == pytest.approx(sum(c.delta for c in changes)) and v1.rating_change != 0
    assert stats["2.0-beta"].matches == 1 and stats[""].matches == 1

    client = Client()
    client.force_login(owner)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert 'id="bot-versions"' in page and "2.0-beta" in page and "not recorded" in page
    api = client.get(f"/api/bots/{bot.pk}/versions/").json()
    assert [row["version"] for row in api] == ["", "2.0-beta", "1.0"] and api[2]["matches"] == 2
    stranger = get_user_model().objects.create_user("bob", password="pw-bob-123")
    client.force_login(stranger)
    assert client.get(f"/api/bots/{bot.pk}/versions/").status_code == 404


@pytest.mark.django_db
def test_a_bot_that_does_not_answer_the_ping_keeps_its_last_checks_version(owner, ladder, house_bots):
    srv = BotServer("good", "s3cret", version="3.1")
    bot = bot_of(owner, srv, "Quiet", version="3.0")  # its last check said 3.0
    srv.stop()  # gone: the ping and every turn fail (the turns are its faults, played by the fallback)
    match = match_create(players=[bot.player, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=5)
    match_advance(match_id=match.pk)
    match_end_notify(match_id=match.pk)
    row = BotMatchVersion.objects.get(match=match)
    assert (row.version, row.said) == ("3.0", False)
