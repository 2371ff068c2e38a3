"""Schedule and play ladder matches: in-process (no broker) or by queueing them for Celery workers."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from kombu.exceptions import OperationalError

from games.models import Match
from games.services import match_advance, matches_clock_expired
from games.tasks import advance_match
from tournaments.models import Ladder
from tournaments.services import ladder_schedule_matches


class Command(BaseCommand):
    help = ("Start ladder matches and play them. Without a broker the matches are played here, in-process; with "
            "CELERY_BROKER_URL set they are queued for the workers and this command waits for them.")

    def add_arguments(self, parser):
        parser.add_argument("--ladder", default=None, help="ladder slug (default: every active ladder)")
        parser.add_argument("--matches", type=int, default=6, help="matches to finish before stopping (default 6)")
        parser.add_argument("--forever", action="store_true", help="keep scheduling until interrupted")
        parser.add_argument("--interval", type=float, default=5.0, help="seconds between ticks with --forever")
        parser.add_argument("--timeout", type=float, default=600.0, help="give up waiting after this many seconds")

    def handle(self, *args, ladder, matches, forever, interval, timeout, **options):
        if not 0 <= matches <= 100_000:
            raise CommandError(f"--matches must be from 0 to 100000, not {matches}")
        if not 0.1 <= interval <= 3600:  # also refuses nan
            raise CommandError(f"--interval must be from 0.1 to 3600 seconds, not {interval}")
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
        eager = settings.CELERY_TASK_ALWAYS_EAGER
        finished = 0
        started_at = time.monotonic()
        if eager:
            # no worker and no watchdog in this mode: finish what an interrupted run left behind first
            left = Match.objects.filter(status=Match.Status.RUNNING, ladder_match__ladder__in=ladders)
            for match_id in left.values_list("pk", flat=True):
                if match_advance(match_id=match_id) == "finished":
                    self.stdout.write(f"resumed and finished match #{match_id}, left running by an earlier run")
        try:
            finished = self._loop(ladders, matches, forever, interval, timeout, eager, started_at)
        except OperationalError as exc:
            raise CommandError(f"cannot reach the Celery broker at {settings.CELERY_BROKER_URL} ({exc}): start "
                               "Redis, or unset CELERY_BROKER_URL to play in-process. Matches already created "
                               "are resumed by the watchdog once the broker is back.") from None
        self.stdout.write(self.style.SUCCESS(f"{finished} match{'' if finished == 1 else 'es'} finished"))

    def _loop(self, ladders, matches, forever, interval, timeout, eager, started_at) -> int:
        finished = 0
        while forever or finished < matches:
            started = []
            for lad in ladders:
                started += ladder_schedule_matches(ladder=lad, limit=None if forever else max(1, matches - finished))
            for match in started:
                if eager:
                    match_advance(match_id=match.pk)
                    finished += 1
                    self._progress(match.pk, finished, matches, forever)
                else:
                    advance_match.delay(match.pk)
            if not eager:
                running = [m.pk for m in started]
                while running and time.monotonic() - started_at < timeout:
                    time.sleep(0.5)
                    done = list(Match.objects.filter(pk__in=running).exclude(status=Match.Status.RUNNING)
                                .values_list("pk", flat=True))
                    for pk in done:
                        running.remove(pk)
                        finished += 1
                        self._progress(pk, finished, matches, forever)
            if not forever and time.monotonic() - started_at > timeout:
                raise CommandError(f"gave up after {timeout:.0f} s with {finished} of {matches} matches finished")
            if eager:  # no watchdog in this mode: play the fallback for people whose move clock ran out
                for match_id in matches_clock_expired():
                    match_advance(match_id=match_id)
            if forever:
                time.sleep(interval)
            elif not started:
                time.sleep(0.5)
        return finished

    def _progress(self, match_id: int, finished: int, total: int, forever: bool) -> None:
        match = Match.objects.prefetch_related("seats__player").get(pk=match_id)
        names = " vs ".join(f"{'*' if s.place == 1 else ''}{s.player.name} ({s.total})" for s in match.seats.all())
        of = "" if forever else f"/{total}"
        width = min(total, 30)
        filled = width * finished // max(total, 1)
        bar = "" if forever else "[" + "#" * filled + "." * (width - filled) + "] "
        self.stdout.write(f"{bar}{finished}{of} match #{match_id}: {names}, {match.deal_number} deals "
                          f"(* = first place; {'lowest' if match.ruleset.get('scoring') == 'penalty' else 'highest'} total wins)")
