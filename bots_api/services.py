"""Bot writes: register, update, rotate the secret, check (verify) outside the request, enter and leave ladders,
and what happens when a match with bots ends (``match_end`` notifications, the fault policy's suspension).

Changes to a bot lock its row first (``_lock``), so a bot deleted meanwhile answers 404 and is never re-inserted,
and a change and a delete of one bot take their locks in the same order (bot, then player).
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from eights_engine.bots import check as conformance
from bots_api.client import BotFault, check_endpoint_url, guarded_client, post_json
from bots_api.models import Bot, BotCheck, TrialMatch
from eights_engine.bots.protocol import match_end_body, printable
from bots_api.versions import match_version_ask
from eights_engine import MatchState, Ruleset
from games.models import Match, Move, Notification, Player
from games.notices import notify
from games.people.players import player_name_check
from sitekit.names import NameRefused
from sitekit.errors import ApiError
from tournaments.models import Ladder, LadderEntry
from tournaments.services import ladder_entry_create

log = logging.getLogger(__name__)
#: A check still queued or running this long after it was asked for (or started) was lost (a worker killed, a
#: broker down at commit): a new Verify replaces it, and a redelivered message may take it over. At the default
#: deadline (1 s) and time bank (5 s) a check takes at most about 100 s: up to 34 turns at the deadline, the banks
#: of its 9 matches spent, 9 match_ends at the deadline, a 3 s ping and three 3 s refusals; a bot that answers in
#: 50 ms, about 2 s. A ladder with a longer deadline makes its checks longer.
CHECK_LOST_SECONDS = 180
#: A check's turns carry match ids drawn from just above the newest match (up to this many above), so they look
#: like matches just begun: a check cannot be told from real play by its ids.
CHECK_MATCH_ID_SPREAD = 50
#: The cool-off doubles with each suspension, up to this many doublings.
COOLOFF_MAX_DOUBLINGS = 10


#: BotError codes that mean "not in this state" (409); any other code is bad input (400).
CONFLICT_CODES = frozenset({"name_taken", "suspended", "disabled", "not_verified", "ladder_closed", "verify_failed"})


class BotError(ApiError):
    """A bot request that cannot be done; ``code`` names the reason for the API (``{"error": code}``): 409 for a
    code of ``CONFLICT_CODES`` (the bot's or the ladder's state), else 400 (the input)."""

    def status_for(self, code: str) -> int:
        return 409 if code in CONFLICT_CODES else 400


def _new_secret() -> str:
    return secrets.token_urlsafe(32)


def _check_name(name: object, exclude_player: int | None = None) -> str:
    """A bot name: ``sitekit.names.player_name_check`` (2 to 40 characters, normalised, no invisible or control
    characters, not a look-alike of another player's name), its refusal as a ``BotError``."""
    try:
        return player_name_check(name=name, exclude_player_id=exclude_player)
    except NameRefused as exc:
        raise BotError(exc.code, exc.detail) from None


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


def _lock(bot: Bot) -> Bot:
    """The bot's row, locked until the transaction ends (call inside one), with its player; ``Http404`` when the
    bot was deleted meanwhile."""
    locked = Bot.objects.select_for_update(of=("self",)).select_related("player").filter(pk=bot.pk).first()
    if locked is None:
        raise Http404(f"you have no bot with id {bot.pk}")
    return locked


def bot_update(*, bot: Bot, name: str | None = None, endpoint_url: str | None = None,
               is_enabled: bool | None = None, accepts_challenges: bool | None = None,
               webhook_url: str | None = None) -> Bot:
    """Change a bot's name, endpoint (which un-verifies it), enabled flag or webhook URL (empty: none; a new one
    turns a webhook that was turned off on again: ``bots_api.webhooks``); ``bot`` is updated too. ``BotError``
    for a taken or bad name or a refused URL; ``Http404`` when the bot was deleted meanwhile."""
    url = None
    if endpoint_url is not None and endpoint_url != bot.endpoint_url:
        try:
            url = check_endpoint_url(endpoint_url)  # resolves the host: before the lock, not while holding it
        except ValueError as exc:
            raise BotError("invalid_endpoint", str(exc)) from None
    hook = None
    if webhook_url is not None:
        try:
            hook = check_endpoint_url(webhook_url) if webhook_url.strip() else ""
        except ValueError as exc:
            raise BotError("invalid_webhook", f"webhook_url: {exc}") from None
    with transaction.atomic():
        locked = _lock(bot)
        fields = ["updated_at"]
        if name is not None:
            locked.player.name = _check_name(name, exclude_player=locked.player_id)
            try:
                with transaction.atomic():
                    locked.player.save(update_fields=["name"])
            except IntegrityError:
                raise BotError("name_taken", f"the name {name!r} is taken: choose another") from None
            bot.player.name = locked.player.name
        if url is not None and url != locked.endpoint_url:
            locked.endpoint_url = url
            locked.verified_at = None
            fields += ["endpoint_url", "verified_at"]
        if is_enabled is not None:
            locked.is_enabled = bool(is_enabled)
            fields.append("is_enabled")
        if accepts_challenges is not None:  # -- trials: other owners may name it as an opponent
            locked.accepts_challenges = bool(accepts_challenges)
            fields.append("accepts_challenges")
        if hook is not None:
            locked.webhook_url, locked.webhook_failures, locked.webhook_disabled_at = hook, 0, None
            fields += ["webhook_url", "webhook_failures", "webhook_disabled_at"]
        locked.save(update_fields=fields)
        _sync_player(locked)
    for field in fields:
        setattr(bot, field, getattr(locked, field))
    return bot


def _sync_player(bot: Bot) -> None:
    """A bot that cannot play (disabled, unverified, suspended, banned) is not scheduled: its player is inactive. Its
    ladder entries stay, so it plays on where it was once it can play again."""
    Player.objects.filter(pk=bot.player_id).update(is_active=bot.can_play)
    Player.objects.filter(pk=bot.player_id, banned_at__isnull=False).update(is_active=False)  # a ban stays


def bot_rotate_secret(*, bot: Bot) -> str:
    """A new signing secret (shown once); the old one stops working at once. The bot is unverified until a check
    signed with the new secret passes, so no match is scheduled for it in between (a bot still checking the old
    secret would only collect faults). ``Http404`` when the bot was deleted meanwhile."""
    with transaction.atomic():
        locked = _lock(bot)
        locked.secret = _new_secret()
        locked.verified_at = None
        locked.save(update_fields=["secret", "verified_at", "updated_at"])
        _sync_player(locked)
    bot.secret, bot.verified_at = locked.secret, None
    return bot.secret


def bot_delete(*, bot: Bot) -> None:
    """Delete a bot that never played; one with matches is disabled instead (its matches stay replayable). A bot
    deleted meanwhile stays deleted."""
    with transaction.atomic():
        locked = Bot.objects.select_for_update(of=("self",)).select_related("player").filter(pk=bot.pk).first()
        if locked is None:
            return
        if locked.player.seats.exists():
            locked.is_enabled = False
            locked.save(update_fields=["is_enabled", "updated_at"])
            _sync_player(locked)
            bot.is_enabled = False
            return
        locked.player.delete()


def bot_check_request(*, bot: Bot) -> BotCheck:
    """Ask for a check of ``bot`` (the Verify button and ``POST /api/bots/{id}/verify/``); returns it, queued.

    It runs after the current transaction commits and never in the caller's request: a Celery worker takes it,
    or, without a broker, a short-lived thread (``tasks.run_soon``); see ``bot_check_run``. A check of the bot
    already queued or running is returned instead of a second one (a lost one, older than
    ``CHECK_LOST_SECONDS``, is marked failed and replaced). ``Http404`` when the bot was deleted meanwhile.
    """
    from bots_api.tasks import check_bot, run_soon  # the task module imports this one

    now = timezone.now()
    lost_before = now - timedelta(seconds=CHECK_LOST_SECONDS)
    lost = (Q(state=BotCheck.State.QUEUED, requested_at__lt=lost_before)
            | Q(state=BotCheck.State.RUNNING, started_at__lt=lost_before))
    with transaction.atomic():
        _lock(bot)  # one request at a time per bot: two clicks queue one check
        pending = BotCheck.objects.filter(bot_id=bot.pk, state__in=[BotCheck.State.QUEUED, BotCheck.State.RUNNING])
        pending.filter(lost).update(state=BotCheck.State.FAILED, finished_at=now,
                                    detail="lost: the service did not finish it in time (not your bot's fault); "
                                           "check again")
        current = pending.exclude(lost).first()
        if current is not None:
            return current
        check = BotCheck.objects.create(bot_id=bot.pk)
        run_soon(check_bot, check.pk)
    return check


def bot_check_run(*, check_id: int) -> BotCheck | None:
    """Run a queued check (the ``check_bot`` task's body): the conformance checks of ``eights_engine.bots.check``
    against
    the bot's endpoint and secret, sent through the service's guarded client. Nothing more is sent once a request
    fails because the bot does not answer the service (no connection, no answer in time, the signature refused).

    The check looks like real play (docs/BOT_PROTOCOL.md, the fault policy's "Checks look like real turns"): its
    turns come first, before the ping and the requests to refuse; each check match carries a match id drawn from
    just above the newest match (``check_match_ids``) and is played under the rules, seat count and turn deadline
    of a ladder the bot is on (of every active ladder while it is on none: ``check_match_rules``), with
    ``BOT_TIME_BANK_MS`` of time bank; it is sent with the same client and headers as turns.

    Passed (every check PASS or WARN): the bot is verified, its reported name and version are kept, and a
    suspension is lifted unless its cool-off (``Bot.suspended_until``) has not ended; a lifted bot is on probation
    (its failed-match count starts one short of ``BOT_SUSPEND_AFTER_FAILED_MATCHES``, so one failed match suspends
    it again). Failed: the bot is unverified, so it is not scheduled until a check passes. A check whose bot
    changed its endpoint or secret meanwhile fails without touching the bot. Slow (``CHECK_LOST_SECONDS``):
    call it outside any transaction. Returns the finished check, or None when it is not this caller's to run
    (taken by another runner, finished, or gone with its bot).
    """
    now = timezone.now()
    claimable = Q(state=BotCheck.State.QUEUED) | Q(state=BotCheck.State.RUNNING,
                                                  started_at__lt=now - timedelta(seconds=CHECK_LOST_SECONDS))
    if not BotCheck.objects.filter(claimable, pk=check_id).update(state=BotCheck.State.RUNNING, started_at=now):
        return None
    check = BotCheck.objects.select_related("bot").filter(pk=check_id).first()
    if check is None:
        return None
    url, secret = check.bot.endpoint_url, check.bot.secret
    results = conformance.run_checks(url, secret, settings.BOT_TURN_TIMEOUT_MS, client=guarded_client(),
                                     stop_when_unreachable=True, match_ids=check_match_ids(),
                                     match_rules=check_match_rules(bot=check.bot) or None,
                                     time_bank_ms=settings.BOT_TIME_BANK_MS)
    return _check_record(check, url, secret, results)


def check_match_rules(*, bot: Bot) -> list[conformance.MatchRules]:
    """The rules a check's matches are played under: those of the active ladders ``bot`` is on (ruleset, seats
    per match, turn deadline), or of every active ladder while it is on none; at most 20, and only rules the engine
    can deal. Empty when there is no active ladder (the checker then uses its own presets)."""
    ladders = Ladder.objects.filter(is_active=True).order_by("pk")
    own = ladders.filter(entries__player_id=bot.player_id, entries__is_active=True)
    found = []
    for slug, data, seats, deadline_ms in (own if own.exists() else ladders).values_list(
            "slug", "ruleset", "seats_per_match", "turn_timeout_ms")[:20]:
        try:
            rules = Ruleset.from_dict(data)
            MatchState.start(rules, seats, 1)
        except (TypeError, ValueError, KeyError):
            continue
        found.append(conformance.MatchRules(slug, rules, seats, deadline_ms))
    return found


def check_match_ids(*, rng: random.Random | None = None):
    """A function giving a check's match ids: each drawn at random from the ``CHECK_MATCH_ID_SPREAD`` ids just
    above the newest match (as if from matches just begun), never a constant. Returns ``() -> int``."""
    rng = rng or random.SystemRandom()
    newest = Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    return lambda: newest + rng.randint(1, CHECK_MATCH_ID_SPREAD)


def _check_record(check: BotCheck, url: str, secret: str, results: list[conformance.Check]) -> BotCheck:
    """Store a check's outcome and apply it to the bot, if the bot still has the endpoint and secret checked. The
    ping is sent last, so a check stopped early has none."""
    ping = next((c for c in results if c.name == "ping"), None)
    failed = [c for c in results if not c.ok]
    now = timezone.now()
    with transaction.atomic():
        bot = (Bot.objects.select_for_update(of=("self",)).select_related("player")
               .filter(pk=check.bot_id, endpoint_url=url, secret=secret).first())
        if bot is None:
            check.state = BotCheck.State.FAILED
            check.detail = ("the bot's endpoint or secret changed during the check, so it says nothing about the bot "
                            "as it is now: check again")
        elif failed:
            check.state = BotCheck.State.FAILED
            more = f" ({len(failed) - 1} more check{'s' if len(failed) > 2 else ''} failed)" if len(failed) > 1 else ""
            check.detail = f"{failed[0].name}: {failed[0].detail}{more}"
            bot.verified_at = None
            bot.save(update_fields=["verified_at", "updated_at"])
            _tell_owner(bot, Notification.Kind.BOT_CHECK_FAILED, check.detail[:200], key=f"check:{check.pk}")
        else:
            # out of play before this check: suspended, or unverified by a failed check (a bot's first check
            # passing is no recovery: its owner is not told that it "plays again")
            was_out = bool(bot.suspended_reason) or (bot.verified_at is None and BotCheck.objects.filter(
                bot=bot, state=BotCheck.State.FAILED).exclude(pk=check.pk).exists())
            check.state = BotCheck.State.PASSED
            check.detail = f"all {len(results)} checks passed."
            bot.verified_at = now
            bot.reported_name = printable(ping.reply["name"])
            bot.reported_version = printable(ping.reply.get("version", ""))
            if bot.suspended_reason and bot.suspended_until is not None and now < bot.suspended_until:
                check.detail += (f" The suspension stays: it is the bot's suspension {bot.suspension_count}, which "
                                 f"only a check passing at or after "
                                 f"{bot.suspended_until.strftime('%Y-%m-%d %H:%M UTC')} lifts (the cool-off).")
            elif bot.suspended_reason:
                check.detail += (" The suspension is lifted. The bot is on probation: one failed match suspends it "
                                 "again.")
                bot.suspended_reason = ""
                bot.suspended_until = None
                bot.consecutive_failed_matches = settings.BOT_SUSPEND_AFTER_FAILED_MATCHES - 1
            hint = conformance.slow_turns_hint(results)  # whole, or not at all (the detail is cut at 500)
            if hint and len(check.detail) + len(hint) + 7 <= BotCheck._meta.get_field("detail").max_length:
                check.detail += f" Hint: {hint}"
            bot.save(update_fields=["verified_at", "reported_name", "reported_version", "suspended_reason",
                                    "suspended_until", "consecutive_failed_matches", "updated_at"])
            if was_out and not bot.suspended_reason:  # it plays again
                _tell_owner(bot, Notification.Kind.BOT_RECOVERED, "", key=f"check:{check.pk}")
        if bot is not None:
            _sync_player(bot)
        check.finished_at = now
        check.detail = check.detail[:500]
        check.checks = [{"name": c.name, "status": c.status, "detail": c.detail} for c in results]
        check.latency_ms = ping.elapsed_ms if ping is not None else None
        BotCheck.objects.filter(pk=check.pk).update(state=check.state, finished_at=now, detail=check.detail,
                                                    checks=check.checks, latency_ms=check.latency_ms)
    return check


def bot_verify(*, bot: Bot) -> dict:
    """Check ``bot`` now, in this process, and wait for the outcome: for management commands and tests, never
    for a web request (those call ``bot_check_request``). ``bot`` is refreshed. Returns ``{"name", "version",
    "latency_ms", "verified_at"}`` as the bot answered its ping; raises ``BotError`` (``verify_failed``) with the
    first failed check and its cause."""
    check = BotCheck.objects.create(bot_id=bot.pk)
    done = bot_check_run(check_id=check.pk)
    if done is None or done.state != BotCheck.State.PASSED:
        raise BotError("verify_failed", done.detail if done else "the check did not run")
    bot.refresh_from_db()
    return {"name": bot.reported_name, "version": bot.reported_version, "latency_ms": done.latency_ms,
            "verified_at": bot.verified_at}


def bot_enter_ladder(*, bot: Bot, ladder: Ladder) -> LadderEntry:
    """Put a verified, enabled, unsuspended bot on a ladder (``BotError`` says what is missing)."""
    if bot.suspended_reason:
        raise BotError("suspended", f"the bot is suspended: {bot.suspended_reason}")
    if not bot.is_enabled:
        raise BotError("disabled", "enable the bot first")
    if bot.verified_at is None:
        raise BotError("not_verified", "verify the bot first: POST .../verify/ runs the conformance checks, which it must pass")
    if not ladder.is_active:
        raise BotError("ladder_closed", f"the ladder {ladder.slug!r} is not active")
    return ladder_entry_create(ladder=ladder, player=bot.player)


def bot_leave_ladder(*, bot: Bot, ladder: Ladder) -> None:
    """Take the bot off a ladder (its rating is kept; running matches finish)."""
    LadderEntry.objects.filter(ladder=ladder, player=bot.player).update(is_active=False)


def match_failed_by(*, match: Match, seat: int) -> str | None:
    """Why ``match`` counts as failed for the bot in ``seat`` (None when it does not): it forfeited, or it faulted
    on at least ``BOT_FAILED_MATCH_FAULT_SHARE`` of its turns
    (docs/BOT_PROTOCOL.md, "Faults and the fault policy"). A bot is judged by its own faults: an opponent
    forfeiting first does not make a faulting bot's match a good one."""
    turns = Move.objects.filter(deal__match=match, seat=seat)
    counts = turns.aggregate(total=Count("id"), faults=Count("id", filter=~Q(fault_kind="")))
    forfeited = match.seats.filter(index=seat, forfeited=True).exists()
    share = settings.BOT_FAILED_MATCH_FAULT_SHARE
    if not forfeited and not (counts["faults"] and counts["faults"] >= share * counts["total"]):
        return None
    last = turns.exclude(fault="").order_by("-deal__number", "-ply").values_list("fault", flat=True).first() or ""
    how = "forfeited" if forfeited else f"faults on {counts['faults']} of its {counts['total']} turns"
    return f"match {match.pk}: {how}" + (f"; last fault: {last}" if last else "")


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """Signal receiver (inside the finishing transaction): the fault policy, then ``match_end`` to every bot seat
    after commit. A failed match (``match_failed_by``) adds one to the bot's count of failed matches in a row,
    and ``BOT_SUSPEND_AFTER_FAILED_MATCHES`` of them suspend it; any other match sets the count to 0, except one
    in which the bot had no turn (nothing to judge), and a trial's match (an unrated test run, ``bots_api.trials``:
    it neither fails nor clears a bot). Aborted matches (our failures) never get here.

    Escalation: each suspension adds one to ``Bot.suspension_count``; the second and later ones also set a
    cool-off (``suspended_until``): ``BOT_SUSPENSION_COOLOFF_MINUTES`` for the second, doubled for each one
    after it, before which no check lifts the suspension."""
    bot_seats = list(match.seats.filter(player__kind=Player.Kind.BOT))
    if not bot_seats:
        return
    if TrialMatch.objects.filter(match=match).exists():  # -- trials (bots_api.trials): a test run judges nothing
        bot_seats = []
    for seat in bot_seats:
        bot = Bot.objects.select_for_update(of=("self",)).filter(player_id=seat.player_id).first()
        if bot is None:
            continue
        failed = match_failed_by(match=match, seat=seat.index)
        if failed is None:
            if not Move.objects.filter(deal__match=match, seat=seat.index).exists():
                continue
            bot.consecutive_failed_matches = 0
        else:
            bot.consecutive_failed_matches += 1
            if bot.consecutive_failed_matches >= settings.BOT_SUSPEND_AFTER_FAILED_MATCHES and not bot.suspended_reason:
                _suspend(bot, failed)
        bot.save(update_fields=["consecutive_failed_matches", "suspended_reason", "suspension_count",
                                "suspended_until", "updated_at"])
        _sync_player(bot)
    from bots_api.tasks import notify_match_end, run_soon

    run_soon(notify_match_end, match.pk)


def _suspend(bot: Bot, failed: str) -> None:
    """Suspend ``bot`` (not saved) for its failed matches; the last is ``failed``. Sets the reason, the count of
    suspensions and, from the second on, the cool-off."""
    bot.suspension_count += 1
    bot.suspended_until = None
    if bot.suspension_count > 1:
        doublings = min(bot.suspension_count - 2, COOLOFF_MAX_DOUBLINGS)
        bot.suspended_until = timezone.now() + timedelta(minutes=settings.BOT_SUSPENSION_COOLOFF_MINUTES * 2**doublings)
    if bot.suspension_count == 1:
        why = f"failed {bot.consecutive_failed_matches} matches in a row"
    else:  # the count may have started one short of the limit: probation after the last suspension
        why = (f"suspension {bot.suspension_count}: failed a match on probation, or "
               f"{settings.BOT_SUSPEND_AFTER_FAILED_MATCHES} in a row")
    bot.suspended_reason = f"{why} (last: {failed})"[:300]
    _tell_owner(bot, Notification.Kind.BOT_SUSPENDED, bot.suspended_reason,
                key=f"suspended:{bot.pk}:{bot.suspension_count}")


def _tell_owner(bot: Bot, kind: str, reason: str, *, key: str) -> None:
    """Notify ``bot``'s owner (``games.notices``) in the caller's transaction: e-mailed after it commits."""
    notify(user_id=bot.owner_id, kind=kind, params={"bot": bot.player.name, "reason": reason},
           url=reverse("bot-detail", args=[bot.pk]), key=key, about=bot.player)


def match_end_notify(*, match_id: int) -> int:
    """POST ``match_end`` to every bot seat of a finished match, then a ``ping`` to each bot that answered, to record
    the version it ran (``bots_api.versions.match_version_ask``: a check too sends its ping after its turns and
    ``match_end``s, so a bot cannot tell a match from a check before its turns are judged); failures are logged and
    ignored. Returns how many bots answered the ``match_end``."""
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
            continue
        match_version_ask(bot=bot, match_id=match.pk, seat=seat.index)  # after match_end, as in a check
    return answered
