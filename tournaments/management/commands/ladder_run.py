"""Schedule and play ladder matches: in this process (no broker) or by queueing them for Celery workers."""

import logging
import signal
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError
from kombu.exceptions import OperationalError

from sitekit.dispatch import tasks_mode
from eights_engine import Ruleset
from games.people.guests import guest_housekeeping
from games.notices import turns_waiting_sweep
from games.models import Match
from games.services import match_advance, match_note_failure, matches_clock_expired, matches_runnable
from games.tasks import match_queue
from tournaments.models import Ladder
from tournaments.services import ladder_schedule_matches

log = logging.getLogger(__name__)

#: One step of a match: it stores at most this many plies, and none more once this many milliseconds have passed
#: (checked before each ply, so a slow bot's turn can overrun it by up to that turn's timeout). The loop plays each
#: runnable match a step in turn and serves the people's matches again after every step of a bots-only one: a person
#: waiting for the bots' answer waits for at most one step of another match, never for a whole bot-only match or a
#: round of them (bots that answer slowly but legally used to hold a person's match up for 10-20 s).
PLIES_PER_TURN = 12
STEP_MS = 250
#: Seconds a match whose advance raised waits before the loop tries it again. A failure other than a database error
#: counts as the match's failure (``MATCH_MAX_FAILURES`` in a row abort it, as with the watchdog and a broker).
RETRY_AFTER_SECONDS = 5.0
#: Seconds between the loop's your-turn sweeps (``games.notices.turns_waiting_sweep``, the watchdog's with a broker):
#: well under the 20 s a person is away on the default move clock before they are told, so a turn that starts just
#: after a sweep is not missed (once a minute, the 60 s clock ran out first in every turn of some players).
TURN_SWEEP_SECONDS = 5.0


class _Stop(BaseException):
    """SIGTERM (honcho's Ctrl-C): unwind, so the lease of the match being played is released on the way out.

    A BaseException, like KeyboardInterrupt: the signal can arrive anywhere, e.g. inside a bot's HTTP call, where
    ``except Exception`` turns a transport error into the bot's fault; an Exception would be swallowed there and the
    loop would play on after it was told to stop."""


def _stop(signum, frame):
    raise _Stop()


class Command(BaseCommand):
    help = ("Start ladder matches and play them. Without a broker this process is the one match worker: it plays "
            "every runnable match (ladder matches, and those of people: Play now, casual, deal replays, a person's "
            "move), a few plies at a time in turn, and the fallback of people whose move clock ran out. With "
            "CELERY_BROKER_URL set the matches are queued for the workers and this command waits for them.")

    def add_arguments(self, parser):
        parser.add_argument("--ladder", default=None, help="ladder slug (default: every active ladder)")
        parser.add_argument("--matches", type=int, default=6, help="matches to finish before stopping (default 6)")
        parser.add_argument("--forever", action="store_true", help="keep scheduling until interrupted")
        parser.add_argument("--interval", type=float, default=5.0, help="seconds between ladder ticks with --forever")
        parser.add_argument("--poll", type=float, default=0.25,
                            help="seconds between looks for runnable matches without a broker (default 0.25)")
        parser.add_argument("--timeout", type=float, default=600.0, help="give up waiting after this many seconds")
        parser.add_argument("--unless-played", action="store_true",
                            help="do nothing when the ladders have finished matches already (`make run` on an "
                                 "existing database: the site is served at once and the ladder loop plays on)")

    def handle(self, *args, ladder, matches, forever, interval, poll, timeout, unless_played=False, **options):
        if not 0 <= matches <= 100_000:
            raise CommandError(f"--matches must be from 0 to 100000, not {matches}")
        if not 0.1 <= interval <= 3600:  # also refuses nan
            raise CommandError(f"--interval must be from 0.1 to 3600 seconds, not {interval}")
        if not 0.05 <= poll <= 60:
            raise CommandError(f"--poll must be from 0.05 to 60 seconds, not {poll}")
        if not 1 <= timeout <= 86400:
            raise CommandError(f"--timeout must be from 1 to 86400 seconds, not {timeout}")
        ladders = Ladder.objects.filter(is_active=True)
        if ladder:
            ladders = ladders.filter(slug=ladder)
            if not ladders.exists():
                slugs = ", ".join(Ladder.objects.values_list("slug", flat=True)) or "none; run demo_setup first"
                raise CommandError(f"no active ladder {ladder!r}; ladders: {slugs}")
        if not ladders.exists():
            raise CommandError("there is no active ladder: run `python manage.py demo_setup` first")
        if unless_played and not forever:
            played = Match.objects.filter(ladder_match__ladder__in=ladders, status=Match.Status.FINISHED).count()
            if played:
                self.stdout.write(f"{played} ladder matches were played before: no demo matches now (the ladder "
                                  "loop plays on while the site is served)")
                return
        in_process = tasks_mode() != "celery"
        in_main_thread = threading.current_thread() is threading.main_thread()  # signals can be set only there
        previous = signal.signal(signal.SIGTERM, _stop) if in_main_thread else None
        try:
            if in_process:
                finished = _Worker(self, ladders, matches, forever, interval, poll, timeout).run()
            else:
                finished = self._queue_loop(ladders, matches, forever, interval, timeout)
        except OperationalError as exc:
            raise CommandError(f"cannot reach the Celery broker at {settings.CELERY_BROKER_URL} ({exc}): start "
                               "Redis, or unset CELERY_BROKER_URL to play in-process. Matches already created "
                               "are resumed by the watchdog once the broker is back.") from None
        except (_Stop, KeyboardInterrupt):
            self.stdout.write("ladder loop stopped")
            return
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        self.stdout.write(self.style.SUCCESS(f"{finished} match{'' if finished == 1 else 'es'} finished"))

    def _queue_loop(self, ladders, matches, forever, interval, timeout) -> int:
        """With a broker: start matches, queue them for the workers, and count them as they finish."""
        finished = 0
        started_at = time.monotonic()
        while forever or finished < matches:
            started = []
            for lad in ladders:
                started += ladder_schedule_matches(ladder=lad, limit=None if forever else max(1, matches - finished))
            for match in started:
                match_queue(match_id=match.pk)
            running = [m.pk for m in started]
            while running and time.monotonic() - started_at < timeout:
                time.sleep(0.5)
                done = list(Match.objects.filter(pk__in=running).exclude(status=Match.Status.RUNNING)
                            .values_list("pk", flat=True))
                for pk in done:
                    running.remove(pk)
                    finished += 1
                    self.progress(pk, finished, matches, forever)
            if not forever and time.monotonic() - started_at > timeout:
                raise CommandError(f"gave up after {timeout:.0f} s with {finished} of {matches} matches finished")
            if forever:
                time.sleep(interval)
            elif not started:
                time.sleep(0.5)
        return finished

    def progress(self, match_id: int, finished: int, total: int, forever: bool, note: str = "") -> None:
        match = Match.objects.prefetch_related("seats__player").get(pk=match_id)
        names = " vs ".join(f"{'*' if s.place == 1 else ''}{s.player.name} ({s.total})" for s in match.seats.all())
        of = "" if forever else f"/{total}"
        width = min(total, 30)
        filled = width * finished // max(total, 1)
        bar = "" if forever or note else "[" + "#" * filled + "." * (width - filled) + "] "
        count = note or f"{finished}{of}"
        self.stdout.write(f"{bar}{count} match #{match_id}: {names}, {match.deal_number} deals "
                          f"(* = first place; {'lowest' if Ruleset.from_dict(match.ruleset).lower_total_wins else 'highest'} total wins)")


class _Worker:
    """The in-process match worker (no broker): every ``interval`` s it starts ladder matches; every ``poll`` s it
    plays each runnable match on by a step (``PLIES_PER_TURN`` plies, ``STEP_MS``), in turn, serving the matches
    with a person seated (and the fallback of people whose move clock ran out) again after each bots-only step. It
    counts the ladder matches it started as they finish (``--matches``); matches left running by an earlier run and
    people's matches are played too (this process is the only worker). With ``--forever`` it also does the guest
    housekeeping (``_housekeeping``) and the your-turn sweep that Celery beat does with a broker.

    With ``--forever`` a failing step (a database error, a bug in one match) is logged with its traceback and the
    loop carries on: a dead loop would stop every match, and honcho would stop the web server with it.
    """

    def __init__(self, command: Command, ladders, matches: int, forever: bool, interval: float, poll: float,
                 timeout: float):
        self.command, self.ladders, self.matches, self.forever = command, ladders, matches, forever
        self.interval, self.poll, self.timeout = interval, poll, timeout
        self.started: set[int] = set()
        self.left = set(Match.objects.filter(status=Match.Status.RUNNING).values_list("pk", flat=True))
        self.retry_at: dict[int, float] = {}
        self.people: set[int] = set()  # matches seen with a person seated (a seat never changes hands)
        self.finished = 0

    def run(self) -> int:
        # First finish what an interrupted run left behind (there is no watchdog here), a step at a time with the
        # people's matches served between, before any new ladder match starts.
        while self.left & set(self._guarded("find runnable matches", matches_runnable) or []):
            if not self.serve():
                break  # only failing matches left: the main loop tries them again later
        began = time.monotonic()
        next_tick = next_housekeeping = next_sweep = began
        while self.forever or self.finished < self.matches:
            now = time.monotonic()
            if now >= next_tick:
                self._guarded("schedule ladder matches", self._schedule)
                next_tick = now + (self.interval if self.forever else 0.5)
            if self.forever and now >= next_housekeeping:
                self._guarded("do guest housekeeping", self._housekeeping)
                next_housekeeping = now + settings.GUEST_HOUSEKEEPING_SECONDS
            if self.forever and now >= next_sweep:  # the watchdog's notice to people away on their turn (no beat)
                self._guarded("tell people away on their turn", turns_waiting_sweep)
                next_sweep = now + TURN_SWEEP_SECONDS
            progressed = self.serve()
            if not self.forever and time.monotonic() - began > self.timeout:
                raise CommandError(f"gave up after {self.timeout:.0f} s with {self.finished} of {self.matches} "
                                   "matches finished")
            if not progressed:
                time.sleep(self.poll)
        return self.finished

    def serve(self) -> bool:
        """One round: a step of every runnable match with no person seated, and before the first and after each of
        them a step of every runnable match with a person seated (and of those whose person's clock ran out).
        Returns whether any match moved on."""
        progressed = self._serve_people()
        for match_id in self._guarded("find runnable matches", matches_runnable) or []:
            if match_id in self.people:
                continue  # served by _serve_people
            progressed |= self._play(match_id)
            progressed |= self._serve_people()
        return progressed

    def _serve_people(self) -> bool:
        """A step of every runnable match with a person seated and of those whose person's clock ran out."""
        progressed = False
        people = self._guarded("find people's runnable matches", matches_runnable, people_only=True) or []
        self.people.update(people)
        for match_id in people + (self._guarded("find expired move clocks", matches_clock_expired) or []):
            progressed |= self._play(match_id)
        return progressed

    def _schedule(self) -> None:
        for lad in self.ladders:
            limit = None if self.forever else max(0, self.matches - self.finished - self._open())
            if limit == 0:
                return
            self.started.update(m.pk for m in ladder_schedule_matches(ladder=lad, limit=limit))

    def _housekeeping(self) -> None:
        """Guest housekeeping (``games.people.guests.guest_housekeeping``): with no broker there is no Celery beat, so the
        loop (``--forever``) runs it every ``GUEST_HOUSEKEEPING_SECONDS``, and the your-turn sweep every
        ``TURN_SWEEP_SECONDS``."""
        guest_housekeeping()

    def _open(self) -> int:
        """Matches this run started that are still running."""
        return Match.objects.filter(pk__in=self.started, status=Match.Status.RUNNING).count()

    def _play(self, match_id: int) -> bool:
        """Play the match on by one step (``PLIES_PER_TURN``, ``STEP_MS``); whether it moved on (stored plies or
        finished)."""
        if self.retry_at.get(match_id, 0) > time.monotonic():
            return False
        try:
            outcome = match_advance(match_id=match_id, ply_budget=PLIES_PER_TURN, time_budget_ms=STEP_MS)
        except (_Stop, KeyboardInterrupt):
            raise
        except DatabaseError as exc:  # e.g. locked beyond the busy timeout: the database's trouble, not the match's
            if not self.forever:
                raise
            log.warning("ladder loop: match %s: database error (%s); trying again in %.0f s", match_id, exc,
                        RETRY_AFTER_SECONDS)
            self.retry_at[match_id] = time.monotonic() + RETRY_AFTER_SECONDS
            return False
        except Exception:
            if not self.forever:
                raise
            log.exception("ladder loop: match %s failed; trying again in %.0f s", match_id, RETRY_AFTER_SECONDS)
            self.retry_at[match_id] = time.monotonic() + RETRY_AFTER_SECONDS
            self._guarded("count a failure", match_note_failure, match_id=match_id, cause="playing it raised")
            return False
        self.retry_at.pop(match_id, None)
        if outcome != "finished":
            return outcome == "budget"
        if match_id in self.started:
            self.finished += 1
            self._guarded("report a finished match", self.command.progress, match_id=match_id,
                          finished=self.finished, total=self.matches, forever=self.forever)
        elif match_id in self.left:
            self.command.stdout.write(f"resumed and finished match #{match_id}, left running by an earlier run")
        else:
            self._guarded("report a finished match", self.command.progress, match_id=match_id,
                          finished=self.finished, total=self.matches, forever=self.forever, note="finished")
        return True

    def _guarded(self, what: str, step, **kwargs):
        """``step(**kwargs)``; with ``--forever`` a failure is logged and the loop goes on (returns None)."""
        if not self.forever:
            return step(**kwargs)
        try:
            return step(**kwargs)
        except (_Stop, KeyboardInterrupt):
            raise
        except DatabaseError as exc:
            log.warning("ladder loop: could not %s: database error (%s); carrying on", what, exc)
        except Exception:
            log.exception("ladder loop: could not %s; carrying on", what)
        return None
