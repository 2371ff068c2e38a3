"""``manage.py prune_turn_logs``: delete bots' logged turns older than ``TURN_LOG_DAYS`` days (the Celery beat task
``bots_api.tasks.prune_turn_logs`` does the same every hour)."""

from django.conf import settings
from django.core.management.base import BaseCommand

from bots_api.turnlog import turn_log_prune


class Command(BaseCommand):
    help = "Delete bots' logged turns older than TURN_LOG_DAYS days (default 30)."

    def handle(self, *args, **options):
        deleted = turn_log_prune()
        self.stdout.write(f"deleted {deleted} logged turns older than {settings.TURN_LOG_DAYS} days")
