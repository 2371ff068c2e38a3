"""A full ladder match played by a real Celery worker (celery.contrib.testing.worker) through Redis."""

import json
import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from games.models import Match, Move
from tournaments.models import LadderEntry, RatingChange
from tournaments.tasks import schedule_ladder_matches


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_ladder_matches_to_the_end_and_rates_them(ladder):
    assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        started = schedule_ladder_matches.delay()  # the beat task, through the broker
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            matches = Match.objects.filter(ladder_match__ladder=ladder)
            if matches.exists() and not matches.filter(status=Match.Status.RUNNING).exists():
                break
            time.sleep(0.2)
    assert started is not None
    matches = list(Match.objects.filter(ladder_match__ladder=ladder))
    assert len(matches) == 2  # four bots, one match each at a time
    for match in matches:
        assert match.status == Match.Status.FINISHED
        assert max(match.totals) >= 100
        assert match.deals.filter(points__isnull=False).count() == match.deal_number
        assert Move.objects.filter(deal__match=match).count() == match.ply_count > 0
        assert RatingChange.objects.filter(match=match).count() == 2
    assert all(e.matches_played == 1 for e in LadderEntry.objects.filter(ladder=ladder))
    assert not Match.objects.filter(status=Match.Status.RUNNING).exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_a_ladder_match_between_two_http_bots(ladder, house_bots):
    """Two reference bot servers over real HTTP on loopback, scheduled by the beat task, played by a worker."""
    from django.contrib.auth import get_user_model
    from bot_servers import BotServer
    from bots_api.models import Bot
    from eights_engine.bots.protocol import schema_errors, verify
    from bots_api.services import bot_register, bot_verify
    from tournaments.models import LadderEntry
    from tournaments.services import ladder_entry_create

    LadderEntry.objects.filter(ladder=ladder).update(is_active=False)  # only the two bots play
    servers, bots = [], []
    for name, owner in (("Alpha", "grace"), ("Beta", "hopper")):  # two owners: one owner's bots never meet
        owner = get_user_model().objects.create_user(owner, password=f"pw-{owner}-123")
        bot, secret = bot_register(owner=owner, name=name, endpoint_url="http://127.0.0.1:9/")
        server = BotServer("good", secret, name)
        Bot.objects.filter(pk=bot.pk).update(endpoint_url=server.url)
        bot.refresh_from_db()
        assert bot_verify(bot=bot)["name"] == name
        ladder_entry_create(ladder=ladder, player=bot.player)
        servers.append((server, secret))
        bots.append(bot)
    app.control.purge()
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            schedule_ladder_matches.delay()
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                match = Match.objects.filter(ladder_match__ladder=ladder).first()
                if match and match.status != Match.Status.RUNNING and all(s.bodies("match_end") for s, _ in servers):
                    break
                time.sleep(0.2)
    finally:
        for server, _ in servers:
            server.stop()
    assert match.status == Match.Status.FINISHED and max(match.totals) >= 100
    assert {s.player_id for s in match.seats.all()} == {b.player_id for b in bots}
    assert not Move.objects.filter(deal__match=match).exclude(source="agent").exists()
    assert RatingChange.objects.filter(match=match).count() == 2
    for server, secret in servers:
        played = [(h, raw) for h, raw in server.requests if json.loads(raw)["type"] != "ping"]
        assert played  # (the check before the match also sent pings it expects a bot to refuse: wrongly signed)
        for headers, raw in played:
            assert verify(secret, raw, headers["X-Eights-Timestamp"], headers["X-Eights-Signature"])
        for kind in ("ping", "turn", "match_end"):
            assert server.bodies(kind), kind
            assert all(schema_errors(kind, body) == [] for body in server.bodies(kind))
