from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from games.models import Deal, Match, Move, Player, Report, Seat
from games.people.fairplay import report_decide


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "strategy", "user", "banned_at", "hidden_from_boards", "created_at")
    list_filter = ("kind", "hidden_from_boards")
    search_fields = ("name",)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "preset", "status", "seat_count", "deal_number", "ply_count", "created_at", "finished_at")
    list_filter = ("status", "preset")
    inlines = [SeatInline]
    raw_id_fields = ("after",)  # a select of every match would be the whole table
    # the secret deals every card of a version 2 match: the admin never shows or edits it (docs/FAIRNESS.md)
    exclude = ("secret",)
    readonly_fields = ("commitment", "seed", "single_deal_seed", "single_deal_key")


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("match", "index", "player", "total", "place")


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "code", "dealer", "outcome", "winner", "plies", "engine_version")
    # the salt opens the public commitment once the match is finished (match record, match page); the admin never
    # shows or edits it: a salt seen while the deal runs would let its holder check guesses of the seed
    exclude = ("salt", "key", "seed")  # and a deal's key (version 2) or seed deals its cards: never shown here either
    readonly_fields = ("commitment",)


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("deal", "ply", "seat", "action", "source", "fault", "think_ms")
    list_filter = ("source",)


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """The fair-play queue (``games.people.fairplay``): open reports first, with the match link; the actions apply
    staff's decision to the reported player's account and close every open report on it."""

    list_display = ("created_at", "player_link", "banned", "reason", "status", "reporter", "match_link", "note")
    list_filter = ("status", "reason")
    search_fields = ("player__name", "note")
    raw_id_fields = ("player", "match", "reporter", "handled_by")
    readonly_fields = ("created_at", "handled_at", "handled_by")
    actions = ("warn", "hide", "ban", "dismiss")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player", "reporter", "match").order_by(
            "-status", "-created_at")  # "open" sorts after the closed words: newest open reports first

    @admin.display(description="player")
    def player_link(self, report):
        return format_html('<a href="{}">{}</a>', reverse("player-profile", args=[report.player.name]),
                           report.player.name)

    @admin.display(boolean=True, description="banned")
    def banned(self, report):
        return report.player.banned_at is not None

    @admin.display(description="match")
    def match_link(self, report):
        if report.match_id is None:
            return "-"
        return format_html('<a href="{}">#{}</a> (<a href="{}">replay</a>)', reverse("match-detail", args=[report.match_id]),
                           report.match_id, reverse("match-replay", args=[report.match_id]))

    def _decide(self, request, queryset, decision):
        for report in queryset.select_related("player"):
            report_decide(report=report, decision=decision, staff=request.user)
        self.message_user(request, f"{queryset.count()} report(s): {decision}")

    @admin.action(description="Warn the reported account (a notification)")
    def warn(self, request, queryset):
        self._decide(request, queryset, Report.Status.WARNED)

    @admin.action(description="Hide the reported account from every leaderboard")
    def hide(self, request, queryset):
        self._decide(request, queryset, Report.Status.HIDDEN)

    @admin.action(description="Ban the reported account from rated play and tournaments")
    def ban(self, request, queryset):
        self._decide(request, queryset, Report.Status.BANNED)

    @admin.action(description="Dismiss: nothing to do")
    def dismiss(self, request, queryset):
        self._decide(request, queryset, Report.Status.DISMISSED)
