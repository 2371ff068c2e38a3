from django import forms
from django.contrib import admin

from games.engine import Ruleset

from tournaments.models import DuplicateSet, DuplicateSetMatch, Ladder, LadderEntry, LadderMatch, RatingChange


class LadderForm(forms.ModelForm):
    class Meta:
        model = Ladder
        fields = "__all__"

    def clean_ruleset(self):
        try:
            return Ruleset.from_dict(self.cleaned_data["ruleset"]).to_dict()
        except (ValueError, TypeError) as exc:
            raise forms.ValidationError(str(exc)) from None


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    form = LadderForm
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


# -- duplicate play
class DuplicateSetMatchInline(admin.TabularInline):
    model = DuplicateSetMatch
    fields = ("rotation", "match")
    readonly_fields = ("rotation", "match")
    extra = 0
    can_delete = False


@admin.register(DuplicateSet)
class DuplicateSetAdmin(admin.ModelAdmin):
    list_display = ("id", "ladder", "seat_count", "created_at", "rated_at", "void_reason")
    list_filter = ("ladder",)
    readonly_fields = ("ladder", "seed", "seat_count", "rated_at", "void_reason")
    inlines = [DuplicateSetMatchInline]
