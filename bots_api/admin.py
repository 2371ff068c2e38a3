from django.contrib import admin

from bots_api.models import Bot


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("player", "owner", "endpoint_url", "is_enabled", "verified_at", "suspended_reason")
    list_filter = ("is_enabled",)
    search_fields = ("player__name", "owner__username")
    exclude = ("secret",)  # the signing secret is shown to its owner once, nowhere else
