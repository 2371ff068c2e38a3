"""Flag, for staff to review, what the fair-play signals see (``games.people.fairplay.fairplay_scan``)."""

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = ("Flag people whose decisions match the expert far more often than other people's, and bots whose results "
            "against one owner's bots look arranged: open reports (reason 'signal') in the admin's queue. Nobody is "
            "warned, hidden or banned automatically. Celery beat runs it every FAIRPLAY_SCAN_SECONDS.")

    def handle(self, *args, **options):
        from games.people.fairplay import fairplay_scan

        flags = fairplay_scan()
        for report in flags:
            self.stdout.write(f"flagged {report.player.name}: {report.note}")
        self.stdout.write(self.style.SUCCESS(f"{len(flags)} new flag{'' if len(flags) == 1 else 's'}"))
