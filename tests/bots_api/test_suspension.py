"""The fault policy (docs/BOT_PROTOCOL.md, "Faults and the fault policy"): a bot is judged by its own faults.

A match is failed for a bot when it forfeited it or faulted on at least ``BOT_FAILED_MATCH_FAULT_SHARE`` of its
turns in it; ``BOT_SUSPEND_AFTER_FAILED_MATCHES`` failed matches in a row suspend it. A suspension is lifted only by
a check the owner asks for that passes every conformance check (a ping and several turn positions), not by one good
ping; the ladder entries stay while the bot is suspended (it is not scheduled) and it plays on from them afterwards.
A lifted bot is on probation (one failed match suspends it again), and the second and later suspensions have a
cool-off, doubling each time, before which no check lifts them.

Real bots over HTTP on loopback (tests/support/bot_servers.py), matches played by the real match loop in-process.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from bots_api.models import Bot, BotCheck
from bots_api.services import BotError, bot_check_request, bot_check_run, bot_enter_ladder, bot_verify
from eights_engine import MatchState, Ruleset
from eights_engine.strategies import fallback_action
from games.models import Match, Move, Player
from games.services import match_advance, match_create
from tournaments.models import LadderEntry
from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches
from personas import bot_of


def _first_to_forfeit(seed: int) -> int:
    """The seat that forfeits first in a two-seat pagat match with this seed when both seats fault on every turn
    (each turn is then the engine's fallback action, so the match is the same as the service plays it)."""
    state = MatchState.start(Ruleset.preset("pagat"), 2, seed)
    faults = [0, 0]
    while True:
        seat = state.to_play
        state.apply(fallback_action(state.legal_actions()))
        faults[seat] += 1
        if faults[seat] == 3:  # BOT_MAX_CONSECUTIVE_FAULTS
            return seat


@pytest.mark.django_db
@pytest.mark.parametrize("behaviour,kind", [("notheld", "illegal"), ("huge", "oversize")])
def test_a_bot_faulting_every_turn_is_suspended_even_when_its_opponent_forfeits_first(
        behaviour, kind, owner, servers, settings):
    settings.BOT_TIME_BANK_MS = 0
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 3
    bad = bot_of(owner, servers(behaviour), "Bad", active=True)
    rival = get_user_model().objects.create_user("bo", password="pw-bo-123")  # no match seats two bots of one owner
    worse = bot_of(rival, servers("status:500"), "Worse", active=True)  # seated to reach 3 faults (a forfeit) first
    for seed in (1, 2, 3):
        seats = [worse.player, bad.player] if _first_to_forfeit(seed) == 0 else [bad.player, worse.player]
        match = match_create(players=seats, ruleset=Ruleset.preset("pagat"), seed=seed, turn_timeout_ms=300)
        assert match_advance(match_id=match.pk) == "finished"
        bad_seat = match.seats.get(player=bad.player)
        assert match.seats.get(player=worse.player).forfeited and not bad_seat.forfeited
        turns = Move.objects.filter(deal__match=match, seat=bad_seat.index)
        assert turns.exists() and not turns.filter(fault_kind="").exists()  # every turn of Bad faulted
        bad.refresh_from_db()
        assert bool(bad.suspended_reason) == (seed == 3)
    assert bad.consecutive_failed_matches == 3
    assert "failed 3 matches in a row" in bad.suspended_reason and kind in bad.suspended_reason
    assert not Player.objects.get(pk=bad.player_id).is_active


@pytest.mark.django_db
def test_a_bot_faulting_most_turns_without_ever_forfeiting_plays_at_most_n_ladder_matches(
        owner, servers, house_bots, settings):
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 3
    ladder = ladder_create(name="Short", slug="short", target=40)  # short matches: the test is about how many
    for house in house_bots[1:]:
        ladder_entry_create(ladder=ladder, player=house)
    server = servers("mostly500")  # two faults, one good answer, ...: never three in a row, so never a forfeit
    bot = bot_of(owner, server, "Flaky", active=True)
    ladder_entry_create(ladder=ladder, player=bot.player)
    for _ in range(6):  # every entry plays in every round (four entries, two seats a match)
        for match in ladder_schedule_matches(ladder=ladder):
            assert match_advance(match_id=match.pk) == "finished"
    played = Match.objects.filter(seats__player=bot.player)
    assert played.count() == 3
    assert not played.filter(seats__player=bot.player, seats__forfeited=True).exists()
    bot.refresh_from_db()
    assert "failed 3 matches in a row" in bot.suspended_reason and "of its" in bot.suspended_reason
    # its entry stays (rating kept); it is not scheduled while suspended
    assert LadderEntry.objects.get(ladder=ladder, player=bot.player).is_active


@pytest.mark.django_db
def test_a_match_with_mostly_good_answers_resets_the_count(owner, servers, house_bots, settings):
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 3
    server = servers("mostly500")
    bot = bot_of(owner, server, "Mended", active=True)
    short = Ruleset.preset("pagat", target=40)
    for seed in (1, 2):
        match_advance(match_id=match_create(players=[bot.player, house_bots[0]], ruleset=short, seed=seed).pk)
    bot.refresh_from_db()
    assert bot.consecutive_failed_matches == 2 and not bot.suspended_reason
    server.behaviour = "good"
    match_advance(match_id=match_create(players=[bot.player, house_bots[0]], ruleset=short, seed=3).pk)
    bot.refresh_from_db()
    assert bot.consecutive_failed_matches == 0 and not bot.suspended_reason


@pytest.mark.django_db
def test_one_good_ping_does_not_lift_a_suspension_but_a_check_passing_every_position_does(
        owner, servers, house_bots, ladder, settings):
    settings.BOT_TIME_BANK_MS = 0
    server = servers("status:500")
    bot = bot_of(owner, server, "Comeback", active=True)
    ladder_entry_create(ladder=ladder, player=bot.player)
    for seed in range(1, settings.BOT_SUSPEND_AFTER_FAILED_MATCHES + 1):
        match_advance(match_id=match_create(players=[bot.player, house_bots[0]],
                                            ruleset=Ruleset.preset("pagat"), seed=seed).pk)
    bot.refresh_from_db()
    assert bot.suspended_reason and "http_status" in bot.suspended_reason

    server.behaviour = "notheld"  # answers the ping well, but plays cards it does not hold
    with pytest.raises(BotError) as failed:
        bot_verify(bot=bot)
    assert failed.value.code == "verify_failed" and "illegal action" in failed.value.detail
    bot.refresh_from_db()
    assert bot.suspended_reason and not Player.objects.get(pk=bot.player_id).is_active
    with pytest.raises(BotError, match="suspended"):
        bot_enter_ladder(bot=bot, ladder=ladder)
    scheduled = {s.player_id for m in ladder_schedule_matches(ladder=ladder) for s in m.seats.all()}
    assert bot.player_id not in scheduled
    Match.objects.filter(status=Match.Status.RUNNING).update(status=Match.Status.ABORTED)

    server.behaviour = "good"  # the owner fixed the bot and asks for a check
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED, check.detail
    bot.refresh_from_db()
    assert bot.suspended_reason == "" and bot.can_play
    assert bot.consecutive_failed_matches == settings.BOT_SUSPEND_AFTER_FAILED_MATCHES - 1  # on probation
    assert Player.objects.get(pk=bot.player_id).is_active
    assert LadderEntry.objects.get(ladder=ladder, player=bot.player).is_active  # it plays on from its entries
    scheduled = {s.player_id for m in ladder_schedule_matches(ladder=ladder) for s in m.seats.all()}
    assert bot.player_id in scheduled


def _fail_matches(bot, house_bots, count, seed=1):
    for n in range(count):
        match_advance(match_id=match_create(players=[bot.player, house_bots[0]], ruleset=Ruleset.preset("pagat"),
                                            seed=seed + n).pk)
    bot.refresh_from_db()


@pytest.mark.django_db
def test_a_bot_faulting_on_every_second_turn_is_suspended_after_n_matches(owner, servers, house_bots, settings):
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 3
    settings.BOT_FAILED_MATCH_FAULT_SHARE = 0.25
    server = servers("alternate500")
    bot = bot_of(owner, server, "Halfway", active=True)
    short = Ruleset.preset("pagat", target=40)
    for seed in (1, 2, 3):
        match = match_create(players=[bot.player, house_bots[0]], ruleset=short, seed=seed)
        assert match_advance(match_id=match.pk) == "finished"
        seat = match.seats.get(player=bot.player)
        assert not seat.forfeited  # never two faults in a row
        turns = Move.objects.filter(deal__match=match, seat=seat.index)
        # at most half faulted (every second turn: one more fault than answers when the bot had an odd number)
        assert turns.filter(fault_kind="").count() + 1 >= turns.exclude(fault_kind="").count()
        bot.refresh_from_db()
        assert bool(bot.suspended_reason) == (seed == 3)
    assert "failed 3 matches in a row" in bot.suspended_reason and "of its" in bot.suspended_reason
    assert not Player.objects.get(pk=bot.player_id).is_active


@pytest.mark.django_db
def test_a_bot_faulting_on_fewer_than_the_share_of_its_turns_is_not_counted(owner, servers, house_bots, settings):
    settings.BOT_FAILED_MATCH_FAULT_SHARE = 0.75  # every second turn is then below the share
    bot = bot_of(owner, servers("alternate500"), "Tolerated", active=True)
    match_advance(match_id=match_create(players=[bot.player, house_bots[0]],
                                        ruleset=Ruleset.preset("pagat", target=40), seed=1).pk)
    bot.refresh_from_db()
    assert bot.consecutive_failed_matches == 0


@pytest.mark.django_db
def test_probation_after_a_lifted_suspension_re_suspends_after_one_failed_match(owner, servers, house_bots, settings):
    settings.BOT_TIME_BANK_MS = 0
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 3
    server = servers("status:500")
    bot = bot_of(owner, server, "Probation", active=True)
    _fail_matches(bot, house_bots, 3)
    assert bot.suspended_reason and bot.suspension_count == 1 and bot.suspended_until is None
    server.behaviour = "good"
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED and "probation" in check.detail, check.detail
    bot.refresh_from_db()
    assert bot.can_play and bot.consecutive_failed_matches == 2
    server.behaviour = "status:500"
    _fail_matches(bot, house_bots, 1, seed=10)
    assert bot.suspended_reason and bot.suspension_count == 2 and not bot.can_play
    assert bot.suspended_reason.startswith("suspension 2: failed a match on probation, or 3 in a row (last: match ")


@pytest.mark.django_db
def test_a_second_suspension_cannot_be_lifted_before_its_cool_off_which_doubles(
        owner, servers, house_bots, settings):
    settings.BOT_TIME_BANK_MS = 0
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 1
    settings.BOT_SUSPENSION_COOLOFF_MINUTES = 60
    server = servers("status:500")
    bot = bot_of(owner, server, "Repeat", active=True)
    _fail_matches(bot, house_bots, 1)
    assert bot.suspension_count == 1 and bot.suspended_until is None
    server.behaviour = "good"
    assert bot_check_run(check_id=bot_check_request(bot=bot).pk).state == BotCheck.State.PASSED
    server.behaviour = "status:500"
    before = timezone.now()
    _fail_matches(bot, house_bots, 1, seed=5)
    assert bot.suspension_count == 2 and bot.suspended_reason
    assert timedelta(minutes=59) < bot.suspended_until - before < timedelta(minutes=61)

    server.behaviour = "good"  # fixed at once: the check passes, but the suspension stays until the cool-off ends
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert check.state == BotCheck.State.PASSED and "suspension stays" in check.detail, check.detail
    bot.refresh_from_db()
    assert bot.suspended_reason and not bot.can_play and not Player.objects.get(pk=bot.player_id).is_active
    assert "at or after" in bot.suspension_lift

    api = APIClient()
    api.force_authenticate(owner)
    shown = api.get(f"/api/bots/{bot.pk}/").json()
    assert shown["suspension_count"] == 2 and shown["suspended_until"] and "at or after" in shown["suspension_lift"]
    page = Client()
    page.force_login(owner)
    html = page.get(reverse("bot-detail", args=[bot.pk])).content.decode()
    assert "This is suspension 2: only a check that passes at or after" in html

    Bot.objects.filter(pk=bot.pk).update(suspended_until=timezone.now() - timedelta(seconds=1))  # the hour passed
    check = bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert "suspension is lifted" in check.detail, check.detail
    bot.refresh_from_db()
    assert bot.can_play and bot.suspended_until is None

    server.behaviour = "status:500"  # a third suspension: twice the cool-off
    before = timezone.now()
    _fail_matches(bot, house_bots, 1, seed=9)
    assert bot.suspension_count == 3
    assert timedelta(minutes=119) < bot.suspended_until - before < timedelta(minutes=121)
