"""Ladders over the API, read only: ``GET /api/ladders/`` (every ladder, limit/offset pages) and
``GET /api/ladders/{slug}/`` (one ladder and its leaderboard, as the ladder page shows it).

The leaderboard is ``tournaments.selectors.ladder_leaderboard``: established entries (at least
``LADDER_PROVISIONAL_MATCHES`` rated matches) ranked by the conservative rating mu - 3 sigma (ties share a rank),
provisional entries apart and unranked; and, for each two neighbours among the established, how sure the order is
(``tournaments.ratings.order_confidence``), in the page's words. Public facts only: no endpoint, no secret.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from sitekit.errors import ErrorOutput
from sitekit.pagination import BoundedLimitOffsetPagination
from tournaments import selectors
from tournaments.ratings import order_confidence, percent, trust_statement

#: provisional entries listed with a ladder at most (the rest are counted)
PROVISIONAL_SHOWN = 100

_ERRORS = {429: OpenApiResponse(ErrorOutput, description="too many requests: see Retry-After")}


class LadderRowOutput(serializers.Serializer):
    """A ladder as the list shows it."""

    slug = serializers.CharField()
    name = serializers.CharField()
    url = serializers.SerializerMethodField(help_text="the ladder's API answer (its leaderboard)")
    page = serializers.SerializerMethodField(help_text="the ladder's page")
    matches = serializers.SerializerMethodField(help_text="the ladder's matches (the match list, filtered)")
    preset = serializers.CharField(help_text="the ruleset's preset (docs/RULES.md)")
    ruleset = serializers.DictField(help_text="the whole ruleset: the preset with the ladder's own options")
    seats = serializers.IntegerField(source="seats_per_match", help_text="seats per match")
    target = serializers.IntegerField(help_text="points that end a match")
    duplicate = serializers.BooleanField(help_text="duplicate play: each pairing plays the same cards from each seat")
    is_active = serializers.BooleanField(help_text="false: no new matches are scheduled")
    entries = serializers.IntegerField(source="entry_count", help_text="active entries")
    matches_finished = serializers.IntegerField(source="finished_count")
    matches_running = serializers.IntegerField(source="running_count")

    def get_url(self, ladder) -> str:
        return reverse("api-ladder-detail", args=[ladder.slug])

    def get_page(self, ladder) -> str:
        return reverse("ladder-detail", args=[ladder.slug])

    def get_matches(self, ladder) -> str:
        return f"{reverse('api-match-list')}?ladder={ladder.slug}"


class ConfidenceOutput(serializers.Serializer):
    below = serializers.CharField(help_text="the next established entry's player")
    percent = serializers.IntegerField(help_text="the chance (whole %, at most 99) that this entry's skill is above "
                                                 "the next one's")
    statement = serializers.CharField(help_text="the ladder page's sentence, e.g. 'A is ahead of B with 97 % "
                                                "confidence.'")


class BoardEntryOutput(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="1 = best; ties share a rank; null when provisional")
    player_id = serializers.IntegerField()
    player = serializers.CharField(source="player.name")
    kind = serializers.CharField(source="player.kind", help_text="human, bot or house")
    owner = serializers.SerializerMethodField(help_text="the owner's user name (bots only)")
    profile = serializers.SerializerMethodField(help_text="the player's API profile")
    rating = serializers.FloatField(source="ordinal", help_text="the conservative rating mu - 3 sigma (ranks)")
    mu = serializers.FloatField(help_text="the rating's mean (openskill Plackett-Luce)")
    sigma = serializers.FloatField(help_text="the rating's uncertainty")
    matches_played = serializers.IntegerField(help_text="rated matches")
    wins = serializers.IntegerField()
    provisional = serializers.BooleanField()
    is_active = serializers.BooleanField(help_text="false: left the ladder (its rating is kept)")
    ahead_of_next = serializers.SerializerMethodField(help_text=(
        "how sure it is that this established entry is above the next established one (null for the last one and "
        "for provisional entries)"))

    def get_owner(self, entry) -> str | None:
        user = entry.player.user if entry.player.kind == "bot" else None
        return user.get_username() if user is not None else None

    def get_profile(self, entry) -> str:
        # by name (readable), but by id for an all-digit name: an all-digit reference means the id there
        name = entry.player.name
        return reverse("api-player", args=[str(entry.player.pk) if name.isascii() and name.isdigit() else name])

    @extend_schema_field(ConfidenceOutput(allow_null=True))
    def get_ahead_of_next(self, entry) -> dict | None:
        return getattr(entry, "ahead_of_next", None)


class LadderDetailOutput(LadderRowOutput):
    players = serializers.ChoiceField(["all", "people", "bots"], help_text="who is listed (the ``players`` filter)")
    provisional_matches = serializers.IntegerField(help_text="rated matches an entry plays before it is ranked")
    count = serializers.IntegerField(help_text="established (ranked) entries")
    next = serializers.CharField(allow_null=True, help_text="the leaderboard's next page (limit/offset)")
    previous = serializers.CharField(allow_null=True)
    leaderboard = BoardEntryOutput(many=True, help_text="this page of the established entries, best first")
    provisional = BoardEntryOutput(many=True, help_text=f"provisional entries (not ranked), by rating; at most "
                                                        f"{PROVISIONAL_SHOWN}")
    provisional_count = serializers.IntegerField()
    provisional_statement = serializers.CharField(help_text="the page's sentence naming the provisional entries "
                                                            "(empty without any)")


class LadderListApi(APIView):
    """Every ladder by name, with its rules, seats, entry count and match counts."""

    permission_classes = [AllowAny]
    pagination_class = BoundedLimitOffsetPagination

    @extend_schema(tags=["ladders"], summary="Ladders: rules, seats, entries and match counts",
                   parameters=[OpenApiParameter("limit", int, description="ladders per page, 1 to 100 (default 50)"),
                               OpenApiParameter("offset", int, description="ladders to skip")],
                   responses={200: LadderRowOutput(many=True), **_ERRORS})
    def get(self, request):
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(selectors.ladder_list().order_by("name", "id"), request, view=self)
        return paginator.get_paginated_response(LadderRowOutput(page, many=True).data)


class LadderDetailApi(APIView):
    """One ladder and its leaderboard, as its page shows it (``tournaments.selectors.ladder_leaderboard`` and
    ``ladder_trust``): the established entries in limit/offset pages, best first, each with how sure its place
    above the next one is; the provisional entries apart."""

    permission_classes = [AllowAny]
    pagination_class = BoundedLimitOffsetPagination

    @extend_schema(tags=["ladders"], summary="A ladder's leaderboard: ranks, ratings, confidence, provisional entries",
                   parameters=[OpenApiParameter("limit", int, description="entries per page, 1 to 100 (default 50)"),
                               OpenApiParameter("offset", int, description="ranked entries to skip"),
                               OpenApiParameter("players", str, enum=["all", "people", "bots"],
                                                description="list people only or bots only (users' and house "
                                                            "bots), ranked among themselves; ratings unchanged")],
                   responses={200: LadderDetailOutput,
                              404: OpenApiResponse(ErrorOutput, description="no such ladder"), **_ERRORS})
    def get(self, request, slug: str):
        ladder = _ladder(slug, selectors.ladder_list())
        players = selectors.board_players(request.query_params.get("players"))  # BadFilter: 400 invalid_filter
        board = selectors.ladder_leaderboard(ladder=ladder, players=players)  # one query, as the page reads it
        ranked = [e for e in board if not e.provisional]
        for above, below in zip(ranked, ranked[1:]):
            p = order_confidence(above.mu, above.sigma, below.mu, below.sigma)
            above.ahead_of_next = {"below": below.player.name, "percent": percent(p),
                                   "statement": trust_statement(above.player.name, below.player.name, p)}
        newcomers = [e for e in board if e.provisional]
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(ranked, request, view=self)
        data = LadderRowOutput(ladder).data
        data.update(players=players or "all", provisional_matches=settings.LADDER_PROVISIONAL_MATCHES, count=len(ranked),
                    next=paginator.get_next_link(), previous=paginator.get_previous_link(),
                    leaderboard=BoardEntryOutput(page, many=True).data,
                    provisional=BoardEntryOutput(newcomers[:PROVISIONAL_SHOWN], many=True).data,
                    provisional_count=len(newcomers),
                    provisional_statement=selectors.ladder_trust(board=board)["provisional"])
        return Response(data)


class StandingOutput(serializers.Serializer):
    """A row of a closed season's leaderboard as it closed (``SeasonStanding``)."""

    position = serializers.IntegerField(help_text="1.. in the board's order (provisional entries last)")
    rank = serializers.IntegerField(allow_null=True, help_text="1 = best; ties share a rank; null when provisional")
    player_id = serializers.IntegerField()
    player = serializers.CharField(source="player.name")
    kind = serializers.CharField(source="player.kind", help_text="human, bot or house")
    rating = serializers.FloatField(source="ordinal", help_text="mu - 3 sigma at the close")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    matches_played = serializers.IntegerField(help_text="rated matches in all, at the close")
    season_matches = serializers.IntegerField(help_text="finished matches of this season")
    season_wins = serializers.FloatField(help_text="first places in them (a shared first counts a share)")


class SeasonOutput(serializers.Serializer):
    """A season of a ladder (``tournaments.seasons``)."""

    number = serializers.IntegerField()
    status = serializers.SerializerMethodField(help_text="open or closed")
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(help_text="when it closes (open) or was due to close (closed)")
    closed_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField(help_text="the season's API answer (its final standings)")
    page = serializers.SerializerMethodField(help_text="the season's page")
    podium = StandingOutput(many=True, help_text="the first three ranked at the close (closed seasons)")

    def get_status(self, season) -> str:
        return "closed" if season.closed_at else "open"

    def get_url(self, season) -> str:
        return reverse("api-ladder-season", args=[season.ladder.slug, season.number])

    def get_page(self, season) -> str:
        return reverse("ladder-season", args=[season.ladder.slug, season.number])


class SeasonDetailOutput(SeasonOutput):
    standings = StandingOutput(source="standings_rows", many=True,
                               help_text="the whole leaderboard as it closed (empty while open)")


def _ladder(slug: str, ladders=None):
    """The ladder ``slug`` (from ``ladders``, a queryset; every ladder by default); ``NotFound`` (404) naming where the
    ladders are listed."""
    from tournaments.models import Ladder

    ladder = (Ladder.objects if ladders is None else ladders).filter(slug=slug).first()
    if ladder is None:
        raise NotFound(f"there is no ladder {slug!r}: the ladders are listed at /api/ladders/")
    return ladder


class LadderSeasonsApi(APIView):
    """A ladder's seasons, newest first: each with its dates and, once closed, its podium (issue 27)."""

    permission_classes = [AllowAny]
    pagination_class = BoundedLimitOffsetPagination

    @extend_schema(tags=["ladders"], summary="A ladder's seasons: dates and podiums, newest first",
                   parameters=[OpenApiParameter("limit", int, description="seasons per page, 1 to 100 (default 50)"),
                               OpenApiParameter("offset", int, description="seasons to skip")],
                   responses={200: SeasonOutput(many=True),
                              404: OpenApiResponse(ErrorOutput, description="no such ladder"), **_ERRORS})
    def get(self, request, slug: str):
        from tournaments.seasons import seasons_of_ladder

        ladder = _ladder(slug)
        seasons = seasons_of_ladder(ladder=ladder)
        for season in seasons:
            season.ladder = ladder
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(seasons, request, view=self)
        return paginator.get_paginated_response(SeasonOutput(page, many=True).data)


class LadderSeasonApi(APIView):
    """One season of a ladder: its dates and, once closed, its final standings."""

    permission_classes = [AllowAny]

    @extend_schema(tags=["ladders"], summary="A season's final standings (the leaderboard as it closed)",
                   responses={200: SeasonDetailOutput,
                              404: OpenApiResponse(ErrorOutput, description="no such ladder or season"), **_ERRORS})
    def get(self, request, slug: str, number: int):
        from tournaments.models import Season
        from tournaments.seasons import season_podium

        ladder = _ladder(slug)
        season = Season.objects.filter(ladder=ladder, number=number).first()
        if season is None:
            raise NotFound(f"the ladder {slug!r} has no season {number}: its seasons are listed at "
                           f"{reverse('api-ladder-seasons', args=[slug])}")
        season.ladder = ladder
        season.standings_rows = list(season.standings.select_related("player"))
        season.podium = season_podium(season.standings_rows)
        return Response(SeasonDetailOutput(season).data)
