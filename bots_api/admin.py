from django.contrib import admin

from bots_api.models import Bot, BotCheck


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("player", "owner", "endpoint_url", "is_enabled", "verified_at", "suspended_reason")
    list_filter = ("is_enabled",)
    search_fields = ("player__name", "owner__username")
    exclude = ("secret",)  # the signing secret is shown to its owner once, nowhere else


@admin.register(BotCheck)
class BotCheckAdmin(admin.ModelAdmin):
    """Checks as they ran (read only: a check's outcome is what the bot answered)."""

    list_display = ("bot", "state", "requested_at", "finished_at", "detail")
    list_filter = ("state",)
    search_fields = ("bot__player__name",)
    readonly_fields = ("bot", "state", "requested_at", "started_at", "finished_at", "detail", "checks", "latency_ms")

    def has_add_permission(self, request) -> bool:
        return False


# ---- trials (bots_api.trials) ----
from bots_api.models import Trial  # noqa: E402


@admin.register(Trial)
class TrialAdmin(admin.ModelAdmin):
    """Trials as their owners started them (read only: created through the API, played by the workers)."""

    list_display = ("id", "bot", "owner", "bot_version", "preset", "ladder", "match_count", "duplicate", "created_at")
    search_fields = ("bot__player__name", "owner__username")
    readonly_fields = ("bot", "owner", "bot_version", "opponents", "opponent_players", "preset", "ruleset", "ladder",
                       "seat_count", "match_count", "seeds", "duplicate", "turn_timeout_ms", "created_at")

    def has_add_permission(self, request) -> bool:
        return False
