"""Register the two example HTTP bots of the demo, verify them with the full check and put them on the ladder."""

import os
import re
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from bots_api.models import Bot
from bots_api.services import BotError, bot_enter_ladder, bot_register, bot_update, bot_verify
from games.models import Player
from tournaments.models import Ladder

#: (name, port offset from DEMO_BOT_PORT, strategy): must match the bot processes in Procfile / Procfile.dev and bin/run
DEMO_BOTS = [("Example Alpha", 0, "heuristic"), ("Example Beta", 1, "greedy")]


class Command(BaseCommand):
    help = ("Register the demo's example HTTP bots (examples/bot_server.py on 127.0.0.1, ports DEMO_BOT_PORT (default "
            "8701) and the next one, secret from DEMO_BOT_SECRET), verify them and enter them on a ladder. The bot "
            "servers must be running.")

    def add_arguments(self, parser):
        parser.add_argument("--ladder", default="demo", help="ladder slug (default demo)")
        parser.add_argument("--wait", type=float, default=15.0, help="seconds to wait for the servers (default 15)")

    def handle(self, *args, ladder, wait, **options):
        if not 0 <= wait <= 600:
            raise CommandError(f"--wait must be from 0 to 600 seconds, not {wait}")
        if not settings.BOTS_ALLOW_LOOPBACK:
            raise CommandError("the demo bots listen on 127.0.0.1: set BOTS_ALLOW_LOOPBACK=1 (on by default with DEBUG)")
        lad = Ladder.objects.filter(slug=ladder).first()
        if lad is None:
            raise CommandError(f"no ladder {ladder!r}: run `manage.py demo_setup` first")
        secret = os.environ.get("DEMO_BOT_SECRET", "demo-secret-not-for-production")
        base_port = os.environ.get("DEMO_BOT_PORT", "8701")
        if not re.fullmatch(r"[0-9]{1,5}", base_port) or not 1 <= int(base_port) <= 65534:
            raise CommandError(f"DEMO_BOT_PORT={base_port!r}: use a port from 1 to 65534 (the second bot takes "
                               "the next one)")
        for name, offset, _strategy in DEMO_BOTS:
            port = int(base_port) + offset
            url = f"http://127.0.0.1:{port}/"
            # each example bot has its own owner: bots of one owner never meet in a match (they could share cards)
            owner, _ = get_user_model().objects.get_or_create(username=f"demo-{name.split()[-1].lower()}",
                                                              defaults={"is_active": True})
            bot = Bot.objects.filter(player__name=name).first()
            if bot is not None and bot.owner_id != owner.pk:  # registered by an older demo under one owner
                Bot.objects.filter(pk=bot.pk).update(owner=owner)
                Player.objects.filter(pk=bot.player_id).update(user=owner)
                bot.refresh_from_db()
            try:
                if bot is None:
                    bot, _ = bot_register(owner=owner, name=name, endpoint_url=url)
                bot_update(bot=bot, endpoint_url=url, is_enabled=True)
            except BotError as exc:
                raise CommandError(f"{name}: {exc.detail}") from None
            bot.secret = secret
            bot.save(update_fields=["secret"])
            deadline = time.monotonic() + wait
            while True:
                try:
                    reply = bot_verify(bot=bot)
                    break
                except BotError as exc:
                    if time.monotonic() > deadline:
                        raise CommandError(f"{name} at {url} did not pass its check: {exc.detail}. Start it with "
                                           f"`python examples/bot_server.py --port {port} --secret ...`") from None
                    time.sleep(0.5)
            bot_enter_ladder(bot=bot, ladder=lad)
            self.stdout.write(f"{name} verified (every check passed; {reply['latency_ms']} ms ping) and on ladder "
                              f"'{lad.slug}'")
