"""Guests: people who play without an account ("Play at once").

A guest is a browser session (Django's session: a random key in an HttpOnly, SameSite=Lax cookie, the data on the
server) carrying a guest player: a ``Player`` of kind human with ``is_guest`` set and no user, named ``Guest
<6 hex digits>``. Pressing Deal on the home page (``guest_deal``) creates the player on first use and a casual,
unrated match against house bots (``GUEST_OPPONENTS``) with the guest in seat 0 and the guest move clock
(``GUEST_MOVE_SECONDS``). Only that session plays the seat (``Player.is_played_by(user, guest)``; the seat API and
the table read the session's guest with ``session_guest``). Every ply is stored as it happens (draws of the turn
included), so the table comes back exactly where it stopped for as long as the session lasts. A guest never joins
a ladder and is never rated. Logging in or signing up in that browser moves the session's guest matches to the
account's player (``guest_adopt``, on Django's ``user_logged_in``).

Limits (``guest_deal``; each refusal is a ``GuestRefused`` with plain words and seconds to wait): running guest
matches per browser (``GUEST_RUNNING_PER_BROWSER``) and per client address (``GUEST_RUNNING_PER_ADDRESS``,
``sitekit.limits.client_address``), and new guest matches per address (the ``guest_match`` throttle rate,
``GUEST_MATCH_RATE``, in the shared cache). The counts are read and the match created in one transaction that first
takes try-locks (PostgreSQL advisory transaction locks) on the address and the guest: a second Deal of the same
browser or address meanwhile is refused at once ("being started"), never kept waiting, so a burst cannot slip past a
limit. On SQLite the transaction takes the database's write lock at BEGIN, which serialises Deals the same way.

Housekeeping (``guest_housekeeping``: Celery beat with a broker, the ladder loop without one, every
``GUEST_HOUSEKEEPING_SECONDS``): a guest match waiting for its guest past the move clock is abandoned and aborted
(unrated; no fallback is ever played for a guest), finished or aborted guest matches are deleted ``GUEST_KEEP_HOURS``
after their end, then guest players left with no match, and expired sessions.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from games import hooks
from eights_engine import Ruleset
from sitekit.limits import AddressBudget, LimitRefused, client_address
from games.models import Match, Player, Seat
from games.services import match_abort, match_create, match_wake, player_for_user, player_house_create

log = logging.getLogger(__name__)

#: the session key holding the guest player's id
SESSION_KEY = "guest_player_id"

#: advisory lock namespaces (the two-int form of pg_try_advisory_xact_lock): a Deal for this address / this guest
_ADDRESS_LOCK, _GUEST_LOCK = 0x6E57, 0x6E58


class GuestRefused(LimitRefused):
    """A Deal refused by a guest limit (or while another Deal of the same browser or address is being started).
    ``detail``: plain words saying which limit and what to do; ``retry_after``: seconds (>= 1) until a new try may
    pass."""


class GuestMatchThrottle(AddressBudget):
    """New guest matches per ``client_address``: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["guest_match"]``
    (``GUEST_MATCH_RATE``). ``full`` asks (nothing counted), ``count`` counts one created match."""

    scope = "guest_match"


def session_guest(request) -> Player | None:
    """The guest player of ``request``'s session (Django's or DRF's request), or None: no session, a session without
    a guest (a forged or expired cookie reads as an empty session), or a guest deleted by housekeeping."""
    session = getattr(request, "session", None)
    pk = session.get(SESSION_KEY) if session is not None else None
    if not isinstance(pk, int):
        return None
    return Player.objects.filter(pk=pk, is_guest=True, kind=Player.Kind.HUMAN).first()


def session_guest_or_new(request) -> Player:
    """The guest player of ``request``'s session, made now (and kept in the session) when it has none: a guest
    taking a seat at a table it was invited to. Its address is recorded for the per-address limits."""
    guest = session_guest(request)
    if guest is None:
        guest = _guest_create(client_address(request))
        request.session[SESSION_KEY] = guest.pk
    return guest


def _guest_create(address: str) -> Player:
    """A new guest player named ``Guest <6 hex digits>`` (a space: no user name can take it)."""
    while True:
        name = f"Guest {secrets.token_hex(3)}"
        if not Player.objects.filter(name=name).exists():
            return Player.objects.create(name=name, kind=Player.Kind.HUMAN, is_guest=True, guest_address=address)


def guest_opponents(count: int) -> list[Player]:
    """``count`` house bots for a guest table, one per strategy of ``GUEST_OPPONENTS`` in order (the oldest active
    house bot of that strategy, created as ``House <strategy>`` when there is none). ``ValueError`` when more are
    asked for than strategies are named, or a strategy is unknown."""
    strategies = settings.GUEST_OPPONENTS[:count]
    if len(strategies) < count:
        raise ValueError(f"a guest table seats at most {len(settings.GUEST_OPPONENTS) + 1} (GUEST_OPPONENTS)")
    chosen: list[Player] = []
    for strategy in strategies:
        house = (Player.objects.filter(kind=Player.Kind.HOUSE, strategy=strategy, is_active=True)
                 .exclude(pk__in=[p.pk for p in chosen]).order_by("pk").first())
        chosen.append(house or player_house_create(name=f"House {strategy} {len(chosen) + 1}", strategy=strategy,
                                                   description="a guest table's opponent"))
    return chosen


def _address_key(address: str) -> int:
    return int.from_bytes(hashlib.sha256(address.encode()).digest()[:4], "big", signed=True)


def _try_locks(address: str, guest: Player | None) -> bool:
    """Whether this transaction now holds the Deal locks of ``address`` and ``guest`` (taken without waiting; held
    until the transaction ends). Without PostgreSQL (SQLite: one writer at a time) always True."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_ADDRESS_LOCK, _address_key(address)])
        if not cursor.fetchone()[0]:
            return False
        if guest is not None:
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_GUEST_LOCK, guest.pk % 2**31])
            if not cursor.fetchone()[0]:
                return False
    return True


def _wait_for_a_place(running: list[Match], now) -> int:
    """Seconds until the first of ``running`` could have been abandoned (its last ply plus its move clock) and
    ended by housekeeping: the earliest a running-match limit may let a new Deal through (a finish may come sooner)."""
    waits = [(m.last_progress_at + timedelta(seconds=m.move_clock_seconds) - now).total_seconds() for m in running]
    return max(1, math.ceil(min(waits, default=1) + settings.GUEST_HOUSEKEEPING_SECONDS))


def _running(seats) -> list[Match]:
    return list(Match.objects.filter(status=Match.Status.RUNNING, seats__in=seats)
                .only("pk", "last_progress_at", "move_seconds").distinct())


def guest_deal(request, *, preset: str, seats: int) -> Match:
    """Deal a guest table for ``request``'s browser: a casual, unrated match of ``preset`` for ``seats`` (2 or 3)
    with the session's guest player (created now when the session has none, and stored in the session) in seat 0
    against ``guest_opponents``, woken for the worker (``match_wake``). The caller checks that ``preset`` is offered.

    Raises ``ValueError`` (an unknown preset, a seat count it does not allow) and ``GuestRefused`` (a limit, or
    another Deal of this browser or address being started right now); either way nothing is created.
    """
    ruleset = Ruleset.preset(preset)  # ValueError names the preset
    if seats not in (2, 3) or not ruleset.seats_min <= seats <= ruleset.seats_max:
        raise ValueError(f"a guest table has 2 or 3 seats, and the preset {preset!r} seats {ruleset.seats_min} to "
                         f"{ruleset.seats_max}: choose another table or preset")
    address = client_address(request)
    guest = session_guest(request)
    opponents = guest_opponents(seats - 1)
    throttle = GuestMatchThrottle()
    with transaction.atomic():
        if not _try_locks(address, guest):
            raise GuestRefused("Another Deal from your browser or address is being started right now; try again in "
                               "1 s.", 1)
        now = timezone.now()
        if guest is not None:
            mine = _running(Seat.objects.filter(player=guest))
            limit = settings.GUEST_RUNNING_PER_BROWSER
            if len(mine) >= limit:
                wait = _wait_for_a_place(mine, now)
                raise GuestRefused(
                    f"You have {len(mine)} guest matches running in this browser (limit {limit} running guest matches "
                    f"per browser): finish one, or sign up to play more. A match left alone ends "
                    f"{settings.GUEST_MOVE_SECONDS} s after its last move; try again in {wait} s.", wait)
        # a match dealt from here counts until it ends, also after its guest signed in (the seats moved to the
        # account): logging in and out must not reset the address's count
        here = list(Match.objects.filter(Q(guest_address=address) | Q(
            seats__player__is_guest=True, seats__player__guest_address=address), status=Match.Status.RUNNING)
            .only("pk", "last_progress_at", "move_seconds").distinct())
        limit = settings.GUEST_RUNNING_PER_ADDRESS
        if len(here) >= limit:
            wait = _wait_for_a_place(here, now)
            raise GuestRefused(
                f"{len(here)} guest matches are running from your address (limit {limit} running guest matches per "
                f"address): finish one, or sign up to play more; try again in {wait} s.", wait)
        if throttle.full(request):
            wait = throttle.retry_after()
            raise GuestRefused(f"Too many new guest matches from your address (limit {throttle.rate} new guest "
                               f"matches per address); try again in {wait} s, or sign up.", wait)
        if guest is None:
            guest = _guest_create(address)
        elif guest.guest_address != address:
            guest.guest_address = address
            guest.save(update_fields=["guest_address"])
        match = match_create(players=[guest, *opponents], ruleset=ruleset, preset=preset,
                             move_seconds=settings.GUEST_MOVE_SECONDS)
        Match.objects.filter(pk=match.pk).update(guest_address=address)
        throttle.count(request)
        match_wake(match_id=match.pk)
    request.session[SESSION_KEY] = guest.pk
    return match


def guest_adopt(*, guest: Player, user) -> int:
    """Move every seat of ``guest`` to ``user``'s player (``player_for_user``) and delete the guest player: the
    guest's matches, running or over, are the account's from now on, except running ones past the account's limit
    on running casual matches (``CASUAL_RUNNING_PER_PERSON``, counting its own): those end unrated, the oldest
    first. A running one keeps the move clock it started
    with (``GUEST_MOVE_SECONDS``): the account's shorter clock taking over would play fallbacks for, and forfeit, a
    person who had only stepped away to sign up. Returns how many seats moved."""
    from games.people.casual import casual_running

    person = player_for_user(user=user)
    with transaction.atomic():
        # the account's limit on running casual matches holds across log-ins: logging in and out again and again
        # must not gather more of them on one account than it may start itself (the newest are kept)
        places = max(0, settings.CASUAL_RUNNING_PER_PERSON - len(casual_running(person)))
        running = list(Match.objects.filter(status=Match.Status.RUNNING, seats__player=guest)
                       .order_by("-created_at", "-pk").values_list("pk", flat=True))
        for match_id in running[places:]:
            match_abort(match_id=match_id, reason=(
                f"ended at log-in: the account had {settings.CASUAL_RUNNING_PER_PERSON - places} casual matches "
                f"running already (limit {settings.CASUAL_RUNNING_PER_PERSON} per account)"))
        moved = Seat.objects.filter(player=guest).update(player=person)
        hooks.guest_adopted.send(sender=Player, guest=guest, person=person)  # the tables' seats, before the delete
        Player.objects.filter(pk=guest.pk, is_guest=True).delete()
    log.info("guest %s signed in as %s: %s matches kept", guest.name, person.name, moved)
    return moved


def on_user_logged_in(sender, request, user, **kwargs) -> None:
    """``user_logged_in`` receiver: a session that played as a guest keeps its matches under the account."""
    if request is None or not hasattr(request, "session"):
        return
    guest = session_guest(request)
    if guest is not None:
        guest_adopt(guest=guest, user=user)
    request.session.pop(SESSION_KEY, None)


def guest_housekeeping(*, now=None) -> dict:
    """End abandoned guest matches and delete old ones (see the module's words). Returns counts: ``abandoned``
    (matches aborted: waiting for their guest past the move clock), ``deleted`` (guest matches deleted
    ``GUEST_KEEP_HOURS`` after their end), ``players`` (guest players deleted: older than that, with no match)."""
    now = now or timezone.now()
    abandoned = 0
    waiting = (Match.objects.filter(status=Match.Status.RUNNING, awaiting_human=True, seats__player__is_guest=True)
               .only("pk", "move_seconds", "last_progress_at").distinct())
    for match in waiting:
        clock = match.move_clock_seconds
        if (now - match.last_progress_at).total_seconds() < clock:
            continue
        # conditional on the position: a move stored meanwhile wins, and a move after this fails as stale
        abandoned += match_abort(match_id=match.pk,
                                 reason=f"abandoned: the guest made no move within {clock} s (unrated)",
                                 still={"awaiting_human": True, "last_progress_at": match.last_progress_at})
    cutoff = now - timedelta(hours=settings.GUEST_KEEP_HOURS)
    old = list(Match.objects.filter(seats__player__is_guest=True, finished_at__lt=cutoff)
               .exclude(status=Match.Status.RUNNING).values_list("pk", flat=True).distinct()[:500])
    if old:
        Match.objects.filter(pk__in=old).delete()
    players = Player.objects.filter(is_guest=True, created_at__lt=cutoff, seats__isnull=True).delete()[1].get(
        "games.Player", 0)
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    if abandoned or old or players:
        log.info("guest housekeeping: %s abandoned matches ended, %s old matches and %s guests deleted", abandoned,
                 len(old), players)
    return {"abandoned": abandoned, "deleted": len(old), "players": players}
