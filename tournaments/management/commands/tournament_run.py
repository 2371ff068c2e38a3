"""Play a tournament to the end in this process, with a progress bar, and print the final standings."""

import time

from django.core.management.base import BaseCommand, CommandError

from games.models import Match
from games.services import match_advance
from tournaments.models import Tournament, TournamentMatch
from tournaments.tournament_selectors import tournament_standings
from tournaments.tournament_rounds import tournament_match_count
from tournaments.tournament_services import TournamentError, access_tournament, tournament_advance, tournament_start


class Command(BaseCommand):
    help = ("Start the tournament (when still registering) and play every match of every round here, in turn, "
            "until it finishes; then print the standings. Matches a Celery worker holds are waited for.")

    def add_arguments(self, parser):
        parser.add_argument("tournament", help="the tournament's id or slug")
        parser.add_argument("--timeout", type=float, default=3600.0, help="give up after this many seconds")

    def handle(self, *args, tournament, timeout, **options):
        try:
            t = access_tournament(key=tournament)
            if t.status == Tournament.Status.REGISTERING:
                tournament_start(tournament=t)
        except TournamentError as exc:
            raise CommandError(exc.detail) from None
        began = time.monotonic()
        shown = -1
        while True:
            state = tournament_advance(tournament_id=t.pk)
            t.refresh_from_db()
            done, total = tournament_match_count(tournament=t)
            if done != shown:
                self._bar(t, done, total)
                shown = done
            if t.status == Tournament.Status.FINISHED:
                break
            running = list(TournamentMatch.objects.filter(round__tournament=t, match__status=Match.Status.RUNNING)
                           .values_list("match_id", flat=True))
            moved = False
            for match_id in running:
                outcome = match_advance(match_id=match_id, ply_budget=400)
                moved |= outcome in ("finished", "budget")
            if time.monotonic() - began > timeout:
                raise CommandError(f"gave up after {timeout:.0f} s ({done} of {total} matches ended; {state})")
            if not moved:
                time.sleep(0.2)  # waiting for a person or for a worker that holds the match
        self.stdout.write("")
        self._standings(t)

    def _bar(self, t, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        rnd = t.round_set.count()
        self.stdout.write(f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} matches, round {rnd}"
                          f"{'/' + str(t.rounds) if t.rounds else ''}")

    def _standings(self, t) -> None:
        swiss = t.format == Tournament.Format.SWISS
        self.stdout.write(self.style.SUCCESS(f"{t.name}: final standings"
                                             f"{' (' + t.note + ')' if t.note else ''}"))
        head = f"{'rank':>4}  {'player':<24} {'kind':<9} {'points':>6}"
        head += f" {'buchholz':>8}" if swiss else ""
        self.stdout.write(head + f" {'h2h':>4} {'cards':>6}")
        for row in tournament_standings(tournament=t):
            line = f"{row.rank:>4}  {row.player.name[:24]:<24} {row.player.label:<9} {row.points:>6.2f}"
            line += f" {row.buchholz:>8.2f}" if swiss else ""
            self.stdout.write(line + f" {row.head_to_head:>4.0f} {row.card_points:>6}"
                              + (" (withdrawn)" if row.withdrawn else ""))
