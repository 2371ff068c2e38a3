"""Output shapes shared by the bot owners' API views (each view nests its own Input serializer).

Serializers only shape data: what a bot may be called, where it may live and whether it may enter a ladder is
decided by ``bots_api.services``. The signing secret is in exactly one shape, ``BotWithSecretOutput``, used by
registration and rotation only.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers



class LadderEntryOutput(serializers.Serializer):
    ladder = serializers.CharField(source="ladder.slug")
    ladder_name = serializers.CharField(source="ladder.name")
    is_active = serializers.BooleanField(help_text="false: left the ladder (or the bot cannot play)")
    rating = serializers.FloatField(source="ordinal", help_text="conservative rating mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    matches_played = serializers.IntegerField()
    wins = serializers.IntegerField()


class BotOutput(serializers.Serializer):
    """A bot as its owner sees it (never the secret)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    endpoint_url = serializers.CharField()
    is_enabled = serializers.BooleanField()
    verified_at = serializers.DateTimeField(allow_null=True, help_text="when the bot last passed a full check")
    suspended_reason = serializers.CharField(help_text="empty unless suspended")
    suspension_count = serializers.IntegerField(help_text="how many times the bot was suspended (never reset)")
    suspended_until = serializers.DateTimeField(
        allow_null=True, help_text="a repeated suspension's cool-off: no check lifts it before this time")
    suspension_lift = serializers.CharField(help_text="what lifts the suspension and when (empty unless suspended)")
    failed_matches_in_a_row = serializers.IntegerField(
        source="consecutive_failed_matches", help_text="BOT_SUSPEND_AFTER_FAILED_MATCHES of them suspend the bot; "
        "a bot whose suspension was lifted starts one short (probation)")
    can_play = serializers.BooleanField(help_text="enabled, verified and not suspended")
    reported_name = serializers.CharField(help_text="the name the bot gave in its last ping")
    reported_version = serializers.CharField()
    accepts_challenges = serializers.BooleanField(help_text="other owners may name it as an opponent in their trials")
    webhook_url = serializers.CharField(help_text="where its notifications are POSTed (empty: none)")
    webhook_disabled_at = serializers.DateTimeField(
        allow_null=True, help_text="set when a delivery failed every try: the webhook is off until its URL is set again")
    ladders = LadderEntryOutput(source="player.ladder_entries.all", many=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class BotWithSecretOutput(BotOutput):
    """A bot with its signing secret: answered once, at registration or rotation. Keep it: it is not shown again."""

    secret = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(help_text="HMAC-SHA256 signing secret, shown only in this answer"))
    def get_secret(self, bot) -> str:
        return self.context["secret"]


class SeatOutput(serializers.Serializer):
    index = serializers.IntegerField()
    player = serializers.CharField(source="player.name")
    kind = serializers.CharField(source="player.kind")
    total = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    forfeited = serializers.BooleanField()


class MatchOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    preset = serializers.CharField()
    ladder = serializers.CharField(source="ladder_match.ladder.slug", allow_null=True, default=None)
    deal_number = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = SeatOutput(many=True, source="seats.all")


class LatencyOutput(serializers.Serializer):
    window = serializers.IntegerField(help_text="turns measured: the most recent ones, at most 1000")
    p50 = serializers.IntegerField(allow_null=True)
    p95 = serializers.IntegerField(allow_null=True)
    max = serializers.IntegerField(allow_null=True)


class FaultSampleOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    deal_number = serializers.IntegerField()
    ply = serializers.IntegerField()
    cause = serializers.CharField()
    at = serializers.DateTimeField()


class FaultKindOutput(serializers.Serializer):
    kind = serializers.CharField(help_text="timeout, connection, address, http_status, redirect, oversize, "
                                           "bad_json, schema, illegal or disabled")
    count = serializers.IntegerField()
    recent = FaultSampleOutput(many=True, help_text="the 5 most recent, newest first")


class HealthOutput(serializers.Serializer):
    calls = serializers.IntegerField(help_text="turns the bot was asked for (every stored ply of its seats)")
    latency_ms = LatencyOutput(help_text="round trip of each turn call, in ms")
    fault_count = serializers.IntegerField()
    faults = FaultKindOutput(many=True)
    suspended_reason = serializers.CharField()


class PlayerProfileOutput(serializers.Serializer):
    """What anyone may see of a player."""

    id = serializers.IntegerField(help_text="the player's id (GET /api/players/{id}/ works as well as the name)")
    name = serializers.CharField()
    kind = serializers.CharField(help_text="human, bot or house")
    owner = serializers.CharField(allow_null=True, help_text="the owner's user name (bots only)")
    fault_count = serializers.IntegerField(allow_null=True, help_text="faults over all matches (bots only)")
    ratings = LadderEntryOutput(many=True)
    recent_matches = MatchOutput(many=True)


class CheckResultOutput(serializers.Serializer):
    name = serializers.CharField(help_text="ping, bad signature, stale timestamp, no signature, turn: ..., match_end")
    status = serializers.CharField(help_text="PASS, FAIL or WARN (a WARN does not fail the check)")
    detail = serializers.CharField()


class BotCheckOutput(serializers.Serializer):
    """One check of a bot (what Verify starts): queued, running, then passed or failed."""

    id = serializers.IntegerField()
    state = serializers.CharField(help_text="queued, running, passed or failed")
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    detail = serializers.CharField(help_text="the outcome in a sentence: the first failed check and its cause")
    latency_ms = serializers.IntegerField(allow_null=True, help_text="the ping's round trip")
    checks = CheckResultOutput(many=True, help_text="each check in the order sent (only the ping when it failed)")


class TurnOutput(serializers.Serializer):
    """One logged turn of a bot, for its owner only (``bots_api.turnlog.turn_as_dict``)."""

    id = serializers.IntegerField()
    match = serializers.IntegerField(help_text="the match id")
    deal = serializers.IntegerField(help_text="the deal number, 1-based")
    ply = serializers.IntegerField(help_text="the ply within the deal, 0-based (the replay shows the position after "
                                                         "it at /matches/{match}/replay/?deal={deal}&ply={ply + 1})")
    seat = serializers.IntegerField()
    at = serializers.CharField(help_text="when the call was made (UTC, ISO 8601)")
    latency_ms = serializers.IntegerField(help_text="the call's round trip, ms")
    status = serializers.IntegerField(allow_null=True, help_text="the reply's HTTP status (null: no answer)")
    request = serializers.JSONField(help_text="the exact turn request body the bot was sent")
    reply = serializers.JSONField(allow_null=True, help_text="the bot's reply (parsed if JSON, else its text, cut "
                                                             "at TURN_LOG_REPLY_MAX_BYTES); null: no answer")
    reply_bytes = serializers.IntegerField(help_text="the reply's full size in bytes")
    reply_cut = serializers.BooleanField(help_text="whether the stored reply was cut")
    debug = serializers.CharField(help_text="the bot's own debug note (at most 1000 characters), for its owner only")
    debug_warning = serializers.CharField(help_text="what was wrong with the debug note (too long, not a string)")
    played = serializers.JSONField(allow_null=True, help_text="the action stored for this ply (the bot's or the "
                                                              "fallback); null: this call's ply was not stored")
    source = serializers.CharField(allow_null=True, help_text="agent (the bot's action stood) or fallback")
    fault_kind = serializers.CharField(allow_null=True, help_text="empty when the answer stood")
    fault = serializers.CharField(allow_null=True, help_text="the fault and its cause")


class VersionOutput(serializers.Serializer):
    version = serializers.CharField(help_text="the version the bot reported before the match (empty: not recorded)")
    matches = serializers.IntegerField()
    finished = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="finished in first place (shared or not)")
    mean_place = serializers.FloatField(allow_null=True)
    forfeits = serializers.IntegerField()
    rated = serializers.IntegerField(help_text="matches that moved a ladder rating")
    rating_change = serializers.FloatField(help_text="sum of the rating (ordinal) changes over them")
