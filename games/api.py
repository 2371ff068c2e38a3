"""The REST API for people at a table: a seat's view, and a move answering a given ply.

``GET /api/matches/{id}/seats/{seat}/`` gives the person in the seat the same view a bot receives, the legal actions
when it is their turn, and ``ply`` (the match's ply count) to send back with the move.
``POST /api/matches/{id}/seats/{seat}/actions/`` with ``{"ply": n, "action": {...}}`` stores the move: 400 with the
rule's reason for an illegal action, 403 for someone else's seat (a bot's seat too, also for its owner), 404 for an unknown match or seat, 409 ``stale_ply``
when the position moved on (another ply was stored first, e.g. the move clock's fallback, or the match ended). A
move never waits for the worker, and a double submit stores the ply once. The view and its ``ply`` are read at one
instant (``games.matches.snapshots.match_snapshot``, or ``match_state_snapshot``: the same from a cached state).
"""

from __future__ import annotations


from django.http import HttpResponseNotModified
from django.urls import reverse
from drf_spectacular.utils import (OpenApiResponse, extend_schema, extend_schema_field, extend_schema_serializer,
                                   inline_serializer)
from rest_framework import serializers, status
from rest_framework.authentication import CSRFCheck
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied
from rest_framework.permissions import SAFE_METHODS, AllowAny, BasePermission, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from games import services
from games.hooks import MATCH_GROUPS
from games.browse import (ORDERS, STATUSES, MatchCursorPagination, check_match_filters, list_seats,
                          match_browse, session_player)
from games.people.casual import casual_start
from eights_engine import PRESETS
from eights_engine.cards import HOLLYWOOD_VALUES, STANDARD_VALUES, parse_card
from eights_engine.keys import CONTRIBUTION_PATTERN
from games.people.guests import session_guest
from games.models import Match, Seat
from games.matches.exports import MatchNotFinished, match_export, match_is_public
from games.matches.leavers import match_end_wait, presence_note, table_presence
from games.matches.talk import TALK_PHRASES, talk_recent, talk_say
from games.matches.seats import person_seat, seat_etag, seat_view, seat_waits_for
from games.matches.snapshots import match_state_snapshot
from sitekit.errors import ApiError, error_response, refuse_unknown_fields
from sitekit.limits import ScopedRateThrottle


_err = error_response


#: the answers every seat endpoint may give besides its own
SEAT_ERRORS = {401: _err("not logged in (token or session) and no guest session in this browser"),
               403: _err("not your seat (or a guest's write without its CSRF token)"),
               404: _err("no such match or seat"), 429: _err("too many requests: see Retry-After")}


@extend_schema_field({"type": "object", "additionalProperties": True})
class ActionField(serializers.JSONField):
    """An action: a JSON object (bot protocol v1's action vocabulary); the engine judges it, not the serializer."""


class PersonOrGuest(BasePermission):
    """A logged-in person (token or session), or a browser whose session carries a guest player
    (``games.people.guests.session_guest``, kept on ``request.guest``). A guest is known by the session cookie alone, so
    its writes must pass Django's CSRF check (DRF checks it only for logged-in sessions). Anyone else: 401 saying
    how to get a seat."""

    def has_permission(self, request, view) -> bool:
        request.guest = None
        if request.user and request.user.is_authenticated:
            return True
        guest = session_guest(request)
        if guest is None:
            raise NotAuthenticated("log in (a token or the session), or deal a guest table on the home page: a guest's "
                                   "table opens only in the browser that dealt it, while its guest session lasts")
        if request.method not in SAFE_METHODS:
            _enforce_csrf(request)
        request.guest = guest
        return True


def _enforce_csrf(request) -> None:
    """Django's CSRF check for a cookie-identified guest's write (``PermissionDenied`` "CSRF Failed: ..." : 403)."""
    check = CSRFCheck(lambda _request: None)
    check.process_request(request)  # reads the CSRF cookie
    reason = check.process_view(request, None, (), {})
    if reason:
        raise PermissionDenied(f"CSRF Failed: {reason}")


def _access_seat(request, match_id: int, seat: int) -> tuple[Match, list[Seat]]:
    """``services.access_seat`` for the requesting user or guest (the match and all its seats, one query), its errors
    as 404 / 403 (``MatchNotFound``, ``SeatForbidden``: application errors, answered by the error handler)."""
    match, _seat_row, seats = services.access_seat(match_id=match_id, seat=seat, user=request.user,
                                                   guest=getattr(request, "guest", None))
    return match, seats


class SeatViewApi(APIView):
    permission_classes = [PersonOrGuest]
    throttle_classes = [ScopedRateThrottle]  # a table polls: its own, larger budget (REST_FRAMEWORK rates)
    throttle_scope = "seat_view"

    @extend_schema(summary="Your seat's view", responses={200: inline_serializer("SeatView", {
        "match_id": serializers.IntegerField(), "seat": serializers.IntegerField(),
        "status": serializers.CharField(), "ply": serializers.IntegerField(),
        "abort_reason": serializers.CharField(help_text="why the match was ended early (status aborted), else empty"),
        "waits_for": serializers.IntegerField(allow_null=True, help_text=(
            "the match that must end before this one is played (a duplicate set's earlier rotation), else null: "
            "until it ends no move is taken and the view shows no hand")),
        "your_turn": serializers.BooleanField(), "move_deadline": serializers.DateTimeField(allow_null=True),
        "legal_actions": serializers.ListField(child=serializers.DictField()), "view": serializers.DictField(),
        "deal_number": serializers.IntegerField(help_text="the deal the view shows (1-based)"),
        "commitment": serializers.CharField(allow_null=True, help_text=(
            "the deal's commitment, 64 hex digits (docs/FAIRNESS.md; engine version 2: the hash of the deal's key; "
            "version 1: SHA-256 of f'{seed}:{salt}'), shown from the deal's start; the key (or seed and salt) is "
            "published in the match record once the match is finished. Null for a deal stored before "
            "commitments"))}),
        **SEAT_ERRORS})
    def get(self, request, match_id: int, seat: int):
        access, seat_rows = _access_seat(request, match_id, seat)  # the match row and its seats, one query
        presence_note(match_id=match_id, seat=seat)  # the person is at their table (games.matches.leavers)
        tag = seat_etag(access, seat, seat_waits_for(access), seat_rows)  # 304 from the access read, before any view
        if tag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
            return HttpResponseNotModified(headers={"ETag": tag, "Cache-Control": "private, no-cache"})
        # the view and its ply: one instant, from this process's cached state brought up to date (no whole replay)
        snapshot = match_state_snapshot(match=access)
        data = seat_view(snapshot=snapshot, seat=seat, seats=seat_rows)
        snapshot.keep()  # nothing changed the state: the next read of this match starts from it
        return Response(data, headers={"ETag": seat_etag(snapshot.match, seat, data["waits_for"], seat_rows),
                                       "Cache-Control": "private, no-cache"})


CONTRIBUTION_WORDS = ("a contribution is a string of 2 to 64 lowercase hex digits (1 to 32 bytes), e.g. 64 digits "
                      "from 32 random bytes; leave it out to send none")


class SeatActionApi(APIView):
    permission_classes = [PersonOrGuest]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "seat_action"

    @extend_schema_serializer(component_name="Move")  # nested names must be unique in the schema
    class InputSerializer(serializers.Serializer):
        ply = serializers.IntegerField(min_value=0, help_text="the `ply` of the view this move answers")
        action = ActionField(help_text="one of the view's legal_actions, e.g. "
                                       '{"type": "play", "card": "8H", "suit": "S"}')
        contribution = serializers.RegexField(
            f"^{CONTRIBUTION_PATTERN}$", required=False, help_text=(
                "optional: randomness of your own (2 to 64 lowercase hex digits, e.g. 32 random bytes from your "
                "browser) mixed into the key of the match's next deal; your first in a deal counts "
                "(docs/FAIRNESS.md)"),
            error_messages={msg: CONTRIBUTION_WORDS for msg in ("invalid", "null", "blank")})

        def validate_contribution(self, value: str) -> str:
            if not isinstance(self.initial_data.get("contribution"), str):  # a number is no hex string
                raise serializers.ValidationError(CONTRIBUTION_WORDS)
            return value

    @extend_schema(summary="Make a move", request=InputSerializer, responses={
        200: inline_serializer("MoveStored", {"stored": serializers.BooleanField(), "ply": serializers.IntegerField(),
                                              "status": serializers.CharField(),
                                              "seat_view": serializers.DictField(help_text=(
                                                  "the seat view right after this move and the house seats' "
                                                  "answers to it, as GET .../seats/<seat>/ answers it (SeatView): "
                                                  "no fetch needed to draw it"))}),
        400: _err("illegal_action: the rules forbid this action here (the detail says why)"),
        409: _err("stale_ply: the position moved on (another ply was stored first, or the match ended): fetch the view again"), **SEAT_ERRORS})
    def post(self, request, match_id: int, seat: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data.get("contribution")  # refusals: 404, 403, 409 stale_ply, 400 illegal_action
        stored = services.match_submit_action(match_id=match_id, seat=seat, ply=data.validated_data["ply"],
                                              action=data.validated_data["action"], user=request.user,
                                              guest=request.guest, contribution=bytes.fromhex(given) if given else None)
        return Response({"stored": True, "ply": stored.match.ply_count, "status": stored.match.status,
                         "seat_view": stored.seat_view})


TABLE_PRESENCE = inline_serializer("TablePresence", {
    "match_id": serializers.IntegerField(), "to_play": serializers.IntegerField(allow_null=True),
    "people": serializers.ListField(child=serializers.DictField(), help_text=(
        "each person's seat: index, name, present (seen within two heartbeats), seen_seconds_ago (null: not in the "
        "last hour), left (the others ended the wait for them), stand_in (the house strategy playing it, or null)")),
    "end_wait": serializers.DictField(allow_null=True, help_text=(
        "when the seat to play is another person's: {seat, after_s (seconds until you may end the wait; 0: now), "
        "rated (true: they forfeit; false: a house bot plays their seat)}, else null")),
    "beat_seconds": serializers.IntegerField(help_text="post this heartbeat about this often (s)"),
    "talk": serializers.ListField(child=serializers.DictField(), help_text=(
        "the last 20 phrases said at the table, oldest first: id, seat, phrase, text, deal_number, ply, said_at"))})


class PresenceApi(APIView):
    """``POST /api/matches/<id>/seats/<seat>/presence/``: the person is at their table (a heartbeat, every
    ``beat_seconds``); answers who else is there (``games.matches.leavers.table_presence``)."""

    permission_classes = [PersonOrGuest]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "seat_view"

    @extend_schema(summary="I am at the table (heartbeat); who else is", request=None,
                   responses={200: TABLE_PRESENCE, **SEAT_ERRORS})
    def post(self, request, match_id: int, seat: int):
        match, seat_rows = _access_seat(request, match_id, seat)
        presence_note(match_id=match_id, seat=seat)
        return Response({**table_presence(match=match, seats=seat_rows, viewer=seat),
                         "talk": talk_recent(match_id=match_id)})


class TalkApi(APIView):
    """``POST /api/matches/<id>/seats/<seat>/talk/`` with ``{"phrase": code}``: say one of the table's fixed phrases
    (``games.matches.talk.TALK_PHRASES``)."""

    permission_classes = [PersonOrGuest]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "seat_action"

    @extend_schema_serializer(component_name="TalkPhrase")
    class InputSerializer(serializers.Serializer):
        phrase = serializers.CharField(help_text="one of: " + ", ".join(TALK_PHRASES))

    @extend_schema(summary="Say a phrase at the table", request=InputSerializer, responses={
        201: inline_serializer("TalkSaid", {"id": serializers.IntegerField(), "seat": serializers.IntegerField(),
                                            "phrase": serializers.CharField(), "text": serializers.CharField(),
                                            "deal_number": serializers.IntegerField(),
                                            "ply": serializers.IntegerField(), "said_at": serializers.DateTimeField()}),
        400: _err("bad_phrase: not one of the table's phrases"), 409: _err("not_running: the match is over"),
        **SEAT_ERRORS})
    def post(self, request, match_id: int, seat: int):
        refuse_unknown_fields(request.data, {"phrase"}, "a phrase said at the table")
        match, seat_row, _seats = services.access_seat(match_id=match_id, seat=seat, user=request.user,
                                                       guest=request.guest)
        phrase = request.data.get("phrase") if isinstance(request.data, dict) else None
        return Response(talk_say(match=match, seat_row=seat_row, phrase=phrase), status=status.HTTP_201_CREATED)


class EndWaitApi(APIView):
    """``POST /api/matches/<id>/seats/<seat>/end-wait/`` with ``{"seat": leaver}``: stop waiting for a person who
    left (``games.matches.leavers.match_end_wait``)."""

    permission_classes = [PersonOrGuest]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "seat_action"

    @extend_schema_serializer(component_name="EndWait")
    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(min_value=0, help_text="the seat to play, a person away for the wait")

    @extend_schema(summary="End the wait for a person who left", request=InputSerializer, responses={
        200: inline_serializer("WaitEnded", {"seat": serializers.IntegerField(), "outcome": serializers.CharField(
            help_text="stand_in (casual: a house bot plays their seat) or forfeit (rated)")}),
        409: _err("not_away (they are there, or the wait is not over: see Retry-After), busy, not_running"),
        **SEAT_ERRORS})
    def post(self, request, match_id: int, seat: int):
        refuse_unknown_fields(request.data, {"seat"}, "an end of the wait")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(match_end_wait(match_id=match_id, seat=seat, leaver=data.validated_data["seat"],
                                       user=request.user, guest=request.guest))


class DealResultApi(APIView):
    """A finished deal's score card: how it ended, each seat's remaining cards and their values, the points.
    The people seated see it as soon as the deal is over (the cards are turned up for scoring); everyone once the
    match is finished. Never the stock, never a running deal."""

    @extend_schema(summary="A finished deal's score card", responses={200: inline_serializer("DealResult", {
        "number": serializers.IntegerField(), "outcome": serializers.CharField(),
        "winner": serializers.IntegerField(allow_null=True), "hands": serializers.ListField(),
        "hand_values": serializers.ListField(), "points": serializers.ListField()}),
        403: _err("the match is running and you have no seat in it"), 404: _err("no such match or finished deal"),
        429: _err("too many requests: see Retry-After")})
    def get(self, request, match_id: int, number: int):
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise NotFound(f"no match {match_id}")
        seated = person_seat(match=match, user=request.user, guest=session_guest(request)) is not None  # a seated bot's owner is not seated
        if not (seated or match_is_public(match=match)):  # a public match stays public: this row may be read first
            raise PermissionDenied("a deal's cards are shown to its players, and to everyone once the match is over "
                                   "(and every match dealt the same cards, its duplicate set, is over too)")
        snapshot = match_state_snapshot(match=match)  # the deals and their plies as of one instant
        state = snapshot.state
        if not 1 <= number <= len(state.results):
            snapshot.keep()
            raise NotFound(f"deal {number} of match {match_id} is not finished")
        result = state.results[number - 1]
        values = HOLLYWOOD_VALUES if state.ruleset.card_values == "hollywood" else STANDARD_VALUES
        hands = state.final_hands[number - 1]
        snapshot.keep()  # a finished deal's result and hands never change: read, the state can go back
        return Response({"number": number, "outcome": result.outcome, "winner": result.winner, "hands": hands,
                         "card_values": [[values[parse_card(c)] for c in hand] for hand in hands],
                         "hand_values": result.hand_values, "points": result.points})


class MatchRecordApi(APIView):
    """A finished match's record (docs/MATCH_RECORD.md, schema docs/match-record.schema.json): ruleset, engine
    version, seats and players, each deal's seed, code, dealer, actions and result, and the match result, for
    ``python -m eights_engine replay``. Public once the match is finished (as its deal codes are); a running or
    aborted match's record is refused to everyone, its players too (403), so no seed leaks before the end.
    Always JSON (a browser following the match page's download link gets the file, not the browsable API);
    ``?download=1`` adds ``Content-Disposition: attachment``."""

    renderer_classes = [JSONRenderer]

    @extend_schema(summary="A finished match's record (replayable offline)", responses={
        200: OpenApiResponse(description="the match record (docs/match-record.schema.json)"),
        403: _err("the match is not finished (running or aborted), or a match dealt the same cards (its duplicate set) "
                  "still runs: its record is not published (yet)"),
        404: _err("no such match"), 429: _err("too many requests: see Retry-After")})
    def get(self, request, match_id: int):
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise NotFound(f"no match {match_id}")
        try:
            record = match_export(match=match)
        except Match.DoesNotExist:
            raise NotFound(f"no match {match_id}") from None
        except MatchNotFinished as exc:
            if match.status == Match.Status.FINISHED:  # finished, but a match dealt the same cards still runs
                raise PermissionDenied(str(exc)) from None
            raise PermissionDenied(f"match {match_id} is not finished: a match's record (its seeds and every ply) "
                                   "is published once the match is finished, never while it runs or after an "
                                   "abort") from None
        response = Response(record)
        if request.query_params.get("download"):
            response["Content-Disposition"] = f'attachment; filename="match-{match_id}.json"'
        return response


class MatchSeatOutput(serializers.Serializer):
    index = serializers.IntegerField()
    player_id = serializers.IntegerField()
    player = serializers.CharField(source="player.name")
    kind = serializers.CharField(source="player.kind", help_text="human, bot or house")
    total = serializers.IntegerField(help_text="the seat's total so far (final once the match is over)")
    place = serializers.IntegerField(allow_null=True, help_text="1 = first; null until the match is finished")
    forfeited = serializers.BooleanField()


class MatchRowOutput(serializers.Serializer):
    """A match as the list shows it: public facts only (never a seed, a deal code or a card)."""

    id = serializers.IntegerField()
    url = serializers.SerializerMethodField(help_text="the match page")
    status = serializers.CharField(help_text="running, finished or aborted")
    preset = serializers.CharField(help_text="the preset of its ruleset (empty: a ruleset of its own)")
    ladder = serializers.SerializerMethodField(help_text="the ladder's slug (null: a casual match)")
    seat_count = serializers.IntegerField()
    deal_number = serializers.IntegerField(help_text="deals dealt so far (the current one included)")
    ply_count = serializers.IntegerField(help_text="plies stored over all deals")
    totals = serializers.ListField(child=serializers.IntegerField(), help_text="each seat's total, seat order")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = serializers.SerializerMethodField()

    def get_url(self, match) -> str:
        return reverse("match-detail", args=[match.pk])

    def get_ladder(self, match) -> str | None:
        ladder_match = getattr(match, "ladder_match", None)
        return ladder_match.ladder.slug if ladder_match is not None else None

    @extend_schema_field(MatchSeatOutput(many=True))
    def get_seats(self, match) -> list:
        return MatchSeatOutput(list_seats(match), many=True).data


class MatchFilterBackend:
    """The match list's filters (``games.browse.check_match_filters``), and their parameters in the schema."""

    def filter_queryset(self, request, queryset, view):
        me, signed_in = session_player(request)
        return match_browse(filters=check_match_filters(request.query_params, me=me, signed_in=signed_in))

    def get_schema_operation_parameters(self, view) -> list[dict]:
        def param(name, description, schema):
            return {"name": name, "required": False, "in": "query", "description": description, "schema": schema}

        return [
            param("status", "only matches with this status", {"type": "string", "enum": list(STATUSES)}),
            param("preset", "only matches of this preset", {"type": "string", "enum": sorted(PRESETS)}),
            param("player", "only matches this player sat in (a person, a bot or a house bot): a player id, an exact "
                            "name, or me (your own player, logged in or as this browser's guest)",
                  {"type": "string", "maxLength": 60, "pattern": "^[^\\u0000]*$"}),
            param("from", "only matches created on or after this day (UTC)", {"type": "string", "format": "date"}),
            param("to", "only matches created on or before this day (UTC)", {"type": "string", "format": "date"}),
            param("order", "newest first (the default) or oldest first", {"type": "string", "enum": list(ORDERS)}),
            *(param(name, group.help, {"type": "string", "maxLength": 80, "pattern": "^[^\\u0000]*$"})
              for name, group in sorted(MATCH_GROUPS.items())),
        ]


class MatchListApi(ListAPIView):
    """Every match, newest first (or ``order=oldest``), filtered by status, preset, player, days and the registered
    groups (``ladder``), in keyset pages (``cursor``: follow ``next`` / ``previous``). A running match shows only
    public facts: status, seats, totals, ply and deal counts. A bad filter answers 400 ``invalid_filter`` naming
    the parameter and what it takes."""

    permission_classes = [AllowAny]
    serializer_class = MatchRowOutput
    pagination_class = MatchCursorPagination
    filter_backends = [MatchFilterBackend]
    queryset = Match.objects.none()  # the filter backend builds the real one

    @extend_schema(summary="Browse matches: filters and keyset pages",
                   responses={200: MatchRowOutput(many=True),
                              400: _err("invalid_filter: an unknown status, preset, player or ladder, a malformed "
                                        "date or cursor (the detail names the parameter and what it takes)"),
                              429: _err("too many requests: see Retry-After")})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class CasualMatchApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="CasualMatchChoice")
    class InputSerializer(serializers.Serializer):
        opponents = serializers.ListField(child=serializers.CharField(max_length=60), min_length=1, max_length=7,
                                          help_text="names of house bots, e.g. [\"Professor\"]")
        preset = serializers.ChoiceField(sorted(PRESETS), default="pagat")

    @extend_schema(summary="A casual (unrated) match against chosen house bots", request=InputSerializer,
                   responses={201: inline_serializer("CasualMatch", {"match_id": serializers.IntegerField(),
                                                                     "seat": serializers.IntegerField()}),
                              400: _err("invalid_match: a name that is not a house bot, a name given twice, or "
                                        "more players than the preset seats (the detail says which)"),
                              401: _err("not logged in (token or session)"),
                              429: _err("too many requests, or a casual match limit of the account "
                                        "(CASUAL_RUNNING_PER_PERSON running, CASUAL_MATCH_RATE new): the detail "
                                        "names it; see Retry-After")})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:  # a limit refuses with CasualRefused: 429, its words and Retry-After
            match = casual_start(person=services.player_for_user(user=request.user), create=lambda: (
                services.casual_match_create(user=request.user, **data.validated_data)))
        except ValueError as exc:  # which house bots exist is data, not schema: a documented 400 of its own
            raise ApiError("invalid_match", str(exc)) from None
        return Response({"match_id": match.pk, "seat": 0}, status=status.HTTP_201_CREATED)


class RecordSigningKeyApi(APIView):
    """The public key that signs every exported match record (docs/MATCH_RECORD.md, "Signature"): give it to
    ``python -m eights_engine replay --public-key HEX`` to check that a record is the service's, unchanged."""

    permission_classes = [AllowAny]

    @extend_schema(summary="The match records' signing key", responses={200: inline_serializer("RecordSigningKey", {
        "algorithm": serializers.CharField(help_text="ed25519"),
        "public_key": serializers.CharField(help_text="64 lowercase hex digits")})})
    def get(self, request):
        from games.record_signing import public_key_hex

        return Response({"algorithm": "ed25519", "public_key": public_key_hex()})
