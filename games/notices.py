"""Notifications (issue 27): what a person is told, in the site (a bell on every page, ``/notifications/``,
``GET /api/notifications/``) and, for those who opted in, by e-mail.

``notify`` is called by the code where the event happens (a challenge or table invitation made, a tournament or one
of its rounds starting, a season closing, a bot suspended, failing its check or playing again, a person away on
their turn: ``turns_waiting_sweep``), inside the event's transaction: the row is written with it, and the e-mail
is sent by a task once it commits (``notice_email``: never inside a web request). ``key`` makes one event one
notification (a unique key per user), however often it is noticed.

The sentence is made when it is read, in the reader's language (``notice_text``), from ``kind`` and ``params``.
An e-mail carries a link that unsubscribes without logging in (``unsubscribe_token``: signed with the site's
secret, so it cannot be guessed or made for another account).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from games.models import Match, Notification, Player, Seat

log = logging.getLogger(__name__)

_UNSUBSCRIBE_SALT = "eights.notices.unsubscribe"
#: A person is "away" from a running match once their table has not been seen for this long (s) on their turn, or
#: a third of the move clock when that is shorter (``away_seconds``).
AWAY_SECONDS = 60
#: The shortest wait (s) before a person is told, whatever the move clock.
AWAY_FLOOR_SECONDS = 5
#: Matches waiting longer than this (s) are not looked at again by the your-turn sweep (they were told long ago).
SWEEP_WINDOW_SECONDS = 3600


def away_seconds(match: Match) -> int:
    """How long (s) a person's turn in ``match`` waits, their table not seen, before they are told: ``AWAY_SECONDS``,
    or a third of the match's move clock (``Match.move_clock_seconds``) when that is shorter, at least
    ``AWAY_FLOOR_SECONDS``: 20 s of the default 60 s clock, so the notice comes while the turn is still theirs (at
    the clock's end a fallback move is played for them, and three of those forfeit the seat)."""
    return max(AWAY_FLOOR_SECONDS, min(AWAY_SECONDS, match.move_clock_seconds // 3))


def notify(*, user_id: int | None, kind: str, params: dict | None = None, url: str = "", key: str = "",
           about: Player | None = None) -> bool:
    """Tell the user ``user_id`` about an event of ``kind`` (``Notification.Kind``) with the sentence's ``params``
    and a link ``url`` (a path). With ``key``, a second call for the same user and key changes nothing. The e-mail
    (opted-in people only) is queued once the caller's transaction commits. Returns whether a notification was
    made. None ``user_id`` (a house bot, a guest) is ignored. ``about``: the bot it is about, whose owner's webhook
    is called too (``hooks.bot_notice``, after the commit)."""
    if user_id is None:
        return False
    if key and Notification.objects.filter(user_id=user_id, key=key).exists():
        return False
    try:
        with transaction.atomic():
            row = Notification.objects.create(user_id=user_id, kind=kind, params=params or {}, url=url[:200],
                                              key=key[:120])
    except IntegrityError:  # the same key written meanwhile by another process
        return False
    row_id = row.pk
    if Player.objects.filter(user_id=user_id, kind=Player.Kind.HUMAN, email_notifications=True).exists():
        transaction.on_commit(lambda: _email_queue(row_id))
    if about is not None and about.kind == Player.Kind.BOT:
        from games import hooks

        player_id = about.pk
        transaction.on_commit(lambda: hooks.bot_notice.send(sender=Notification, notification_id=row_id,
                                                            player_id=player_id))
    return True


def notify_player(*, player: Player, kind: str, params: dict | None = None, url: str = "", key: str = "") -> bool:
    """``notify`` the person behind ``player``: the person's own account, or a bot's owner; nobody for a house bot
    or a guest."""
    if player.kind == Player.Kind.HOUSE or player.is_guest:
        return False
    return notify(user_id=player.user_id, kind=kind, params=params, url=url, key=key, about=player)


def _email_queue(notification_id: int) -> None:
    from games.tasks import notice_email_send  # the task module imports this one

    notice_email_send(notification_id)


def notice_text(notification: Notification) -> str:
    """The notification's sentence in the active language."""
    p = dict(notification.params or {})
    kind = notification.kind
    K = Notification.Kind
    words = {
        K.CHALLENGE: lambda: (gettext("%(name)s challenges you to a rated match on the ladder %(ladder)s.") % p
                              if p.get("ladder") else gettext("%(name)s challenges you to a match of %(preset)s.") % p),
        K.TABLE_INVITE: lambda: (gettext("%(name)s keeps you a seat at their table rated on the ladder %(ladder)s.")
                                 % p if p.get("ladder") else
                                 gettext("%(name)s keeps you a seat at their table (%(preset)s).") % p),
        K.YOUR_TURN: lambda: gettext("It is your turn in match #%(match)s, against %(others)s.") % p,
        K.TOURNAMENT_START: lambda: gettext("The tournament %(name)s has started: %(player)s is playing.") % p,
        K.ROUND_START: lambda: gettext("Round %(round)s of %(name)s has started: %(player)s plays.") % p,
        K.SEASON_END: lambda: (gettext("Season %(season)s of %(ladder)s has ended: %(player)s finished in place %(rank)s.")
                               % p if p.get("rank") else gettext(
                                   "Season %(season)s of %(ladder)s has ended: %(player)s was not ranked yet.") % p),
        K.BOT_SUSPENDED: lambda: gettext("Your bot %(bot)s is suspended: %(reason)s.") % p,
        K.BOT_CHECK_FAILED: lambda: gettext("Your bot %(bot)s failed its check: %(reason)s.") % p,
        K.BOT_RECOVERED: lambda: gettext("Your bot %(bot)s passed its check and plays again.") % p,
        K.WEBHOOK_DISABLED: lambda: gettext("The webhook of your bot %(bot)s is turned off: %(reason)s. Set its URL "
                                            "again to turn it back on.") % p,
        K.FAIR_PLAY_WARNING: lambda: gettext("A fair-play warning for %(player)s (%(reason)s): staff looked at a "
                                             "report; a second one may end in a ban from rated play.") % p,
    }
    try:
        return words[kind]()
    except (KeyError, TypeError, ValueError):  # a kind or params of another version: say what there is
        return f"{kind}: {p}"


def notices_for(*, user, limit: int = 50) -> list[Notification]:
    """``user``'s notifications, newest first (at most ``limit``)."""
    return list(Notification.objects.filter(user=user)[:limit])


def unread_count(*, user) -> int:
    """How many of ``user``'s notifications are unread (the bell's number)."""
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def notices_read(*, user, ids: list[int] | None = None) -> int:
    """Mark ``user``'s notifications ``ids`` (all of them when None) read; returns how many were unread."""
    rows = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return rows.update(read_at=timezone.now())


def unsubscribe_token(*, user_id: int) -> str:
    """The token of ``user_id``'s unsubscribe link: signed with ``SECRET_KEY`` (nobody can make one for another
    account); it does not expire."""
    return signing.dumps({"u": user_id}, salt=_UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_user(*, token: str) -> int | None:
    """The user id an unsubscribe ``token`` was made for (``unsubscribe_token``), or None for one not made here."""
    try:
        return int(signing.loads(token, salt=_UNSUBSCRIBE_SALT)["u"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def unsubscribe(*, token: str) -> int | None:
    """Turn e-mail notifications off for the account of ``token`` (``unsubscribe_user``); its user id, or None for
    a token that was not made here."""
    user_id = unsubscribe_user(token=token)
    if user_id is not None:
        Player.objects.filter(user_id=user_id, kind=Player.Kind.HUMAN).update(email_notifications=False)
    return user_id


def email_settings(*, user, address: str, wanted: bool) -> None:
    """Set ``user``'s address and opt-in. ``ValueError`` for an address that is not one, or opting in without an
    address."""
    from django.core.validators import validate_email
    from django.core.exceptions import ValidationError

    address = address.strip()
    if address:
        try:
            validate_email(address)
        except ValidationError:
            raise ValueError(gettext("%(address)s is not an e-mail address: write it as name@example.org.")
                             % {"address": address[:80]}) from None
    if wanted and not address:
        raise ValueError(gettext("Give an e-mail address to have notifications e-mailed."))
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(email=address)
        Player.objects.filter(user=user, kind=Player.Kind.HUMAN).update(email_notifications=wanted)


def notice_email(*, notification_id: int) -> bool:
    """The ``notice_email`` task's body: e-mail the notification to its user if they still opt in and have an
    address, once (``emailed_at``), in their language, with the link and an unsubscribe link. Returns whether it
    was sent."""
    row = Notification.objects.select_related("user").filter(pk=notification_id, emailed_at__isnull=True).first()
    if row is None or not row.user.email:
        return False
    person = Player.objects.filter(user_id=row.user_id, kind=Player.Kind.HUMAN, email_notifications=True).first()
    if person is None:
        return False
    if not Notification.objects.filter(pk=row.pk, emailed_at__isnull=True).update(emailed_at=timezone.now()):
        return False  # another worker took it
    site = settings.SITE_URL.rstrip("/")
    with translation.override(person.language or settings.LANGUAGE_CODE):
        text = notice_text(row)
        link = f"{site}{row.url}" if row.url else f"{site}{reverse('notices')}"
        leave = f"{site}{reverse('notices-unsubscribe', args=[unsubscribe_token(user_id=row.user_id)])}"
        body = "\n\n".join([text, link, gettext("You get this because you asked for e-mails from Eights Ladder. "
                                                "To stop them, open this link (no log-in needed):"), leave])
        subject = f"Eights Ladder: {text}"[:150]
    try:
        EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [row.user.email],
                     headers={"List-Unsubscribe": f"<{leave}>"}).send()
    except Exception as exc:  # noqa: BLE001 - any mail backend's failure: the site notification stands
        log.warning("notification %s could not be e-mailed (%s)", row.pk, type(exc).__name__)
        Notification.objects.filter(pk=row.pk).update(emailed_at=None)
        return False
    return True


def turns_waiting_sweep(*, now: float | None = None, limit: int = 200) -> int:
    """Tell people whose turn it is in a running match they have been away from for ``away_seconds`` (their table
    not seen: ``leavers.presence_seen``): one notification per person, match and absence (the plies the clock plays
    for them while they stay away are not told again; back at the table and away again is). Run by the watchdog
    (beat) and the ladder loop. Looks at the ``limit`` matches that waited longest within the last
    ``SWEEP_WINDOW_SECONDS``, newest waits first; a ply not a person's, or whose absence was told, is marked in the
    cache and skipped without replaying its match. Returns how many were made."""
    from games.matches.leavers import presence_seen
    from games.matches.snapshots import match_state

    now = now or time.time()
    moment = timezone.now()
    waiting = (Match.objects.filter(status=Match.Status.RUNNING, awaiting_human=True,
                                    last_progress_at__lt=moment - timedelta(seconds=AWAY_FLOOR_SECONDS),
                                    last_progress_at__gte=moment - timedelta(seconds=SWEEP_WINDOW_SECONDS))
               .exclude(seats__player__is_guest=True).order_by("-last_progress_at")[:limit])
    made = 0
    for match in waiting:
        away = away_seconds(match)
        if match.last_progress_at > moment - timedelta(seconds=away):
            continue  # this match's turn has not waited long enough yet
        mark = f"turn-told:{match.pk}:{match.ply_count}"
        told = _cache_get(mark)  # "-": not a person's turn; (seat, absence): that absence was told
        if told == "-" or (told and presence_seen(match_id=match.pk, seats=[told[0]])[told[0]] == told[1]):
            continue
        try:
            state = match_state(match=match)
        except Exception:  # noqa: BLE001 - a match that does not load is the watchdog's business
            continue
        seats = list(Seat.objects.filter(match=match).select_related("player").order_by("index"))
        seat = next((s for s in seats if s.index == state.to_play), None) if not state.is_over else None
        if seat is None or seat.player.kind != Player.Kind.HUMAN or seat.player.user_id is None or seat.left_at:
            _cache_set(mark, "-")
            continue
        seen = presence_seen(match_id=match.pk, seats=[seat.index])[seat.index]
        if seen is not None and now - seen < away:
            continue  # at the table: looked at again next time
        others = ", ".join(s.player.name for s in seats if s.index != seat.index)
        made += notify(user_id=seat.player.user_id, kind=Notification.Kind.YOUR_TURN,
                       params={"match": match.pk, "others": others},
                       url=reverse("match-table", args=[match.pk]),
                       key=f"turn:{match.pk}:{int(seen) if seen is not None else 'unseen'}")  # once an absence
        _cache_set(mark, (seat.index, seen))
    return made


def _cache_get(key: str):
    try:
        return cache.get(key)
    except Exception:  # noqa: BLE001 - a hint only: without it the match is looked at again
        return None


def _cache_set(key: str, value) -> None:
    try:
        cache.set(key, value, SWEEP_WINDOW_SECONDS)
    except Exception:  # noqa: BLE001
        pass
