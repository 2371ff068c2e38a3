"""Bot owners' webhooks (issue 27): a bot's notifications (suspended, a check failed, playing again, a season's end,
a tournament or round starting; ``games.notices``) are also POSTed to the URL its owner set (``Bot.webhook_url``,
``PATCH /api/bots/<id>/``), signed with the bot's secret exactly as the protocol's requests are (``X-Eights-
Timestamp``, ``X-Eights-Signature: sha256=<hex>``: docs/BOT_PROTOCOL.md) and sent through the service's guarded
client (the address guard refuses private and loopback addresses unless configured). Never from a web request: a
task on the bots queue (``webhook_deliver``) after the notification's transaction commits.

A delivery is tried ``BOT_WEBHOOK_ATTEMPTS`` times (``ATTEMPT_TIMEOUT_S`` each, waiting ``BACKOFF_S`` between);
any 2xx answer is success. One that fails every try turns the webhook off (``webhook_disabled_at``) and tells the
owner in the site (a notification, e-mailed if they opted in; never a webhook call); setting the URL again turns it
back on.
"""

from __future__ import annotations

import json
import logging
import time

import httpx
from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from bots_api.client import guarded_client
from bots_api.models import Bot
from eights_engine.bots.protocol import sign
from games.models import Notification
from games.notices import notice_text, notify

log = logging.getLogger(__name__)

#: Seconds a try may take in all, and the waits before the second and third tries.
ATTEMPT_TIMEOUT_S = 3.0
BACKOFF_S = (1.0, 4.0)


def webhook_body(*, notification: Notification, bot: Bot) -> dict:
    """What a webhook receives: ``type`` "notification", ``kind``, ``text`` (English), ``params``, ``url`` (absolute),
    ``created_at`` (ISO 8601) and ``bot`` (``id``, ``name``)."""
    site = settings.SITE_URL.rstrip("/")
    return {"type": "notification", "kind": notification.kind, "text": notice_text(notification),
            "params": notification.params, "url": f"{site}{notification.url}" if notification.url else "",
            "created_at": notification.created_at.isoformat(), "bot": {"id": bot.pk, "name": bot.player.name}}


def on_bot_notice(sender, *, notification_id: int, player_id: int, **kwargs) -> None:
    """``games.hooks.bot_notice`` receiver: queue the delivery when the bot has a webhook that is on."""
    bot_id = (Bot.objects.filter(player_id=player_id, webhook_disabled_at__isnull=True).exclude(webhook_url="")
              .values_list("pk", flat=True).first())
    if bot_id is None:
        return
    from bots_api.tasks import run_soon, webhook_deliver

    run_soon(webhook_deliver, bot_id, notification_id)


def webhook_deliver_now(*, bot_id: int, notification_id: int, sleep=time.sleep) -> str:
    """Deliver one notification to the bot's webhook (module docstring). Returns ``sent``, ``off`` (no webhook, or
    it was turned off meanwhile), ``gone`` or ``failed`` (and the webhook is now off, the owner told)."""
    bot = Bot.objects.select_related("player").filter(pk=bot_id).first()
    notification = Notification.objects.filter(pk=notification_id).first()
    if bot is None or notification is None:
        return "gone"
    if not bot.webhook_url or bot.webhook_disabled_at is not None:
        return "off"
    url = bot.webhook_url
    raw = json.dumps(webhook_body(notification=notification, bot=bot), separators=(",", ":")).encode()
    cause = ""
    attempts = settings.BOT_WEBHOOK_ATTEMPTS
    for attempt in range(attempts):
        if attempt:
            sleep(BACKOFF_S[min(attempt - 1, len(BACKOFF_S) - 1)])
        headers = {"Content-Type": "application/json", **sign(bot.secret, raw)}
        try:
            answer = guarded_client().post(url, content=raw, headers=headers, timeout=ATTEMPT_TIMEOUT_S,
                                           follow_redirects=False)
        except httpx.HTTPError as exc:
            cause = f"{type(exc).__name__}: {str(exc)[:120]}"
            continue
        if 200 <= answer.status_code < 300:
            Bot.objects.filter(pk=bot.pk).update(webhook_failures=0)
            return "sent"
        cause = f"HTTP {answer.status_code}"
    with transaction.atomic():
        turned_off = Bot.objects.filter(pk=bot.pk, webhook_url=url, webhook_disabled_at__isnull=True).update(
            webhook_disabled_at=timezone.now(), webhook_failures=attempts)
        if turned_off:
            notify(user_id=bot.owner_id, kind=Notification.Kind.WEBHOOK_DISABLED,
                   params={"bot": bot.player.name, "reason": f"{attempts} tries failed, the last: {cause}"},
                   url=reverse("bot-detail", args=[bot.pk]), key=f"webhook-off:{bot.pk}:{timezone.now().timestamp():.0f}")
    log.warning("bot %s: webhook turned off after %s failed tries (%s)", bot.pk, attempts, cause)
    return "failed"
