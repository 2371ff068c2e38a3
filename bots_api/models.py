"""Submitted bots: an HTTP endpoint, its owner and signing secret, and its standing (verified, suspended)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Player


class Bot(models.Model):
    """A bot registered by an owner. Its seat-taking identity is ``player`` (kind ``bot``).

    ``secret`` signs every request (HMAC-SHA256); it is shown to the owner once, at registration and rotation,
    and is stored because the service must sign with it. A bot plays on ladders only when ``is_enabled``,
    verified (``verified_at``: a signed ping answered correctly) and not suspended.
    """

    player = models.OneToOneField(Player, related_name="bot", on_delete=models.CASCADE)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="bots", on_delete=models.CASCADE)
    endpoint_url = models.URLField(max_length=300)
    secret = models.CharField(max_length=80)
    is_enabled = models.BooleanField(default=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    suspended_reason = models.CharField(max_length=300, blank=True)
    consecutive_forfeits = models.PositiveIntegerField(default=0)
    reported_name = models.CharField(max_length=100, blank=True, help_text="name the bot gave in its last ping")
    reported_version = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["player__name"]

    def __str__(self) -> str:
        return self.player.name

    @property
    def name(self) -> str:
        return self.player.name

    @property
    def can_play(self) -> bool:
        return self.is_enabled and self.verified_at is not None and not self.suspended_reason
