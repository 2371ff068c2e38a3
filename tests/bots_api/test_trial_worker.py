"""A trial through a real Celery worker (celery.contrib.testing.worker, Redis): a real HTTP bot on loopback against
two house bots, on a ladder's rules, leaves every rating of that ladder untouched and shows its results with an
interval."""

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bot_servers import BotServer
from bots_api.models import Bot
from bots_api.services import bot_register
from config.celery import app
from games.models import Match
from tournaments.models import LadderEntry, LadderMatch, RatingChange
from tournaments.services import ladder_create, ladder_entry_create


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_trial_on_a_real_worker_never_moves_a_rating(house_bots):
    server = BotServer("good", "s3cret")
    try:
        owner = get_user_model().objects.create_user("ada", password="pw-ada-123")
        bot, _secret = bot_register(owner=owner, name="Probe", endpoint_url=server.url)
        Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now(), reported_version="2.0")
        three = ladder_create(name="Three", slug="three", preset="pagat", seats_per_match=3, target=50)
        for player in [bot.player, *house_bots]:
            ladder_entry_create(ladder=three, player=player)
        ratings = {e.pk: (e.mu, e.sigma, e.ordinal, e.matches_played, e.wins) for e in LadderEntry.objects.all()}
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
        assert not app.conf.task_always_eager and app.conf.broker_url.startswith("redis://")
        app.control.purge()
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            answer = client.post(f"/api/bots/{bot.pk}/trials/", {
                "opponents": ["house:heuristic", "Rando"], "ladder": "three", "seeds": [21, 22, 23]}, format="json")
            assert answer.status_code == 201, answer.content
            trial_id = answer.json()["id"]
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                detail = client.get(f"/api/trials/{trial_id}/").json()
                if detail["status"] == "finished":
                    break
                time.sleep(0.5)
        assert detail["status"] == "finished", detail["summary"]
        summary = detail["summary"]
        assert summary["finished"] == 3 and summary["aborted"] == 0
        assert summary["win_rate_ci95"] is not None and summary["mean_points_per_deal_ci95"] is not None
        assert [r["bot_seat"] for r in detail["results"]] == [0, 1, 2]
        assert all(r["replay_url"] for r in detail["results"])
        # the bot was really asked, in exactly these matches
        ids = {r["match_id"] for r in detail["results"]}
        asked = {body["match_id"] for body in server.bodies("turn")}
        assert asked == ids
        # nothing rated, nothing on the ladder
        assert {e.pk: (e.mu, e.sigma, e.ordinal, e.matches_played, e.wins)
                for e in LadderEntry.objects.all()} == ratings
        assert not RatingChange.objects.exists() and not LadderMatch.objects.exists()
        assert not Match.objects.filter(status=Match.Status.RUNNING).exists()
    finally:
        server.stop()
