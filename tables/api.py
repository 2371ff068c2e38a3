"""Tables over the API (docs/PLAYING.md, "Tables"): ``POST /api/tables/`` (create), ``GET /api/tables/?open=1``
(the lobby), ``GET /api/tables/<code>/``, and ``POST /api/tables/<code>/join/``, ``start/``, ``leave/``,
``cancel/``. Reading is open to anyone; changing needs a signed-in person (token or session). Refusals are
``tables.services.TableError`` in the one error shape."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from eights_engine import PRESETS
from games.services import player_for_user
from sitekit.errors import error_response as _err
from sitekit.errors import refuse_unknown_fields
from tables import services


def _viewer(request):
    return player_for_user(user=request.user) if request.user.is_authenticated else None


class SeatSpec(serializers.Serializer):
    kind = serializers.ChoiceField(services.SEAT_KINDS, help_text="who may take the seat")
    name = serializers.CharField(required=False, max_length=60, help_text=(
        "invited: the person's player name; challenge: the name of another owner's bot that accepts challenges"))
    strategy = serializers.CharField(required=False, max_length=30, help_text="house: the house strategy")
    bot = serializers.IntegerField(required=False, help_text="bot: the id of one of your verified bots")


class TableOutput(serializers.Serializer):
    code = serializers.CharField(help_text="the invite code; the invite link is invite_url")
    invite_url = serializers.CharField()
    preset = serializers.CharField()
    seat_count = serializers.IntegerField()
    listed = serializers.BooleanField()
    status = serializers.ChoiceField(["waiting", "started", "cancelled", "expired"])
    created_by = serializers.CharField()
    challenge = serializers.BooleanField(help_text="a challenge: one person invited, a few minutes to answer")
    ladder = serializers.CharField(allow_null=True, help_text="the slug of the ladder it is rated on, or null (casual)")
    rated = serializers.BooleanField(help_text="rated on ladder (its rules; the result is rated like a ladder match)")
    rematch_of = serializers.CharField(allow_null=True, help_text="the code of the table this one plays again")
    rematch = serializers.CharField(allow_null=True, help_text="the code of the table that plays this one again")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    match_id = serializers.IntegerField(allow_null=True)
    seats = serializers.ListField(child=serializers.DictField(), help_text=(
        "per seat: index, kind, player (name or null: free), player_kind, invited (kept for), yours"))
    free_seats = serializers.IntegerField()
    your_seat = serializers.IntegerField(allow_null=True)
    can_join = serializers.BooleanField()
    can_start = serializers.BooleanField()
    can_leave = serializers.BooleanField()


class TableListApi(APIView):
    def get_permissions(self):
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema_serializer(component_name="TableCreate")
    class InputSerializer(serializers.Serializer):
        preset = serializers.ChoiceField(sorted(PRESETS), required=False, help_text=(
            "the rules (default web-table); a rated table plays its ladder's: leave it out"))
        ladder = serializers.SlugField(required=False, help_text=(
            "rated on this ladder (its slug): its rules and seat count, every seat one of its entries (people join "
            "it by sitting down; house seats are its house bots; no bot of your own); leave out for a casual table"))
        seats = SeatSpec(many=True, max_length=7,
                         help_text="the other seats (you sit in seat 0), e.g. [{\"kind\": \"open\"}]")
        listed = serializers.BooleanField(default=True, help_text="shown in the lobby; false: only the link finds it")

    @extend_schema(summary="Open tables waiting for players (the lobby)", parameters=[
        OpenApiParameter("open", bool, description="only tables waiting for players (the lobby); the default")],
        responses={200: TableOutput(many=True)})
    def get(self, request):
        viewer = _viewer(request)
        return Response([services.table_view(t, viewer=viewer) for t in services.tables_open()])

    @extend_schema(summary="Create a table (you sit in seat 0)", request=InputSerializer, responses={
        201: TableOutput, 400: _err("bad_table: the preset, a seat or the seat count is not right (the detail says "
                                    "what would be); unknown_field"),
        401: _err("not logged in (token or session)"),
        429: _err("too_many_tables: new tables per address (TABLE_CREATE_RATE) or waiting tables per person "
                  "(TABLES_WAITING_PER_PLAYER); see Retry-After")})
    def post(self, request):
        refuse_unknown_fields(request.data, {"preset", "seats", "listed", "ladder"}, "a table")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        person = player_for_user(user=request.user)
        table = services.table_create(creator=person, preset=data.validated_data.get("preset"),
                                      seats=[dict(s) for s in data.validated_data["seats"]],
                                      listed=data.validated_data["listed"], request=request,
                                      ladder=data.validated_data.get("ladder"))
        table = services.table_by_code(table.code)
        return Response(services.table_view(table, viewer=person), status=status.HTTP_201_CREATED)


class TableDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="A table by its invite code", responses={200: TableOutput,
                                                                  404: _err("not_found: no table has this code")})
    def get(self, request, code: str):
        table = services.table_by_code(code)
        return Response(services.table_view(table, viewer=_viewer(request)))


_CHANGE_ERRORS = {401: _err("not logged in (token or session)"), 403: _err("not_yours: only the creator may do it, "
                  "or you have no seat to leave"), 404: _err("not_found: no table has this code"),
                  409: _err("full, already_seated, or busy (someone else is changing the table: retry in 1 s)"),
                  410: _err("gone: the table started, was cancelled, or waited too long")}


def _change_view(name: str, summary: str, change) -> type[APIView]:
    """A ``POST /api/tables/<code>/<action>/`` view: ``change(code=, player=)`` as the signed-in person, then the
    table as it is now."""
    class View(APIView):
        permission_classes = [IsAuthenticated]

        @extend_schema(summary=summary, request=None, responses={200: TableOutput, **_CHANGE_ERRORS})
        def post(self, request, code: str):
            person = player_for_user(user=request.user)
            change(code=code, player=person)
            table = services.table_by_code(code)
            return Response(services.table_view(table, viewer=person))

    View.__name__ = View.__qualname__ = name
    return View


TableJoinApi = _change_view("TableJoinApi", "Take a seat at a table (the one kept for you, else an open one)",
                            services.table_join)
TableStartApi = _change_view("TableStartApi", "Start the table's match now, house bots in the free seats (creator)",
                             services.table_start)
TableLeaveApi = _change_view("TableLeaveApi", "Give up your seat at a waiting table", services.table_leave)
TableCancelApi = _change_view("TableCancelApi", "Cancel your waiting table (creator)", services.table_cancel)
TableDeclineApi = _change_view("TableDeclineApi", "Turn down the seat kept for you (a challenge is cancelled)",
                               services.table_decline)


class TableRematchApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Play a table's finished match again, seats moved on by one (its rematch table)",
                   request=None, responses={200: TableOutput, **_CHANGE_ERRORS})
    def post(self, request, code: str):
        person = player_for_user(user=request.user)
        again = services.table_rematch(code=code, player=person)
        return Response(services.table_view(again, viewer=person))


class ChallengeApi(APIView):
    """Challenges: ``GET`` the tables with a seat kept for you (challenges and invitations; accept with
    ``POST /api/tables/<code>/join/``, decline with ``.../decline/``); ``POST`` challenge a person to a one-on-one
    casual match (it waits ``CHALLENGE_MINUTES`` for the answer)."""

    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="ChallengeCreate")
    class InputSerializer(serializers.Serializer):
        player = serializers.CharField(max_length=60, help_text="the challenged person's player name")
        preset = serializers.ChoiceField(sorted(PRESETS), required=False, help_text=(
            "the rules (default web-table); a rated table plays its ladder's: leave it out"))
        ladder = serializers.SlugField(required=False, help_text=(
            "rated on this ladder (its slug): its rules and seat count, every seat one of its entries (people join "
            "it by sitting down; house seats are its house bots; no bot of your own); leave out for a casual table"))

    @extend_schema(summary="Challenges and table seats kept for you", responses={200: TableOutput(many=True),
                                                                               401: _err("not logged in")})
    def get(self, request):
        person = player_for_user(user=request.user)
        return Response([services.table_view(services.table_by_code(t.code), viewer=person)
                         for t in services.invitations_for(person)])

    @extend_schema(summary="Challenge a person to a one-on-one match (casual, or rated on a ladder of two seats)", request=InputSerializer, responses={
        201: TableOutput, 400: _err("bad_table: not a person's name, or your own; unknown_field"),
        401: _err("not logged in"), 429: _err("too_many_tables: see Retry-After")})
    def post(self, request):
        refuse_unknown_fields(request.data, {"player", "preset", "ladder"}, "a challenge")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        person = player_for_user(user=request.user)
        table = services.challenge_create(challenger=person, name=data.validated_data["player"],
                                          preset=data.validated_data.get("preset"), request=request,
                                          ladder=data.validated_data.get("ladder"))
        return Response(services.table_view(services.table_by_code(table.code), viewer=person),
                        status=status.HTTP_201_CREATED)
