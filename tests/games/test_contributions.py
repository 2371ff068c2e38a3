"""Deals nobody alone chose (issue 20 item 3; docs/FAIRNESS.md, "Contributions"): the service commits to its secret
when the match is created, before any seat sends anything; each seat's first contribution during a deal (a bot's
reply field, a person's move, the operating system for a house seat) goes into the next deal's key; the record
publishes every contribution and the offline replay derives every key from them. A real bot over HTTP on loopback."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from bot_servers import BotServer
from run_cache import clear_this_runs_cache
from bots_api.models import BotTurn
from eights_engine import Ruleset
from eights_engine.record import verify_record
from games.models import Deal, Match, Move
from games.services import match_advance, match_create, player_for_user, takes_contributions
from tournaments.duplicate_services import duplicate_set_create
from tournaments.services import ladder_create
from personas import bot_of

SHORT = Ruleset.preset("pagat", target=60)


def _key(record: dict, deal: dict) -> str:
    """A deal's key from the published secret and contributions, as docs/FAIRNESS.md writes it (no project code)."""
    parts = [bytes.fromhex(c or "") for c in deal.get("contributions") or []]
    tail = bytes([len(parts)]) + b"".join(bytes([len(p)]) + p for p in parts) if any(parts) else b"\0"
    return hashlib.sha256(b"eights-ladder/v2/deal\0" + bytes.fromhex(record["secret"])
                          + deal["number"].to_bytes(4, "big") + tail).hexdigest()


def _played_by_bot(owner, house, behaviour: str):
    """A finished match of a bot served with ``behaviour`` (tests/support/bot_servers.py) against ``house``:
    (bot, match)."""
    server = BotServer(behaviour, "s3cret")
    try:
        bot = bot_of(owner, server, "Mixer")
        match = match_create(players=[bot.player, house], ruleset=SHORT)
        assert takes_contributions(match) and len(match.commitment) == 64
        assert match_advance(match_id=match.pk) == "finished"
    finally:
        server.stop()
    return bot, match


@pytest.mark.django_db
def test_a_bots_contributions_go_into_the_next_deals_key_and_the_record_proves_it(owner, house_bots):
    bot, match = _played_by_bot(owner, house_bots[3], "contribution:random")
    record = APIClient().get(f"/api/matches/{match.pk}/record/").json()
    deals = record["deals"]
    assert len(deals) >= 2 and "contributions" not in deals[0]  # deal 1 was dealt before anyone could send one
    sent = {}  # per deal: the bot's first contribution in it, from the requests and replies the server saw
    for turn in BotTurn.objects.filter(bot=bot, match_id=match.pk).order_by("deal_number", "ply"):
        assert turn.warning == "" or "counts already" in turn.warning
        sent.setdefault(turn.deal_number, json.loads(turn.reply)["contribution"])
    for deal in deals[1:]:
        given = deal["contributions"]
        assert given[0] == sent[deal["number"] - 1]  # the bot's first one in the deal before
        assert given[1] is None  # a house seat's would be the service's own: it sends none (docs/FAIRNESS.md)
        assert deal["key"] == _key(record, deal)
    verify_record(record)
    taken = Move.objects.filter(deal__match=match).exclude(contribution="").count()
    assert len(deals) - 1 <= taken <= len(deals)  # the bot's first in each deal, and none more
    # a contribution changed after the fact changes the key: the replay refuses the record at that deal
    record["deals"][1]["contributions"][0] = "00" * 32
    with pytest.raises(ValueError, match="deal 2: key expected"):
        verify_record(record)


@pytest.mark.django_db
def test_a_persons_moves_carry_their_browsers_contribution_and_a_bad_one_is_a_400(house_bots):
    person = get_user_model().objects.create_user("lin", password="pw-lin-12345")
    client = APIClient()
    client.force_authenticate(person)
    for _ in range(6):  # a deal can end the match at 60 (the cards are fresh each time): until one has two deals
        match, mine = _play_with_contributions(client, person, house_bots[3])
        record = client.get(f"/api/matches/{match.pk}/record/").json()
        if len(record["deals"]) >= 2:
            break
    assert len(record["deals"]) >= 2
    for deal in record["deals"][1:]:
        assert deal["contributions"][0] == mine[deal["number"] - 1] and deal["key"] == _key(record, deal)
    verify_record(record)


def _play_with_contributions(client, person, house) -> tuple[Match, dict[int, str]]:
    """Play a SHORT match of ``person`` (seat 0) against ``house`` to its end, each move carrying a contribution
    (bad ones first, refused with 400); returns the match and the contribution given first in each deal."""
    match = match_create(players=[player_for_user(user=person), house], ruleset=SHORT)
    mine, tried = {}, False
    for _ in range(3000):
        clear_this_runs_cache()  # the move throttle is not under test: this loop moves far faster than a person
        match_advance(match_id=match.pk)
        view = client.get(f"/api/matches/{match.pk}/seats/0/").json()
        if view["status"] != "running":
            break
        if not view["your_turn"]:
            continue
        for bad in ("xyz", "AB" * 4, "a", "ab" * 33, 7, 1234, None, "", ["ab"]) if not tried else ():
            refused = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                                  {"ply": view["ply"], "action": view["legal_actions"][0], "contribution": bad},
                                  format="json")
            assert refused.status_code == 400 and "contribution" in refused.content.decode(), refused.content
            assert "lowercase hex" in refused.content.decode(), (bad, refused.content)
        tried = True
        given = hashlib.sha256(f"{match.pk}:{view['ply']}".encode()).hexdigest()
        mine.setdefault(view["deal_number"], given)
        moved = client.post(f"/api/matches/{match.pk}/seats/0/actions/",
                            {"ply": view["ply"], "action": view["legal_actions"][0], "contribution": given},
                            format="json")
        assert moved.status_code == 200, moved.content
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match, mine


@pytest.mark.django_db
def test_a_bad_contribution_is_a_warning_in_the_turn_log_never_a_fault(owner, house_bots):
    bot, match = _played_by_bot(owner, house_bots[3], "contribution:XYZ")
    assert not Move.objects.filter(deal__match=match).exclude(fault_kind="").exists()
    turns = list(BotTurn.objects.filter(bot=bot, match_id=match.pk))
    assert turns and all("contribution is not lowercase hex: ignored" in t.warning for t in turns)
    rows = list(Deal.objects.filter(match=match).order_by("number"))
    assert all(row.contributions is None or row.contributions[0] is None for row in rows)


@pytest.mark.django_db
def test_matches_dealt_the_same_cards_or_from_a_chosen_seed_take_no_contributions(owner, house_bots):
    server = BotServer("contribution:" + "ab" * 32, "s3cret")
    try:
        bot = bot_of(owner, server, "Mixer")
        ladder = ladder_create(name="Dup", slug="dup", preset="pagat", seats_per_match=2, duplicate=True)
        mirror = duplicate_set_create(ladder=ladder, players=[bot.player, house_bots[3]])
        fixed = match_create(players=[bot.player, house_bots[2]], ruleset=SHORT, seed=5)
        for match in (*mirror, fixed):
            assert not takes_contributions(match)
            assert match_advance(match_id=match.pk) == "finished"
    finally:
        server.stop()
    for match in (*mirror, fixed):
        assert not Deal.objects.filter(match=match).exclude(contributions=None).exists()
        assert not Move.objects.filter(deal__match=match).exclude(contribution="").exists()
    quiet = BotTurn.objects.filter(bot=bot, match_id=fixed.pk)
    assert quiet and all(t.warning == "" for t in quiet)  # the bot did nothing wrong: no warning
    first, second = (list(Deal.objects.filter(match=m).order_by("number").values_list("key", flat=True))
                     for m in mirror)
    common = min(len(first), len(second))
    assert first[:common] == second[:common]  # the rotations still hold the same cards


@pytest.mark.django_db
def test_a_watchers_feed_deals_every_deal_with_its_contributions(owner, house_bots, monkeypatch):
    """The live feed (games.live.MatchFeed) follows the match's one engine state in this process (the state cache's,
    watched): each next deal must be dealt from the contributions the plies carried, or its public views would show
    another starter. Followed slice by slice while the match is played, its events are those a replay of the stored
    log gives, and it keeps no engine state of its own."""
    from games import live, state_cache

    replays = []
    replayed_events = live._replayed_events
    monkeypatch.setattr(live, "_replayed_events", lambda *a: replays.append(a) or replayed_events(*a))
    server = BotServer("contribution:random", "s3cret")
    try:
        bot = bot_of(owner, server, "Mixer")
        match = match_create(players=[bot.player, house_bots[3]], ruleset=SHORT)
        seats = live._seats(match)
        feed = live.MatchFeed(match, seats)
        followed, end = feed.advance(after=0)  # the first: one replay of the (empty) log
        while end is None:
            match_advance(match_id=match.pk, ply_budget=7)  # the worker's slice steps the cached, watched state
            events, end = feed.advance()
            followed += events
    finally:
        server.stop()
    assert len(replays) == 1 and not hasattr(feed, "state")  # one replay to start, then the watched state only
    rows = list(Deal.objects.filter(match=match).order_by("number"))
    assert len(rows) >= 2 and all(row.contributions for row in rows[1:])  # the bot's
    truth, _end, count = live.match_public_events(match=match, after=0)
    assert count == Match.objects.get(pk=match.pk).ply_count == len(followed)
    def same(data):  # the clock of the newest ply read is the match row's (it was the last then), not the ply's row
        return {**data, "public": {**data["public"], "clock": None}}
    assert [same(data) for _ply, data in followed] == [same(data) for _ply, data in truth]
    cached = state_cache.take(state_cache.key_of(match))
    assert cached is not None and cached.watched is not None and cached.watched[-1].ply == count
