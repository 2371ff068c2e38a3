"""Celery tasks for matches: thin adapters over ``games.services``.

A match is played in slices of ``MATCH_SLICE_MS``: when a slice is used up the task queues the match again, at the
back of the queue, so a few matches whose bots answer slowly (but within their timeout) never hold every worker.
Tasks of matches with a person seated go out with ``PEOPLE_PRIORITY`` and the others with ``BOTS_PRIORITY``: with
the Redis broker a worker takes every queued people's task before any bots-only one (kombu's Redis transport keeps
one list per priority step, 0 3 6 9, and pops them in that order; 0 comes first). A person waits for at most the
slices already running, never for the queue of bots' slices.

Three queues (config/settings.py): matches with a bot or a person seated go to ``MATCH_QUEUE_BOTS`` (a threads pool
that waits on many bots at once), house-only matches to ``MATCH_QUEUE_HOUSE`` (prefork: CPU bound), housekeeping
(the watchdog, guest housekeeping, the ladders' and tournaments' ticks) to ``HOUSEKEEPING_QUEUE``
(``CELERY_TASK_ROUTES``), so a slow bot never delays other matches and a queue of matches never delays the watchdog.
"""

from __future__ import annotations

import logging
import time

import django.db
import kombu.exceptions
import redis
from celery import shared_task
from django.conf import settings

from games.matches import lifecycle, plies
from sitekit.dispatch import send_task, tasks_mode
from games.models import Player
from games.matches.seats import match_seat_kinds

log = logging.getLogger(__name__)

#: Redis broker priorities (lower is served first): a match with a person seated, a match of bots only.
PEOPLE_PRIORITY = 0
BOTS_PRIORITY = 6


#: How long (s) a match task plays on a match in its hands while the broker is unreachable (it cannot queue the
#: next slice) or the database is away (it waits and tries again), before it leaves the match to the watchdog; below
#: the task's soft time limit (CELERY_TASK_SOFT_TIME_LIMIT).
RIDE_OUT_SECONDS = 300
#: What a broker that cannot be reached raises on publishing (kombu wraps the transport's errors in
#: OperationalError; redis-py's own errors and a refused socket may come through as they are).
BROKER_UNREACHABLE = (kombu.exceptions.OperationalError, redis.exceptions.ConnectionError,
                      redis.exceptions.TimeoutError, OSError)
#: What a database that went away raises (a terminated connection, a restart, a failover): wait and try again.
DATABASE_AWAY = (django.db.OperationalError, django.db.InterfaceError)
#: A web request's wake publishes with few retries (it must not hold the person's answer while the broker is away);
#: the workers' publishes use Celery's default policy (CELERY_TASK_PUBLISH_RETRY_POLICY).
QUICK_PUBLISH = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def advance_match(self, match_id: int) -> str:
    """Play a match on for one slice of ``MATCH_SLICE_MS`` from its stored log (idempotent and resumable; see
    ``plies.match_advance``); when the slice is used up, queue the match again (``match_queue``). Run in place
    (``TASKS = "eager"``, ``sitekit.dispatch``) it plays on without slices: there is no queue to go back to.

    Rides out outages for up to ``RIDE_OUT_SECONDS``: when the next slice cannot be queued (the broker is
    unreachable) the task plays it itself, and when the database goes away it waits (0.5 s, doubling to 10 s) and
    tries again; past that it leaves the match to the watchdog (marked ``wake_pending``, or stalled), which never
    counts an outage as the match's failure."""
    if self.request.is_eager:
        return plies.match_advance(match_id=match_id)
    started, pause = time.monotonic(), 0.5
    while True:
        try:
            outcome = plies.match_advance(match_id=match_id, time_budget_ms=settings.MATCH_SLICE_MS)
        except DATABASE_AWAY as exc:
            if time.monotonic() - started + pause > RIDE_OUT_SECONDS:
                raise
            log.warning("match %s: the database is away (%s); trying again in %.1f s", match_id,
                        type(exc).__name__, pause)
            django.db.connections.close_all()  # a dead connection is never handed out again
            time.sleep(pause)
            pause = min(pause * 2, 10)
            continue
        pause = 0.5
        if outcome != "budget" or match_queue(match_id=match_id):  # the lease is released already
            return outcome
        if time.monotonic() - started > RIDE_OUT_SECONDS:
            return outcome  # marked wake_pending: the watchdog queues it once the broker answers
        # the broker is unreachable: play the next slice here rather than leave the match waiting for it


def match_queue(*, match_id: int, kinds: set[str] | None = None, quick: bool = False) -> bool:
    """Queue ``advance_match`` for ``match_id`` now, with ``PEOPLE_PRIORITY`` when a person sits in the match and
    ``BOTS_PRIORITY`` otherwise, on ``MATCH_QUEUE_BOTS`` when a bot or a person sits in it (its slices wait on HTTP
    calls and people: a pool that waits on many at once) and on ``MATCH_QUEUE_HOUSE`` when only house strategies
    do (CPU bound), so a slow bot never holds up a house-only match. A duplicate message is harmless: the match's
    lease lets one task play at a time and the others return "busy". ``kinds``: the seated players' kinds when the
    caller has them (else one query). ``quick``: publish with few retries (``QUICK_PUBLISH``: a web request).

    Returns whether the task was queued: when the broker is unreachable the match is marked ``wake_pending``
    (``lifecycle.match_note_wake_lost``) and the watchdog queues it once the broker answers; nothing is raised."""
    kinds = match_seat_kinds(match_id=match_id) if kinds is None else kinds
    priority = PEOPLE_PRIORITY if Player.Kind.HUMAN in kinds else BOTS_PRIORITY
    queue = settings.MATCH_QUEUE_HOUSE if kinds <= {Player.Kind.HOUSE} else settings.MATCH_QUEUE_BOTS
    try:
        send_task(advance_match, match_id, priority=priority, queue=queue,
                  **({"retry_policy": QUICK_PUBLISH} if quick else {}))
    except BROKER_UNREACHABLE as exc:
        log.warning("match %s could not be queued (%s): the watchdog queues it once the broker answers", match_id,
                    type(exc).__name__)
        lifecycle.match_note_wake_lost(match_id=match_id)
        return False
    return True


def broker_lost_its_queues() -> bool:
    """Whether the broker lost its queued messages since the last call: a Redis broker that restarted without
    persistence (as production's runs: nothing on disk) comes back empty, and every match whose task was queued
    then waits for the watchdog. A marker key set only when absent (``SET NX``) tells: it is gone exactly when the
    broker lost its data. The first call in a new deployment answers True too (a sweep that queues nothing twice
    for long: the leases let one task play each match). False when the broker is not Redis or does not answer."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return False
    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            return bool(client.set(f"{settings.CELERY_TASK_DEFAULT_QUEUE}.broker-marker", "1", nx=True))
        finally:
            client.close()
    except (redis.exceptions.RedisError, OSError):
        return False


@shared_task(ignore_result=True, acks_late=True)
def analyse_match(match_id: int) -> str:
    """Analyse a finished match (``games.matches.analysis.analysis_run``): what happened (done, failed, busy, ...)."""
    from games.matches.analysis import analysis_run

    return analysis_run(match_id=match_id)


def analysis_send(match_id: int) -> bool:
    """Send ``analyse_match`` for ``match_id`` on the house queue (CPU bound, as house-only matches), with few
    publish retries (``QUICK_PUBLISH``: it may be a web request's); without a broker a thread of this process runs it
    (in the caller's thread under ``TASKS="eager"``). Returns False, logging, when the broker cannot be reached."""
    try:
        send_task(analyse_match, match_id, thread=tasks_mode() != "eager", queue=settings.MATCH_QUEUE_HOUSE,
                  priority=BOTS_PRIORITY, retry_policy=QUICK_PUBLISH)
    except BROKER_UNREACHABLE as exc:
        log.warning("the analysis of match %s could not be queued (%s): the watchdog sends it once the broker "
                    "answers", match_id, type(exc).__name__)
        return False
    return True


@shared_task(ignore_result=True, acks_late=True)
def analyse_record(key: str, record: dict) -> str:
    """Analyse a record opened in the replay viewer (``games.local_replay.record_analysis_run``), kept in the cache
    under ``key``: what happened (done, failed)."""
    from games.local_replay import record_analysis_run

    return record_analysis_run(key=key, record=record)


def record_analysis_send(key: str, record: dict) -> bool:
    """Send ``analyse_record`` on the house queue as ``analysis_send`` does (the record travels in the message and is
    stored nowhere). Returns False, logging, when the broker cannot be reached."""
    try:
        send_task(analyse_record, key, record, thread=tasks_mode() != "eager", queue=settings.MATCH_QUEUE_HOUSE,
                  priority=BOTS_PRIORITY, retry_policy=QUICK_PUBLISH)
    except BROKER_UNREACHABLE as exc:
        log.warning("the analysis of an opened record could not be queued (%s)", type(exc).__name__)
        return False
    return True


@shared_task(ignore_result=True, acks_late=True, autoretry_for=(OSError,), retry_backoff=30, max_retries=3)
def notice_email(notification_id: int) -> bool:
    """E-mail a notification to its opted-in user (``games.notices.notice_email``): whether it was sent."""
    from games.notices import notice_email as send

    return send(notification_id=notification_id)


def notice_email_send(notification_id: int) -> bool:
    """Send ``notice_email`` on the housekeeping queue (without a broker a thread of this process runs it). Returns
    False, logging, when the broker cannot be reached (the notification stays in the site's list)."""
    try:
        send_task(notice_email, notification_id, thread=tasks_mode() != "eager", retry_policy=QUICK_PUBLISH)
    except BROKER_UNREACHABLE as exc:
        log.warning("the e-mail of notification %s could not be queued (%s)", notification_id, type(exc).__name__)
        return False
    return True


@shared_task(ignore_result=True)
def watchdog() -> list[int]:
    """Queue running matches that nobody is playing: all the runnable ones when the broker lost its queues
    (``broker_lost_its_queues``); those whose task could not be queued (``lifecycle.matches_wake_pending``); those
    that stopped making progress (a killed worker, a lost message: ``lifecycle.match_note_stall`` tells a match that
    no worker took, queued again however long that lasted, from one that failed in a worker's hands, counted and
    aborted past ``MATCH_MAX_FAILURES``); and those whose person's clock ran out. Returns the stalled ones' ids."""
    queued = set()
    if broker_lost_its_queues():
        runnable = lifecycle.matches_runnable()
        if runnable:
            log.warning("watchdog: the broker lost its queued messages; queueing %s runnable matches", len(runnable))
        queued.update(match_id for match_id in runnable if match_queue(match_id=match_id))
    for match_id in lifecycle.matches_wake_pending():
        if match_id not in queued and match_queue(match_id=match_id):
            queued.add(match_id)
    stalled = lifecycle.matches_stalled()
    for match_id in stalled:
        if not lifecycle.match_note_stall(match_id=match_id):
            log.error("watchdog: match %s aborted: it failed %s times in a row", match_id,
                      settings.MATCH_MAX_FAILURES + 1)
        elif match_id not in queued:
            log.warning("watchdog: match %s stalled, queued again", match_id)
            match_queue(match_id=match_id)
    for match_id in lifecycle.matches_clock_expired():  # a person's clock ran out: play their fallback
        match_queue(match_id=match_id)
    from games.matches.analysis import analyses_to_queue, analysis_queue

    for match_id in analyses_to_queue():  # analyses no worker took, or whose worker died
        analysis_queue(match_id=match_id)
    from games.notices import turns_waiting_sweep

    turns_waiting_sweep()  # people away from a match on their turn are told
    return stalled
