"""The turn log (issue 14): every turn of a bot, as its own HTTP server received it, for its owner only.

Real bot servers on loopback (tests/support/bot_servers.py), real PostgreSQL. Personas: the owner (ada), another
owner (bob, with a bot of his own), anonymous.
"""

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from bots_api.models import BotTurn
from eights_engine.bots.protocol import DEBUG_MAX_CHARS, reply_debug, schema_errors
from bots_api.turnlog import turn_log_prune
from eights_engine import Ruleset
from games.models import Move
from games.services import match_advance, match_create
from personas import bot_of


NOTE = "secret-plan-7f3a: keep the eights"


def _played(bot, house, seed=7):
    match = match_create(players=[bot.player, house], ruleset=Ruleset.preset("pagat"), seed=seed, turn_timeout_ms=1000)
    assert match_advance(match_id=match.pk) == "finished"
    return match


def _client(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_turn_log_holds_exactly_what_the_bot_was_sent(owner, servers, house_bots):
    server = servers(f"debug:{NOTE}")
    bot = bot_of(owner, server)
    match = _played(bot, house_bots[3])
    sent = [raw for _headers, raw in server.requests if json.loads(raw)["type"] == "turn"]
    logged = list(BotTurn.objects.filter(bot=bot).order_by("id"))
    assert sent and [t.request.encode() for t in logged] == sent  # byte for byte, in order
    moves = {(m.deal.number, m.ply): m for m in Move.objects.filter(deal__match=match, seat=0).select_related("deal")}
    assert len(logged) == len(moves)
    for turn in logged:
        body = json.loads(turn.request)
        assert (turn.match_id, turn.deal_number, turn.ply, turn.seat) == (match.pk, body["deal_number"], body["ply"], 0)
        assert "hands" not in body["view"] and "stock" not in body["view"]  # only the bot's own view
        reply = json.loads(turn.reply)
        assert reply["debug"] == NOTE and turn.debug == NOTE and turn.warning == ""
        assert reply["action"] == moves[(turn.deal_number, turn.ply)].action
        assert turn.status == 200 and turn.latency_ms == moves[(turn.deal_number, turn.ply)].think_ms >= 1
        assert turn.reply_bytes == len(turn.reply.encode())


@pytest.mark.django_db
def test_the_api_joins_the_fault_and_fallback_from_the_stored_move_and_filters_by_it(owner, servers, house_bots):
    bot = bot_of(owner, servers("alternate500"))
    match = _played(bot, house_bots[3])
    client = _client(owner)
    url = f"/api/bots/{bot.pk}/turns/"
    faulted = client.get(url, {"fault": "http_status", "page_size": 100}).json()["results"]
    stood = client.get(url, {"fault": "none", "page_size": 100}).json()["results"]
    assert faulted and stood
    assert all(t["fault_kind"] == "http_status" and t["source"] == "fallback" and t["status"] == 500
               and t["reply"] == {"error": "boom"} and t["played"] in t["request"]["legal_actions"] for t in faulted)
    assert all(t["fault_kind"] == "" and t["source"] == "agent" and t["played"] == t["reply"]["action"]
               for t in stood)
    assert client.get(url, {"fault": "timeout"}).json()["results"] == []
    from bots_api.turnlog import bot_turns, check_turn_filters

    def count(fault):
        return bot_turns(bot=bot, filters=check_turn_filters({"fault": fault})).count()

    moves = Move.objects.filter(deal__match=match, seat=0)
    assert count("http_status") == count("any") == moves.filter(fault_kind="http_status").count() > 0
    assert count("none") == moves.filter(fault_kind="").count() > 0
    assert count("http_status") + count("none") == BotTurn.objects.filter(bot=bot).count() == moves.count()


@pytest.mark.django_db
def test_filters_and_keyset_pages(owner, servers, house_bots):
    bot = bot_of(owner, servers("good"))
    first, second = _played(bot, house_bots[3], seed=7), _played(bot, house_bots[3], seed=8)
    client = _client(owner)
    url = f"/api/bots/{bot.pk}/turns/"
    only = client.get(url, {"match": first.pk, "page_size": 100}).json()
    assert {t["match"] for t in only["results"]} == {first.pk}
    deal2 = client.get(url, {"match": second.pk, "deal": 2, "page_size": 100}).json()["results"]
    assert deal2 and {(t["match"], t["deal"]) for t in deal2} == {(second.pk, 2)}
    one = client.get(url, {"match": second.pk, "deal": 2, "ply": deal2[-1]["ply"]}).json()["results"]
    assert [t["id"] for t in one] == [deal2[-1]["id"]]
    seen, page = [], client.get(url, {"page_size": 7}).json()
    while True:
        assert len(page["results"]) <= 7
        seen += [t["id"] for t in page["results"]]
        if not page["next"]:
            break
        page = client.get(page["next"]).json()
    assert seen == list(BotTurn.objects.filter(bot=bot).order_by("-id").values_list("id", flat=True))
    assert client.get(url, {"page_size": 1000}).json()["results"].__len__() == 100


@pytest.mark.django_db
@pytest.mark.parametrize("query, param", [
    ({"match": "abc"}, "match"), ({"match": "0"}, "match"), ({"deal": "2"}, "deal"), ({"match": "1", "deal": "0"}, "deal"),
    ({"match": "1", "ply": "3"}, "ply"), ({"fault": "bogus"}, "fault"), ({"match": "1" * 30}, "match"),
    ({"cursor": "not-a-cursor"}, "cursor"),
])
def test_bad_filters_are_400_saying_which_parameter(owner, servers, query, param):
    bot = bot_of(owner, servers("good"))
    for url in (f"/api/bots/{bot.pk}/turns/", f"/api/bots/{bot.pk}/turns.ndjson"):
        if param == "cursor" and url.endswith("ndjson"):
            continue
        answer = _client(owner).get(url, query)
        assert answer.status_code == 400, (url, query)
        body = answer.json()
        assert body["error"] == "invalid_filter" and body["detail"].startswith(f"{param}:")
    page = _client(owner).get(f"/bots/{bot.pk}/turns/", query)
    assert page.status_code == (200 if param == "cursor" else 400)


@pytest.mark.django_db
def test_a_debug_too_long_is_cut_and_one_not_a_string_is_dropped_with_a_warning_and_no_fault(owner, servers, house_bots):
    long_bot = bot_of(owner, servers("debuglong"), name="Longwinded")
    num_bot = bot_of(owner, servers("debugnum"), name="Numbers")
    for bot in (long_bot, num_bot):
        match = _played(bot, house_bots[3])
        assert not Move.objects.filter(deal__match=match, seat=0).exclude(fault_kind="").exists()  # no fault
        assert match.seats.get(index=0).forfeited is False
    turn = BotTurn.objects.filter(bot=long_bot).first()
    assert turn.debug == "x" * DEBUG_MAX_CHARS and "1500 characters" in turn.warning
    turn = BotTurn.objects.filter(bot=num_bot).first()
    assert turn.debug == "" and "a number, not a string" in turn.warning
    row = _client(owner).get(f"/api/bots/{num_bot.pk}/turns/").json()["results"][0]
    assert row["debug"] == "" and "not a string" in row["debug_warning"]


def test_the_protocol_documents_debug_and_judges_it_apart_from_the_action():
    action = {"type": "draw"}
    assert schema_errors("turn_reply", {"action": action, "debug": "fine"}) == []
    assert schema_errors("turn_reply", {"action": action, "debug": "x" * (DEBUG_MAX_CHARS + 1)})  # documented cap
    assert schema_errors("turn_reply_play", {"action": action, "debug": 5}) == []  # ... but never a fault
    assert reply_debug({"action": action}) == ("", "")
    assert reply_debug({"action": action, "debug": "ok"}) == ("ok", "")
    assert reply_debug({"action": action, "debug": ["a"]})[1].startswith("debug is a list")


@pytest.mark.django_db
def test_nul_and_broken_utf8_in_a_reply_are_stored_not_crashing(owner, servers, house_bots):
    bot = bot_of(owner, servers("debug:a\u0000b"))
    _played(bot, house_bots[3])
    turn = BotTurn.objects.filter(bot=bot).first()
    assert turn.debug == "a\ufffdb"


@pytest.mark.django_db
def test_the_debug_note_and_the_requests_reach_nobody_but_the_owner(owner, stranger, servers, house_bots):
    bot = bot_of(owner, servers(f"debug:{NOTE}"))
    match = _played(bot, house_bots[3])
    turn = BotTurn.objects.filter(bot=bot).first()
    pages = [f"/api/bots/{bot.pk}/turns/", f"/api/bots/{bot.pk}/turns.ndjson", f"/bots/{bot.pk}/turns/",
             f"/bots/{bot.pk}/", f"/api/bots/{bot.pk}/", f"/api/bots/{bot.pk}/versions/",
             f"/matches/{match.pk}/", f"/matches/{match.pk}/replay/", f"/api/matches/{match.pk}/",
             f"/api/matches/{match.pk}/record/", f"/players/{bot.name}/", f"/api/players/{bot.name}/",
             f"/api/bots/{bot.pk}/turns/?match={match.pk}&deal={turn.deal_number}&ply={turn.ply}"]
    for who in (stranger, None):
        client = _client(who)
        for url in pages:
            answer = client.get(url)
            content = b"".join(answer.streaming_content) if answer.streaming else answer.content
            assert NOTE.encode() not in content, (who, url)
            assert b"replay-seat-tools" not in content and b"What Probe saw" not in content, (who, url)
            if "/api/bots/" in url:
                assert answer.status_code in (401, 403, 404), (who, url)
                if who is not None:  # another owner learns nothing: the answer of a bot that does not exist
                    assert answer.status_code == 404 and answer.json()["error"] == "not_found", url
                    assert "Probe" not in answer.json()["detail"]
            if url.startswith("/bots/") and who is not None:
                assert answer.status_code == 404
    mine = _client(owner)
    for url in (f"/api/bots/{bot.pk}/turns/", f"/bots/{bot.pk}/turns/"):
        assert NOTE in mine.get(url).content.decode()
    replay = mine.get(f"/matches/{match.pk}/replay/").content.decode()
    assert 'id="replay-seat-tools"' in replay and f"/api/bots/{bot.pk}/turns/" in replay and NOTE not in replay
    assert mine.get(f"/api/bots/{bot.pk + 999}/turns/").status_code == 404


@pytest.mark.django_db
def test_the_ndjson_download_streams_every_turn_oldest_first(owner, servers, house_bots, monkeypatch):
    from bots_api import turnlog

    monkeypatch.setattr(turnlog, "EXPORT_BATCH", 5)  # several batches even for one short match
    bot = bot_of(owner, servers(f"debug:{NOTE}"))
    match = _played(bot, house_bots[3])
    answer = _client(owner).get(f"/api/bots/{bot.pk}/turns.ndjson")
    assert answer.status_code == 200 and answer.streaming
    assert answer["Content-Type"] == "application/x-ndjson" and "attachment" in answer["Content-Disposition"]
    lines = b"".join(answer.streaming_content).decode().splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["id"] for r in rows] == list(BotTurn.objects.filter(bot=bot).order_by("id").values_list("id", flat=True))
    assert len(rows) > 5 and all(r["debug"] == NOTE and r["match"] == match.pk and r["played"] for r in rows)
    filtered = _client(owner).get(f"/api/bots/{bot.pk}/turns.ndjson", {"match": match.pk, "deal": 1})
    assert {json.loads(line)["deal"] for line in b"".join(filtered.streaming_content).splitlines()} == {1}


@pytest.mark.django_db
def test_old_turn_logs_are_pruned_after_turn_log_days(owner, servers, house_bots, settings, monkeypatch):
    from bots_api import turnlog

    monkeypatch.setattr(turnlog, "PRUNE_BATCH", 7)  # several statements even for one match's turns
    settings.TURN_LOG_DAYS = 30
    bot = bot_of(owner, servers("good"))
    _played(bot, house_bots[3])
    ids = list(BotTurn.objects.filter(bot=bot).order_by("id").values_list("id", flat=True))
    old, recent = ids[: len(ids) // 2], ids[len(ids) // 2:]
    BotTurn.objects.filter(id__in=old).update(created_at=timezone.now() - timedelta(days=30, minutes=1))
    BotTurn.objects.filter(id__in=recent[:1]).update(created_at=timezone.now() - timedelta(days=29, hours=23))
    assert turn_log_prune() == len(old)
    assert list(BotTurn.objects.filter(bot=bot).order_by("id").values_list("id", flat=True)) == recent
    BotTurn.objects.filter(id__in=recent).update(created_at=timezone.now() - timedelta(days=31))
    call_command("prune_turn_logs", stdout=open("/dev/null", "w"))
    assert not BotTurn.objects.filter(bot=bot).exists()
    assert Move.objects.filter(deal__match__seats__player=bot.player).exists()  # the match record stays


def test_the_prune_task_is_on_the_beat_schedule(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["turn-log-prune"]
    assert entry["task"] == "bots_api.tasks.prune_turn_logs"
    from bots_api.tasks import prune_turn_logs

    assert prune_turn_logs.name == entry["task"]


@pytest.mark.django_db
def test_the_turn_log_page_and_api_take_a_fixed_number_of_queries(owner, servers, house_bots,
                                                                  django_assert_max_num_queries):
    bot = bot_of(owner, servers(f"debug:{NOTE}"))
    _played(bot, house_bots[3], seed=7)
    _played(bot, house_bots[3], seed=8)
    assert BotTurn.objects.filter(bot=bot).count() > 50
    client = _client(owner)
    client.get(f"/bots/{bot.pk}/turns/")  # the session's first read
    with django_assert_max_num_queries(8):  # session, user, the bot (with its ladder entries), the turns, their moves,
        # the table seats kept for the person and the bell's unread count (every page: the context processors)
        page = client.get(f"/bots/{bot.pk}/turns/", {"fault": "none"})
    assert page.status_code == 200 and page.content.decode().count('class="turn-debug"') == 25
    assert 'id="turns-older"' in page.content.decode()
    with django_assert_max_num_queries(6):
        answer = client.get(f"/api/bots/{bot.pk}/turns/", {"page_size": 100})
    assert len(answer.json()["results"]) == 100


@pytest.mark.django_db
def test_a_running_match_shows_no_turns_even_to_the_owner_until_it_is_finished(owner, servers, house_bots):
    bot = bot_of(owner, servers(f"debug:{NOTE}"))
    match = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=7)
    assert match_advance(match_id=match.pk, ply_budget=6) == "budget"
    assert BotTurn.objects.filter(bot=bot, match=match).exists()  # logged ...
    client = _client(owner)
    assert client.get(f"/api/bots/{bot.pk}/turns/").json()["results"] == []  # ... but the bot's hand is its own
    assert NOTE not in client.get(f"/bots/{bot.pk}/turns/").content.decode()
    assert b"".join(client.get(f"/api/bots/{bot.pk}/turns.ndjson").streaming_content) == b""
    assert match_advance(match_id=match.pk) == "finished"
    assert client.get(f"/api/bots/{bot.pk}/turns/").json()["results"]


@pytest.mark.django_db
def test_a_finished_match_of_a_duplicate_set_shows_no_turns_while_its_mirror_runs(owner, servers, house_bots):
    bot = bot_of(owner, servers("good"))
    played = match_create(players=[bot.player, house_bots[3]], ruleset=Ruleset.preset("pagat"), seed=7,
                          reveal_group="dup-1")
    mirror = match_create(players=[house_bots[3], bot.player], ruleset=Ruleset.preset("pagat"), seed=7,
                          reveal_group="dup-1")
    assert match_advance(match_id=played.pk) == "finished"
    client = _client(owner)
    assert BotTurn.objects.filter(match=played).exists()
    assert client.get(f"/api/bots/{bot.pk}/turns/", {"match": played.pk}).json()["results"] == []
    assert match_advance(match_id=mirror.pk) == "finished"
    assert client.get(f"/api/bots/{bot.pk}/turns/", {"match": played.pk}).json()["results"]


@pytest.mark.django_db
def test_each_turn_log_row_links_the_replay_after_its_ply(owner, servers, house_bots):
    bot = bot_of(owner, servers("good"))
    match = _played(bot, house_bots[3])
    turn = BotTurn.objects.filter(bot=bot, match=match).order_by("deal_number", "ply")[3]
    page = _client(owner).get(f"/bots/{bot.pk}/turns/", {"match": match.pk, "deal": turn.deal_number,
                                                          "ply": turn.ply}).content.decode()
    assert f"deal {turn.deal_number} · ply {turn.ply} ·" in page
    # the replay's ply counts plies applied: the position after this turn is ply + 1
    assert f'href="/matches/{match.pk}/replay/?deal={turn.deal_number}&amp;ply={turn.ply + 1}"' in page
