from django.contrib import admin

from tournaments.models import Ladder, LadderEntry, LadderMatch, RatingChange


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "preset", "seats_per_match", "target", "max_running_matches", "is_active")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ("ladder", "player", "ordinal", "mu", "sigma", "matches_played", "wins", "is_active")
    list_filter = ("ladder",)


@admin.register(LadderMatch)
class LadderMatchAdmin(admin.ModelAdmin):
    list_display = ("ladder", "match", "rated_at")


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("entry", "match", "place", "ordinal_before", "ordinal_after", "created_at")
