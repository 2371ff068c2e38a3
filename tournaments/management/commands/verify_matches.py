"""``manage.py verify_matches [--since DATE] [--ladder SLUG]``: replay every stored finished match and report every
mismatch.

It lives in tournaments (like export_matches) because ``--ladder`` reads ladders and games never imports
tournaments (lint-imports).
"""

import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from eights_engine import ReplayMismatch
from eights_engine.record import verify_record
from games.matches.exports import match_exports, matches_for_export
from tournaments.management.commands.export_matches import _since


class Command(BaseCommand):
    help = ("Replay every stored finished match from its seeds and stored plies with the engine (the check of "
            "python -m eights_engine replay: every ply legal, every deal's seed, code, dealer, commitment and "
            "result, the match's totals and places, each seat's total, place and forfeit, a commitment on every deal "
            "of a match created after commitments existed) and report every mismatch: match id, deal, ply, expected, "
            "found. Exit status 1 when there is one, 0 when none. Matches are read in chunks (flat memory).")

    def add_arguments(self, parser):
        parser.add_argument("--since", help="only matches finished at or after this date / time (UTC)")
        parser.add_argument("--ladder", metavar="SLUG", help="only matches played for this ladder")
        parser.add_argument("--chunk", type=int, default=200, help="matches read per chunk (default 200)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (a log or a pipe)")

    def handle(self, *args, since, ladder, chunk, no_progress, **options):
        if ladder:
            from tournaments.models import Ladder

            if not Ladder.objects.filter(slug=ladder).exists():
                raise CommandError(f"no ladder with slug {ladder!r}")
        if chunk < 1:
            raise CommandError(f"--chunk is 1 or more, not {chunk}")
        matches = matches_for_export(since=_since(since) if since else None, ladder_slug=ladder)
        total = matches.count()
        report = verify_matches(matches, total=total, chunk=chunk, progress=not no_progress,
                                err=getattr(self.stderr, "_out", sys.stderr))  # tqdm writes raw: no added newlines
        for line in report.mismatch_lines():
            self.stdout.write(line)
        self.stdout.write(report.summary())
        if report.mismatches:
            raise CommandError(f"{len(report.mismatches)} stored match(es) do not replay: see the MISMATCH lines",
                               returncode=1)


class Report:
    """What ``verify_matches`` found: ``checked`` matches, ``plies``, ``uncommitted`` deals (stored before
    commitments), ``mismatches`` as ``(match id, ReplayMismatch)``, ``seconds``."""

    def __init__(self) -> None:
        self.checked = self.plies = self.deals = self.uncommitted = 0
        self.mismatches: list[tuple[int, ReplayMismatch]] = []
        self.seconds = 0.0

    def mismatch_lines(self) -> list[str]:
        lines = []
        for match_id, exc in self.mismatches:
            where = " ".join(f"{k} {v}" for k, v in (("deal", exc.deal), ("ply", exc.ply)) if v is not None)
            lines.append(f"MISMATCH match {match_id}{' ' + where if where else ''}: {exc}")
        return lines

    def summary(self) -> str:
        rate = self.checked / self.seconds if self.seconds else 0.0
        plies = self.plies / self.seconds if self.seconds else 0.0
        fair = f", {self.uncommitted} deal(s) with no commitment (dealt before commitments)" if self.uncommitted else ""
        return (f"verified {self.checked} finished match(es), {self.deals} deals, {self.plies} plies in "
                f"{self.seconds:.2f} s ({rate:,.1f} matches/s, {plies:,.0f} plies/s): {len(self.mismatches)} "
                f"mismatch(es){fair}")


#: the migration that added deal commitments: a match created after it was applied here must have them all
COMMITMENTS_MIGRATION = ("games", "0011_deal_salt_commitment")


def commitments_since():
    """When this database began storing commitments: the time ``COMMITMENTS_MIGRATION`` was applied (an aware
    datetime), or None when the migration table does not say."""
    from django.db.migrations.recorder import MigrationRecorder

    app, name = COMMITMENTS_MIGRATION
    return (MigrationRecorder.Migration.objects.filter(app=app, name=name).values_list("applied", flat=True)
            .first())


def _check_seating(record: dict) -> None:
    """The seats' players against the seating the match committed to (version 2): ``ReplayMismatch`` naming the
    first seat whose player changed, unless its committed player no longer exists (an adopted guest)."""
    seating = record.get("seating")
    if not seating:
        return
    from games.models import Player

    for seat, (committed, player) in enumerate(zip(seating, record["players"])):
        if player.get("player_id") != committed and Player.objects.filter(pk=committed).exists():
            raise ReplayMismatch(f"match: seat {seat}'s player expected {committed} (the seating committed to), "
                                 f"found {player.get('player_id')} ({player.get('name')})", what="seating",
                                 expected=committed, found=player.get("player_id"))


def verify_matches(matches, *, total: int | None = None, chunk: int = 200, progress: bool = False,
                   err=None) -> Report:
    """Replay every finished match of the ``matches`` queryset (``games.matches.exports.match_exports``, read in chunks of
    ``chunk``) with ``eights_engine.record.verify_record``; a mismatch is recorded and the next match checked. A
    match created after commitments existed here (``commitments_since``) must have one on every deal. A version 2
    match's seats must hold the players its commitment binds (``seating``), but for a seat whose committed player
    is gone (a guest who signed up: the account's player took the seat over, ``games.people.guests.guest_adopt``).
    ``progress``: a tqdm bar on ``err`` (a stream; stderr by default)."""
    report = Report()
    since = commitments_since()
    started = time.perf_counter()
    bar = tqdm(total=total, unit="match", desc="verifying", file=err or sys.stderr, disable=not progress,
               dynamic_ncols=True)
    try:
        for record in match_exports(matches=matches, chunk_size=chunk, sign=False):
            try:
                verify_record(record, committed_since=since)
                _check_seating(record)
            except ReplayMismatch as exc:
                report.mismatches.append((record["match"], exc))
                bar.set_postfix(mismatches=len(report.mismatches), refresh=False)
            report.checked += 1
            report.deals += len(record["deals"])
            report.plies += sum(len(d["actions"]) for d in record["deals"])
            report.uncommitted += sum(1 for d in record["deals"] if "commitment" not in d)
            bar.update(1)
    finally:
        bar.close()
    report.seconds = time.perf_counter() - started
    return report
