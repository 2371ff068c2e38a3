"""``manage.py export_matches [--since DATE] [--ladder SLUG] FILE``: finished matches' records as NDJSON."""

import json
import sys
import time
from datetime import datetime, time as dt_time
from datetime import timezone as dt_timezone

from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_date, parse_datetime

from games.matches.exports import match_exports, matches_for_export


def _since(text: str) -> datetime:
    """``2026-12-01`` (midnight UTC) or an ISO 8601 date and time (naive: UTC), as an aware UTC datetime.
    ``CommandError`` naming ``text`` when it is not one, or not a real one (2026-02-30, hour 99, a year past 9999
    once in UTC)."""
    wrong = (f"--since takes a date (2026-12-01) or a date and time (2026-12-01T08:00Z), not {text!r}")
    if not text.isascii():  # Django's parsers read any Unicode digit as \d
        raise CommandError(wrong)
    try:
        value = parse_datetime(text)
        if value is None:
            day = parse_date(text)
            if day is None:
                raise CommandError(wrong)
            value = datetime.combine(day, dt_time.min)
        return value.replace(tzinfo=dt_timezone.utc) if value.tzinfo is None else value.astimezone(dt_timezone.utc)
    except (ValueError, OverflowError) as exc:
        raise CommandError(f"{wrong}: {exc}") from None


class Command(BaseCommand):
    help = ("Write the record of every finished match (docs/MATCH_RECORD.md) to FILE, one JSON object per line "
            "(NDJSON), oldest finish first; running and aborted matches are never exported. Check the file "
            "offline with: python -m eights_engine replay FILE")

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="where to write the NDJSON (- for stdout)")
        parser.add_argument("--since", help="only matches finished at or after this date / time (UTC)")
        parser.add_argument("--ladder", metavar="SLUG", help="only matches played for this ladder")

    def handle(self, *args, file, since, ladder, **options):
        if ladder:
            from tournaments.models import Ladder

            if not Ladder.objects.filter(slug=ladder).exists():
                raise CommandError(f"no ladder with slug {ladder!r}")
        matches = matches_for_export(since=_since(since) if since else None, ladder_slug=ladder)
        total = matches.count()
        out = sys.stdout if file == "-" else None
        try:
            handle = out or open(file, "w", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {file}: {exc}") from None
        started, written = time.perf_counter(), 0
        try:  # in chunks of 200 matches, four queries each (match_exports); a match deleted meanwhile is skipped
            for record in match_exports(matches=matches):
                handle.write(json.dumps(record, separators=(",", ":")) + "\n")
                written += 1
                self._progress(written, total, started)
        finally:
            if out is None:
                handle.close()
        if written < total:
            self._progress(total, total, started)
        self.stderr.write(f"{written} finished match record{'s' if written != 1 else ''} written to {file}")

    def _progress(self, done: int, total: int, started: float) -> None:
        if done % max(1, total // 50) and done != total:
            return
        rate = done / max(time.perf_counter() - started, 1e-9)
        self.stderr.write(f"\rexporting: {done}/{total} matches  {rate:,.0f}/s", ending="")
        if done == total:
            self.stderr.write("")
