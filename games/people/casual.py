"""Limits on a person's casual (unrated) matches: the home page's Deal when logged in (``/play/guest/``), the API's
``POST /api/matches/casual/`` and "Play this deal" (without them one account could start matches
without end, each holding house bots' turns on the workers).

Two limits, per account (its person player): running casual matches at once (``CASUAL_RUNNING_PER_PERSON``; a
match with no ladder) and new casual matches (the ``casual_match`` throttle rate, ``CASUAL_MATCH_RATE``, in the
shared cache like the other limits). ``casual_start`` reads the counts and creates the match in one transaction that
first takes a try-lock (a PostgreSQL advisory transaction lock) on the person: a second start of the same account
meanwhile is refused at once ("being started"), never kept waiting. A refusal is a ``CasualRefused``: plain words
naming the limit and seconds to wait (the page and the API answer 429 with Retry-After).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from sitekit.limits import LimitRefused
from games.models import Match, Player

#: advisory lock namespace (the two-int form of pg_try_advisory_xact_lock): a casual match of this person starting
_PERSON_LOCK = 0x6E59


class CasualRefused(LimitRefused):
    """A new casual match refused by a limit of ``casual_start`` (``detail``: which limit and what to do;
    ``retry_after``: seconds, >= 1)."""


class CasualMatchThrottle(SimpleRateThrottle):
    """New casual matches per account: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["casual_match"]``
    (``CASUAL_MATCH_RATE``), counted by the person player's id. ``full`` asks (nothing counted), ``count`` counts
    one created match."""

    scope = "casual_match"

    def __init__(self, person: Player):
        self.person = person
        super().__init__()

    def get_rate(self) -> str | None:
        """The rate as configured now (DRF's class attribute keeps the rates read at import)."""
        from rest_framework.settings import api_settings

        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def full(self) -> bool:
        self.key = self.cache_format % {"scope": self.scope, "ident": f"player{self.person.pk}"}
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def count(self) -> None:
        self.full()
        self.throttle_success()


def _try_lock(person: Player) -> bool:
    """Whether this transaction now holds the person's start lock (taken without waiting). Always True without
    PostgreSQL (SQLite takes its write lock at BEGIN, which serialises starts the same way)."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_PERSON_LOCK, person.pk % 2**31])
        return bool(cursor.fetchone()[0])


def casual_running(person: Player) -> list[Match]:
    """The running matches of ``person`` that belong to no ladder (casual ones: a Deal, the API's, a replay)."""
    running = Match.objects.filter(status=Match.Status.RUNNING, seats__player=person)
    if hasattr(Match, "ladder_match"):  # the ladder app (tournaments) adds the relation; games does not import it
        running = running.filter(ladder_match__isnull=True)
    return list(running.only("pk", "last_progress_at", "move_seconds").distinct())


def _wait_for_a_place(running: list[Match]) -> int:
    """Seconds until the first of ``running`` could have ended if left alone: its last ply plus three move clocks
    (three fallbacks in a row forfeit the seat). A finished match frees a place sooner."""
    now = timezone.now()
    waits = [(m.last_progress_at + timedelta(seconds=3 * m.move_clock_seconds) - now).total_seconds()
             for m in running]
    return max(1, math.ceil(min(waits, default=1)))


def casual_start(*, person: Player, create: Callable[[], Match]) -> Match:
    """Run ``create`` (which creates one casual match for ``person`` and wakes it) under the casual limits, in one
    transaction with the person's start lock; the match counts towards the rate once created. Raises
    ``CasualRefused`` (nothing created) when the person has ``CASUAL_RUNNING_PER_PERSON`` casual matches running,
    has started ``CASUAL_MATCH_RATE`` of them, or another start of theirs holds the lock; whatever ``create``
    raises passes through (nothing counted)."""
    throttle = CasualMatchThrottle(person)
    with transaction.atomic():
        if not _try_lock(person):
            raise CasualRefused("Another new match of your account is being started right now; try again in 1 s.", 1)
        running = casual_running(person)
        limit = settings.CASUAL_RUNNING_PER_PERSON
        if len(running) >= limit:
            wait = _wait_for_a_place(running)
            raise CasualRefused(
                f"You have {len(running)} casual matches running (limit {limit} running casual matches per "
                f"account): finish one first; a match left alone ends after three missed moves. Try again in "
                f"{wait} s.", wait)
        if throttle.full():
            wait = math.ceil(throttle.wait() or 60)
            raise CasualRefused(f"Too many new casual matches from your account (limit {throttle.rate} new casual "
                                f"matches per account); try again in {wait} s.", wait)
        match = create()
        throttle.count()
    return match
