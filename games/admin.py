from django.contrib import admin

from games.models import Deal, Match, Move, Player, Seat


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "strategy", "user", "created_at")
    list_filter = ("kind",)
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
