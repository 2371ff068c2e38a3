from django import forms
from django.contrib import admin

from eights_engine import Ruleset

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


from tournaments.models import Tournament, TournamentEntry, TournamentMatch, TournamentRound  # noqa: E402


class TournamentForm(forms.ModelForm):
    """The admin's tournament: the ruleset may be left empty (the preset's, with ``target``)."""

    class Meta:
        model = Tournament
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ruleset"].required = False

    def clean(self):
        data = super().clean()
        try:
            if data.get("ruleset"):
                ruleset = Ruleset.from_dict(data["ruleset"])
            else:
                ruleset = Ruleset.preset(data.get("preset") or "pagat", target=data.get("target") or 100)
        except (ValueError, TypeError) as exc:
            raise forms.ValidationError({"ruleset": str(exc)}) from None
        data["ruleset"] = ruleset.to_dict()
        self.instance.ruleset = data["ruleset"]
        return data


class TournamentEntryInline(admin.TabularInline):
    model = TournamentEntry
    extra = 0
    raw_id_fields = ("player",)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ("name", "format", "duplicate", "preset", "seats_per_match", "status", "starts_at", "created_by")
    list_filter = ("format", "status")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("started_at", "finished_at")
    inlines = [TournamentEntryInline]

    def save_model(self, request, obj, form, change):
        if obj.created_by_id is None:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(TournamentRound)
class TournamentRoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "created_at", "finished_at")


@admin.register(TournamentMatch)
class TournamentMatchAdmin(admin.ModelAdmin):
    list_display = ("round", "pod", "game", "match")


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
