"""Bot writes: register, update, rotate the secret, verify with a signed ping, enter and leave ladders, and
what happens when a match with bots ends (``match_end`` notifications, suspension after repeated forfeits)."""

from __future__ import annotations

import logging
import secrets
import unicodedata

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from bots_api.client import BotFault, check_endpoint_url, post_json
from bots_api.models import Bot
from bots_api.protocol import match_end_body, ping_body, schema_errors
from games.models import Match, Player
from games.names import NameRefused, player_name_check
from tournaments.models import Ladder, LadderEntry
from tournaments.services import ladder_entry_create

log = logging.getLogger(__name__)
PING_TIMEOUT_MS = 3000


class BotError(Exception):
    """A bot request that cannot be done; ``code`` names the reason for the API (``{"error": code}``)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _new_secret() -> str:
    return secrets.token_urlsafe(32)


def _check_name(name: object, exclude_player: int | None = None) -> str:
    """A bot name: ``games.names.player_name_check`` (2 to 40 characters, normalised, no invisible or control
    characters, not a look-alike of another player's name), its refusal as a ``BotError``."""
    try:
        return player_name_check(name=name, exclude_player_id=exclude_player)
    except NameRefused as exc:
        raise BotError(exc.code, exc.detail) from None


def _printable(text: object, limit: int = 100) -> str:
    return "".join(ch for ch in str(text) if not unicodedata.category(ch).startswith("C"))[:limit]


def bot_register(*, owner, name: str, endpoint_url: str) -> tuple[Bot, str]:
    """Register a bot; returns it and its signing secret (shown once). ``BotError`` for a taken or bad name or
    a refused URL (the message says why: scheme, credentials, private address, ...)."""
    name = _check_name(name)
    try:
        url = check_endpoint_url(endpoint_url)
    except ValueError as exc:
        raise BotError("invalid_endpoint", str(exc)) from None
    secret = _new_secret()
    try:
        with transaction.atomic():
            player = Player.objects.create(name=name, kind=Player.Kind.BOT, user=owner, is_active=True)
            bot = Bot.objects.create(player=player, owner=owner, endpoint_url=url, secret=secret)
    except IntegrityError:
        raise BotError("name_taken", f"the name {name!r} is taken: choose another") from None
    return bot, secret


def bot_update(*, bot: Bot, name: str | None = None, endpoint_url: str | None = None,
               is_enabled: bool | None = None) -> Bot:
    """Change a bot's name, endpoint (which un-verifies it) or enabled flag."""
    with transaction.atomic():
        if name is not None:
            bot.player.name = _check_name(name, exclude_player=bot.player_id)
            try:
                with transaction.atomic():
                    bot.player.save(update_fields=["name"])
            except IntegrityError:
                raise BotError("name_taken", f"the name {name!r} is taken: choose another") from None
        if endpoint_url is not None and endpoint_url != bot.endpoint_url:
            try:
                bot.endpoint_url = check_endpoint_url(endpoint_url)
            except ValueError as exc:
                raise BotError("invalid_endpoint", str(exc)) from None
            bot.verified_at = None
        if is_enabled is not None:
            bot.is_enabled = bool(is_enabled)
        bot.save()
        _sync_player(bot)
    return bot


def _sync_player(bot: Bot) -> None:
    """A bot that cannot play (disabled, unverified, suspended) is not scheduled: its player is inactive. Its
    ladder entries stay, so it plays on where it was once it can play again."""
    Player.objects.filter(pk=bot.player_id).update(is_active=bot.can_play)


def bot_rotate_secret(*, bot: Bot) -> str:
    """A new signing secret (shown once); the old one stops working at once. The bot is unverified until it
    answers a ping signed with the new secret, so no match is scheduled for it in between (a bot still checking
    the old secret would only collect faults)."""
    bot.secret = _new_secret()
    bot.verified_at = None
    bot.save(update_fields=["secret", "verified_at", "updated_at"])
    _sync_player(bot)
    return bot.secret


def bot_delete(*, bot: Bot) -> None:
    """Delete a bot that never played; one with matches is disabled instead (its matches stay replayable)."""
    if bot.player.seats.exists():
        bot_update(bot=bot, is_enabled=False)
        return
    bot.player.delete()


def bot_verify(*, bot: Bot) -> dict:
    """Send a signed ``ping``; the bot is verified when it answers with a valid ``{"name", "author", "version"}``.

    A successful verification also lifts a suspension (the owner fixed the bot); the bot then re-enters ladders
    with ``bot_enter_ladder``. Returns the reply. Raises ``BotError`` (``verify_failed``) with the fault's cause.
    """
    try:
        reply, elapsed = post_json(bot.endpoint_url, bot.secret, ping_body(), PING_TIMEOUT_MS)
        errors = schema_errors("ping_reply", reply)
        if errors:
            raise BotError("verify_failed", f"the ping reply does not match the schema: {errors[0]}")
    except (BotFault, BotError) as exc:
        # a bot that fails its ping is not scheduled until it passes one (e.g. still using a rotated secret)
        Bot.objects.filter(pk=bot.pk).update(verified_at=None)
        bot.verified_at = None
        _sync_player(bot)
        if isinstance(exc, BotError):
            raise
        hint = " (is the bot using its current secret?)" if "401" in exc.cause or "403" in exc.cause else ""
        raise BotError("verify_failed", f"the ping failed: {exc.kind}: {exc.cause}{hint}") from None
    bot.verified_at = timezone.now()
    bot.reported_name = _printable(reply["name"])
    bot.reported_version = _printable(reply.get("version", ""))
    # a suspended bot comes back when its owner has fixed it and it answers a ping again
    bot.suspended_reason = ""
    bot.consecutive_forfeits = 0
    bot.save(update_fields=["verified_at", "reported_name", "reported_version", "suspended_reason",
                            "consecutive_forfeits", "updated_at"])
    _sync_player(bot)
    return {**reply, "latency_ms": elapsed}


def bot_enter_ladder(*, bot: Bot, ladder: Ladder) -> LadderEntry:
    """Put a verified, enabled, unsuspended bot on a ladder (``BotError`` says what is missing)."""
    if bot.suspended_reason:
        raise BotError("suspended", f"the bot is suspended: {bot.suspended_reason}")
    if not bot.is_enabled:
        raise BotError("disabled", "enable the bot first")
    if bot.verified_at is None:
        raise BotError("not_verified", "verify the bot first: POST .../verify/ sends it a signed ping")
    if not ladder.is_active:
        raise BotError("ladder_closed", f"the ladder {ladder.slug!r} is not active")
    return ladder_entry_create(ladder=ladder, player=bot.player)


def bot_leave_ladder(*, bot: Bot, ladder: Ladder) -> None:
    """Take the bot off a ladder (its rating is kept; running matches finish)."""
    LadderEntry.objects.filter(ladder=ladder, player=bot.player).update(is_active=False)


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """Signal receiver (inside the finishing transaction): count forfeits, suspend bots that keep forfeiting,
    and send ``match_end`` to every bot seat after commit."""
    bot_seats = list(match.seats.filter(player__kind=Player.Kind.BOT).select_related("player__bot"))
    if not bot_seats:
        return
    for seat in bot_seats:
        bot = getattr(seat.player, "bot", None)
        if bot is None:
            continue
        if seat.forfeited:
            bot.consecutive_forfeits += 1
            if bot.consecutive_forfeits >= settings.BOT_SUSPEND_AFTER_FORFEITS and not bot.suspended_reason:
                fault = (match.deals.order_by("-number").first().moves.filter(seat=seat.index)
                         .exclude(fault="").order_by("-ply").values_list("fault", flat=True).first() or "")
                bot.suspended_reason = (f"forfeited {bot.consecutive_forfeits} matches in a row (last: match "
                                        f"{match.pk}: {fault})")[:300]
        else:
            bot.consecutive_forfeits = 0
        bot.save(update_fields=["consecutive_forfeits", "suspended_reason", "updated_at"])
        _sync_player(bot)
    from bots_api.tasks import notify_match_end

    transaction.on_commit(lambda: notify_match_end.delay(match.pk))


def match_end_notify(*, match_id: int) -> int:
    """POST ``match_end`` to every bot seat of a finished match; failures are logged and ignored. Returns how
    many bots answered."""
    match = Match.objects.get(pk=match_id)
    seats = list(match.seats.order_by("index"))
    standings = [s.place or 0 for s in seats]
    forfeited = [s.index for s in seats if s.forfeited]
    answered = 0
    for seat in seats:
        bot = Bot.objects.filter(player_id=seat.player_id).first()
        if bot is None or not bot.is_enabled:
            continue
        body = match_end_body(match_id=match.pk, seat=seat.index, totals=match.totals, standings=standings,
                              forfeited=forfeited)
        try:
            post_json(bot.endpoint_url, bot.secret, body, match.turn_timeout_ms)
            answered += 1
        except BotFault as fault:
            log.info("match_end to bot %s (match %s) failed: %s", bot, match.pk, fault)
    return answered
