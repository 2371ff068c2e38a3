"""The bot owners' REST API: one APIView per operation (HackSoft style), thin adapters over
``bots_api.services`` (writes) and ``bots_api.selectors`` (reads).

Everything under ``/api/bots/`` is the caller's own bots: another owner's bot answers 404 exactly like a
missing one (``selectors.access_bot``), so its secret, endpoint and health never leak. ``BotError`` becomes
400 (bad input) or 409 (the bot's or the ladder's state forbids it), with ``{"error": code, "detail": message}``
like every other API error (``config.api.exception_handler``).
"""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.http import Http404, StreamingHttpResponse
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import APIException, NotFound, Throttled
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from bots_api import selectors, turnlog, versions
from bots_api.models import Bot
from bots_api.serializers import (BotCheckOutput, BotOutput, BotWithSecretOutput, HealthOutput, LadderEntryOutput,
                                  MatchOutput, PlayerProfileOutput, TurnOutput, VersionOutput)
from bots_api.services import (bot_check_request, bot_delete, bot_enter_ladder, bot_leave_ladder,
                               bot_register, bot_rotate_secret, bot_update)
from games.people.accounts import login_failures_forget, login_locked_detail, login_retry_after
from sitekit.errors import ErrorOutput
from sitekit.limits import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle
from sitekit.pagination import BoundedLimitOffsetPagination
from sitekit.tokens import CachedTokenAuthentication

#: Answers holding a secret must not be kept by caches along the way.
NO_STORE = {"Cache-Control": "no-store"}

_ERR = OpenApiResponse(ErrorOutput, description="{error, detail}")
_NOT_YOURS = OpenApiResponse(ErrorOutput, description="no such bot among yours (another owner's bot looks the same)")
_AUTH = {401: OpenApiResponse(ErrorOutput, description="not logged in (token or session)"), 429: _ERR}


class BadCredentials(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid_credentials"
    default_detail = "wrong user name or password"


class LoginLocked(Throttled):
    """Too many failed logins for the account or from the address (``games.people.accounts``): 429 with Retry-After."""

    says_which_limit = True  # config.api.exception_handler adds nothing to the detail

    def __init__(self, *, wait: int, detail: str) -> None:
        super().__init__(detail=detail)
        self.wait = wait  # DRF's handler turns it into Retry-After


class BotsApi(APIView):
    """Base of these views: ``BotError`` answered as 400/409, and Django's ``Http404`` as DRF's ``NotFound``
    before the error handler sees it (it reads the code from the exception: ``not_found``, not ``error``)."""

    def handle_exception(self, exc):
        if isinstance(exc, Http404):
            exc = NotFound(str(exc) or None)
        return super().handle_exception(exc)


class OwnerApi(BotsApi):
    """Base of the owner-only views: authenticated callers only."""

    permission_classes = [IsAuthenticated]

    def bot(self, bot_id: int) -> Bot:
        return selectors.access_bot(user=self.request.user, bot_id=bot_id)


class TokenCreateApi(BotsApi):
    """Trade a user name and password for the API token (the same token every time until it is deleted), or
    delete the token presented (log out: every process forgets it at once, ``sitekit.tokens``; the next POST gives
    a new one). Failed tries count with the login page's (``games.people.accounts``): past the limit the answer is
    429."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get_authenticators(self):
        if getattr(self.request, "method", None) == "DELETE":  # only a token can be logged out (a session logs out on the page)
            return [CachedTokenAuthentication()]
        return super().get_authenticators()

    def get_permissions(self):
        if getattr(self.request, "method", None) == "DELETE":
            return [IsAuthenticated()]
        return super().get_permissions()

    @extend_schema_serializer(component_name="TokenRequest")  # nested names must be unique in the schema
    class Input(serializers.Serializer):
        username = serializers.CharField()
        password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)

    @extend_schema_serializer(component_name="Token")
    class Output(serializers.Serializer):
        token = serializers.CharField(help_text='send as the header "Authorization: Token <token>"')

    @extend_schema(tags=["auth"], request=Input, responses={200: Output, 400: _ERR, 429: _ERR},
                   auth=[], summary="Get your API token")
    def post(self, request):
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request=request, **data.validated_data)
        if user is None:
            if getattr(request, "axes_locked_out", False):  # set by django-axes on this request
                wait = login_retry_after(request=request, credentials={"username": data.validated_data["username"]})
                raise LoginLocked(wait=wait, detail=login_locked_detail(request=request, wait=wait))
            raise BadCredentials()
        login_failures_forget(username=user.get_username())
        token, _created = Token.objects.get_or_create(user=user)
        return Response(self.Output({"token": token.key}).data)

    @extend_schema(tags=["auth"], request=None, responses={204: None, 401: _ERR, 429: _ERR},
                   auth=[{"tokenAuth": []}],
                   summary="Log out: delete your API token (the header's), everywhere at once")
    def delete(self, request):
        Token.objects.filter(key=request.auth.key).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotListCreateApi(OwnerApi):
    """Your bots (GET) and registration (POST). The registration answer is the only one, with rotation, that
    holds the signing secret."""

    @extend_schema_serializer(component_name="BotRegistration")
    class Input(serializers.Serializer):
        name = serializers.CharField(help_text="2 to 40 characters, unique among all players", trim_whitespace=False)
        endpoint_url = serializers.CharField(help_text="http(s) URL the service POSTs ping, turn and match_end to")

    @extend_schema(tags=["bots"], responses={200: BotOutput(many=True), **_AUTH}, summary="Your bots")
    def get(self, request):
        return Response(BotOutput(selectors.bot_list(owner=request.user), many=True).data)

    @extend_schema(tags=["bots"], request=Input,
                   responses={201: BotWithSecretOutput, 400: _ERR, 409: _ERR, **_AUTH},
                   summary="Register a bot (the answer holds its signing secret, shown only this once)")
    def post(self, request):
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        bot, secret = bot_register(owner=request.user, **data.validated_data)
        bot = selectors.access_bot(user=request.user, bot_id=bot.pk)
        return Response(BotWithSecretOutput(bot, context={"secret": secret}).data, status=status.HTTP_201_CREATED,
                        headers=NO_STORE)


class BotDetailApi(OwnerApi):
    """One of your bots: read, change (a new endpoint un-verifies it), delete (a bot that played is disabled
    instead)."""

    @extend_schema_serializer(component_name="BotChange")
    class Input(serializers.Serializer):
        name = serializers.CharField(required=False, trim_whitespace=False)
        endpoint_url = serializers.CharField(required=False, help_text="a new endpoint must be verified again")
        is_enabled = serializers.BooleanField(required=False, help_text="false: off every ladder's schedule")
        accepts_challenges = serializers.BooleanField(
            required=False, help_text="true: other owners may name the bot as an opponent in their unrated trials")
        webhook_url = serializers.CharField(
            required=False, allow_blank=True, max_length=300,
            help_text="where the bot's notifications are POSTed, signed like the protocol (docs/NOTIFICATIONS.md); "
                      "empty: none; setting it again turns a webhook that failed back on")

    @extend_schema(tags=["bots"], responses={200: BotOutput, 404: _NOT_YOURS, **_AUTH}, summary="One of your bots")
    def get(self, request, bot_id: int):
        return Response(BotOutput(self.bot(bot_id)).data)

    @extend_schema(tags=["bots"], request=Input,
                   responses={200: BotOutput, 400: _ERR, 404: _NOT_YOURS, 409: _ERR, **_AUTH},
                   summary="Rename, move or enable/disable a bot")
    def patch(self, request, bot_id: int):
        bot = self.bot(bot_id)
        data = self.Input(data=request.data, partial=True)  # partial: an absent form checkbox is not "false"
        data.is_valid(raise_exception=True)
        bot_update(bot=bot, **data.validated_data)
        return Response(BotOutput(self.bot(bot_id)).data)

    @extend_schema(tags=["bots"], responses={
        204: OpenApiResponse(description="deleted"),
        200: OpenApiResponse(BotOutput, description="the bot has played matches: it is disabled instead, so "
                                                    "its matches stay replayable"),
        404: _NOT_YOURS, **_AUTH}, summary="Delete a bot")
    def delete(self, request, bot_id: int):
        bot = self.bot(bot_id)
        bot_delete(bot=bot)
        if not Bot.objects.filter(pk=bot_id).exists():
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(BotOutput(self.bot(bot_id)).data)


class BotRotateSecretApi(OwnerApi):
    """Replace the signing secret; requests signed with the old one fail from now on."""

    @extend_schema(tags=["bots"], request=None, responses={200: BotWithSecretOutput, 404: _NOT_YOURS, **_AUTH},
                   summary="A new signing secret (shown only this once; the old one stops working at once)")
    def post(self, request, bot_id: int):
        bot = self.bot(bot_id)
        secret = bot_rotate_secret(bot=bot)
        return Response(BotWithSecretOutput(self.bot(bot_id), context={"secret": secret}).data, headers=NO_STORE)


class BotVerifyApi(OwnerApi):
    """Check the bot: the answer (202) comes at once with the check, queued; a worker then sends the bot the
    conformance checks (the turns of a few check matches under the rules and deadline of the bot's ladders, a
    ``match_end`` for each, then a signed ping within 3 s and three requests it must refuse with a 4xx). Poll the
    check's URL (the ``Location`` header) until its state is ``passed`` (the bot is verified, and a suspension is
    lifted) or ``failed`` (the bot is unverified; ``detail`` says the first failed check and its cause). A check
    already queued or running is answered instead of a new one."""

    throttle_classes = [AnonRateThrottle, UserRateThrottle, ScopedRateThrottle]
    throttle_scope = "bot_verify"  # each check makes the service send a dozen HTTP requests: keep it scarce

    @extend_schema(tags=["bots"], request=None, responses={202: BotCheckOutput, 404: _NOT_YOURS, **_AUTH},
                   summary="Check the bot (answers at once; poll the check): passing verifies it and lifts a "
                           "suspension")
    def post(self, request, bot_id: int):
        check = bot_check_request(bot=self.bot(bot_id))
        location = reverse("api-bot-check", kwargs={"bot_id": bot_id, "check_id": check.pk})
        return Response(BotCheckOutput(check).data, status=status.HTTP_202_ACCEPTED, headers={"Location": location})


class BotCheckApi(OwnerApi):
    """One check of the bot, to poll after ``POST .../verify/``: queued, running, then passed or failed."""

    @extend_schema(tags=["bots"], responses={200: BotCheckOutput, 404: _NOT_YOURS, **_AUTH},
                   summary="A check of the bot: its state, and once done its outcome per check")
    def get(self, request, bot_id: int, check_id: int):
        return Response(BotCheckOutput(selectors.bot_check(bot=self.bot(bot_id), check_id=check_id)).data)


class BotLadderApi(OwnerApi):
    """Put the bot on a ladder (POST) or take it off (DELETE; its rating is kept)."""

    @extend_schema(tags=["bots"], request=None, responses={200: LadderEntryOutput, 404: _NOT_YOURS, 409: _ERR,
                                                           **_AUTH},
                   summary="Enter a ladder (the bot must be enabled, verified and not suspended)")
    def post(self, request, bot_id: int, slug: str):
        bot = self.bot(bot_id)
        entry = bot_enter_ladder(bot=bot, ladder=selectors.ladder_by_slug(slug=slug))
        return Response(LadderEntryOutput(entry).data)

    @extend_schema(tags=["bots"], responses={204: OpenApiResponse(description="off the ladder (rating kept)"),
                                             404: _NOT_YOURS, **_AUTH},
                   summary="Leave a ladder")
    def delete(self, request, bot_id: int, slug: str):
        bot = self.bot(bot_id)
        bot_leave_ladder(bot=bot, ladder=selectors.ladder_by_slug(slug=slug))
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotMatchListApi(OwnerApi):
    """The matches the bot sat in, newest first (``limit`` / ``offset`` pages)."""

    pagination_class = BoundedLimitOffsetPagination

    @extend_schema(tags=["bots"], responses={200: MatchOutput(many=True), 404: _NOT_YOURS, **_AUTH},
                   summary="The bot's matches, newest first")
    def get(self, request, bot_id: int):
        bot = self.bot(bot_id)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(selectors.player_matches(player=bot.player), request, view=self)
        return paginator.get_paginated_response(MatchOutput(page, many=True).data)


class BotHealthApi(OwnerApi):
    """How the bot has been answering: turn calls, latency (p50, p95, max over the last 1000 turns, ms) and
    faults by kind, each with its 5 most recent samples (match, deal, ply, cause)."""

    @extend_schema(tags=["bots"], responses={200: HealthOutput, 404: _NOT_YOURS, **_AUTH},
                   summary="Calls, latency percentiles and faults by kind with recent samples")
    def get(self, request, bot_id: int):
        return Response(HealthOutput(selectors.bot_health(bot=self.bot(bot_id))).data)


class PlayerProfileApi(BotsApi):
    """Anyone's public profile: name, kind, owner (bots), ratings per ladder, recent matches, fault count (bots).
    Never the endpoint, the secret or the fault details."""

    permission_classes = [AllowAny]

    @extend_schema(tags=["players"], responses={200: PlayerProfileOutput, 404: _ERR, 429: _ERR},
                   summary="A player's public profile (by exact name, or by id): kind, owner (bots), ratings, "
                           "recent matches")
    def get(self, request, name: str):
        player = selectors.player_by_ref(ref=name)  # all digits: an id (else that name); else an exact name
        return Response(PlayerProfileOutput(selectors.player_profile(player=player)).data)



class HeadToHeadOutput(serializers.Serializer):
    """Two players' public matches against each other (``bots_api.head_to_head``); each pair is [a's, b's]."""

    players = serializers.ListField(child=serializers.CharField(), help_text="[a, b] by name")
    matches = serializers.IntegerField(help_text="finished public matches both sat in")
    wins = serializers.ListField(child=serializers.IntegerField(), help_text="matches each placed ahead of the other")
    ties = serializers.IntegerField(help_text="matches where they shared a place")
    points = serializers.ListField(child=serializers.IntegerField(), help_text="card points each ended with, summed")
    ratings = serializers.ListField(child=serializers.DictField(), help_text=(
        "per ladder: ladder, ladder_name, matches, change ([a's, b's]: the ordinal's moves over these matches)"))
    recent = serializers.ListField(child=serializers.DictField(), help_text=(
        "newest first: match_id, finished_at, preset, ladder, places, totals"))


class HeadToHeadApi(BotsApi):
    """Two players' record against each other, over their public matches: wins, ties, card points and the rating
    changes those matches caused (``/players/<a>/vs/<b>/`` shows the same)."""

    permission_classes = [AllowAny]

    @extend_schema(tags=["players"], responses={200: HeadToHeadOutput, 400: _ERR, 404: _ERR, 429: _ERR},
                   summary="Two players head to head (by exact name, or by id)")
    def get(self, request, a: str, b: str):
        from bots_api.head_to_head import head_to_head
        from sitekit.errors import ApiError

        first, second = selectors.player_by_ref(ref=a), selectors.player_by_ref(ref=b)
        if first.pk == second.pk:
            raise ApiError("same_player", "a head to head needs two different players: name another one")
        return Response(HeadToHeadOutput(head_to_head(a=first, b=second)).data)


_TURN_FILTERS = [
    OpenApiParameter("match", int, description="only this match's turns (a match id)"),
    OpenApiParameter("deal", int, description="only this deal's turns (1-based; with match)"),
    OpenApiParameter("ply", int, description="only this ply (0-based; with match and deal)"),
    OpenApiParameter("fault", str, enum=list(turnlog.FAULT_FILTERS),
                     description="only turns with this fault kind (any: with any fault; none: whose answer stood)"),
]


class BotTurnListApi(OwnerApi):
    """The bot's turn log, newest first: for each turn call, the exact request it was sent, its raw reply, the
    latency, its ``debug`` note and the move stored for that ply (the action played, the fault and its cause).
    Only the bot's owner sees it (anyone else: 404, as for a bot that does not exist). Kept ``TURN_LOG_DAYS``
    days (default 30); keyset pages (``cursor``, ``page_size`` up to 100)."""

    pagination_class = turnlog.TurnCursorPagination

    @extend_schema(tags=["bots"], parameters=_TURN_FILTERS,
                   responses={200: TurnOutput(many=True), 400: _ERR, 404: _NOT_YOURS, **_AUTH},
                   summary="The bot's turn log: request, reply, latency, debug, fault (owner only)")
    def get(self, request, bot_id: int):
        bot = self.bot(bot_id)
        filters = turnlog.check_turn_filters(request.query_params)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(turnlog.bot_turns(bot=bot, filters=filters), request, view=self)
        rows = [turnlog.turn_as_dict(t) for t in turnlog.turns_with_moves(page)]
        return paginator.get_paginated_response(TurnOutput(rows, many=True).data)


class BotTurnExportApi(OwnerApi):
    """The bot's turn log as NDJSON (one turn a line, oldest first, the shape of the turn log's rows), streamed:
    the same filters as the turn log. Download it before turns are pruned (``TURN_LOG_DAYS``)."""

    @extend_schema(tags=["bots"], parameters=_TURN_FILTERS,
                   responses={(200, "application/x-ndjson"): OpenApiResponse(description="one turn per line"),
                              400: _ERR, 404: _NOT_YOURS, **_AUTH},
                   summary="Download the bot's turn log (NDJSON, owner only)")
    def get(self, request, bot_id: int):
        bot = self.bot(bot_id)
        filters = turnlog.check_turn_filters(request.query_params)
        response = StreamingHttpResponse(turnlog.turns_ndjson(bot=bot, filters=filters),
                                         content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="bot-{bot.pk}-turns.ndjson"'
        response["Cache-Control"] = "no-store"
        return response


class BotVersionsApi(OwnerApi):
    """The bot's results and rating movement per reported version (the version its last check's ping gave when
    each match began), the most recently played version first."""

    @extend_schema(tags=["bots"], responses={200: VersionOutput(many=True), 404: _NOT_YOURS, **_AUTH},
                   summary="Results and rating movement per version")
    def get(self, request, bot_id: int):
        return Response(VersionOutput(versions.bot_versions(bot=self.bot(bot_id)), many=True).data)
