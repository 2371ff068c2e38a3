"""Tournament API: thin adapters over ``tournament_services`` (writes) and ``tournament_selectors`` (reads).

``GET /api/tournaments/`` lists tournaments; ``POST`` creates one (the caller is its organiser).
``GET /api/tournaments/{id}/`` gives its settings, entries, live standings and rounds (every match with its links;
places and totals once a match has ended). ``POST /api/tournaments/{id}/entries/`` registers the caller, or with
``{"bot_id": n}`` one of their bots; ``DELETE /api/tournaments/{id}/entries/{player_id}/`` withdraws (the player,
the bot's owner or the organiser); ``POST /api/tournaments/{id}/start/`` starts it (the organiser).
``TournamentError`` answers with its status and code and a detail saying what is wrong and what would be right.
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from sitekit.errors import error_response, refuse_unknown_fields
from eights_engine import PRESETS
from games.models import Player
from tournaments import tournament_selectors as selectors
from tournaments import tournament_services as services
from tournaments.models import Tournament
from tournaments.tournament_services import TournamentError


_err = error_response


class ReadOrLoggedIn(BasePermission):
    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_authenticated)


class TournamentBase(APIView):
    permission_classes = [ReadOrLoggedIn]

    def tournament(self, tournament_id: int) -> Tournament:
        return services.access_tournament(key=int(tournament_id))


class TournamentPlayer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField(help_text="human, bot or house")
    label = serializers.CharField(help_text="what pages call the kind: person, bot, house bot")


#: the API's words for a player's kind: English in every language (the pages translate theirs)
_API_LABELS = {"human": "person", "bot": "bot", "house": "house bot"}


def _player(p: Player) -> dict:
    return {"id": p.pk, "name": p.name, "kind": p.kind, "label": _API_LABELS[p.kind]}


class TournamentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    format = serializers.CharField()
    duplicate = serializers.BooleanField()
    preset = serializers.CharField()
    seats_per_match = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True)
    matches_per_pairing = serializers.IntegerField()
    target = serializers.IntegerField()
    turn_timeout_ms = serializers.IntegerField()
    move_seconds = serializers.IntegerField()
    entrants = serializers.CharField(help_text="who may enter: both, bots, people")
    max_entrants = serializers.IntegerField()
    status = serializers.CharField(help_text="registering, running or finished")
    starts_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField()
    entry_count = serializers.IntegerField()
    url = serializers.CharField()


def _tournament(t: Tournament) -> dict:
    count = getattr(t, "entry_count", None)
    if count is None:
        count = t.entries.filter(withdrawn=False).count()
    return {**{f: getattr(t, f) for f in ("id", "name", "slug", "format", "duplicate", "preset", "seats_per_match",
                                          "rounds", "matches_per_pairing", "target", "turn_timeout_ms",
                                          "move_seconds", "entrants", "max_entrants", "status", "starts_at",
                                          "started_at", "finished_at", "note")},
            "entry_count": count, "url": reverse("tournament-detail", args=[t.pk])}


class TournamentEntryOutput(serializers.Serializer):
    player = TournamentPlayer()
    seed = serializers.IntegerField(allow_null=True)
    rating = serializers.FloatField(help_text="best ladder ordinal under this preset at the start (0: unrated)")
    withdrawn = serializers.BooleanField()


class TournamentStandingOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    player = TournamentPlayer()
    points = serializers.FloatField(help_text="1 per win (pods: (n - place) / (n - 1)), ties share; a bye 1")
    buchholz = serializers.FloatField(help_text="Swiss: the sum of the points of every opponent met")
    head_to_head = serializers.FloatField(help_text="among entrants level so far: +1 per one finished ahead of, "
                                                    "-1 behind")
    card_points = serializers.IntegerField(help_text="match totals summed (lower better under penalty scoring)")
    played = serializers.IntegerField()
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField()
    seed = serializers.IntegerField(allow_null=True)


class TournamentSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = TournamentPlayer()
    place = serializers.IntegerField(allow_null=True, help_text="null while the match runs")
    total = serializers.IntegerField(allow_null=True, help_text="null while the match runs")


class TournamentMatchOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    pod = serializers.IntegerField()
    game = serializers.IntegerField(help_text="duplicate: the seat rotation (0 = the pod's own seating)")
    status = serializers.CharField()
    url = serializers.CharField()
    replay_url = serializers.CharField()
    seats = TournamentSeatOutput(many=True)


class TournamentRoundOutput(serializers.Serializer):
    number = serializers.IntegerField()
    finished = serializers.BooleanField()
    byes = TournamentPlayer(many=True)
    slots = TournamentPlayer(many=True, allow_null=True, help_text="knockout: the bracket slots (null: a bye)")
    matches = TournamentMatchOutput(many=True)


@extend_schema_serializer(component_name="TournamentDetail")
class TournamentDetailOutput(TournamentOutput):
    entries = TournamentEntryOutput(many=True)
    standings = TournamentStandingOutput(many=True)
    rounds_played = TournamentRoundOutput(many=True)


def tournament_detail_data(t: Tournament) -> dict:
    """The API's (and the page's) picture of a tournament."""
    rounds = []
    for r in selectors.tournament_rounds(tournament=t):
        rounds.append({"number": r.number, "finished": r.finished, "byes": [_player(p) for p in r.byes],
                       "slots": [_player(p) if p else None for p in r.slots],
                       "matches": [{"match_id": m.match.pk, "pod": m.pod, "game": m.game, "status": m.match.status,
                                    "url": f"/matches/{m.match.pk}/", "replay_url": f"/matches/{m.match.pk}/replay/",
                                    "seats": [{"seat": i, "player": _player(p), "place": place, "total": total}
                                              for i, (p, place, total) in enumerate(m.seats)]}
                                   for m in r.matches]})
    return {**_tournament(t),
            "entries": [{"player": _player(e.player), "seed": e.seed, "rating": e.rating, "withdrawn": e.withdrawn}
                        for e in selectors.tournament_entries(tournament=t)],
            "standings": [{"rank": s.rank, "player": _player(s.player), "points": s.points, "buchholz": s.buchholz,
                           "head_to_head": s.head_to_head, "card_points": s.card_points, "played": s.played,
                           "byes": s.byes, "withdrawn": s.withdrawn, "seed": s.seed}
                          for s in selectors.tournament_standings(tournament=t)],
            "rounds_played": rounds}


_AUTH = {401: _err("not logged in (token or session)"), 429: _err("too many requests: see Retry-After")}
_NOT_FOUND = _err("not_found: no such tournament (or bot of yours)")


class TournamentListApi(TournamentBase):
    @extend_schema_serializer(component_name="TournamentCreate")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=80)
        format = serializers.ChoiceField(Tournament.Format.values)
        duplicate = serializers.BooleanField(default=False)
        preset = serializers.ChoiceField(sorted(PRESETS), default="pagat")
        seats_per_match = serializers.IntegerField(min_value=2, max_value=8, default=2)
        rounds = serializers.IntegerField(min_value=1, max_value=services.MAX_SWISS_ROUNDS, required=False,
                                          help_text="Swiss only (default 3)")
        matches_per_pairing = serializers.IntegerField(min_value=1, max_value=10, default=1,
                                                       help_text="round robin only: k")
        target = serializers.IntegerField(min_value=1, max_value=100000, required=False,
                                          help_text="points that end a match (default: the preset's)")
        entrants = serializers.ChoiceField(Tournament.Entrants.values, default="both")
        turn_timeout_ms = serializers.IntegerField(min_value=50, max_value=60000, default=1000)
        move_seconds = serializers.IntegerField(min_value=5, max_value=86400, default=60)
        max_entrants = serializers.IntegerField(min_value=2, max_value=256, default=64)
        starts_at = serializers.DateTimeField(required=False, help_text="started then by the beat task (with "
                                                                        "enough entrants); else start it yourself")

    @extend_schema(summary="Tournaments, newest first", operation_id="tournaments_list",
                   parameters=[OpenApiParameter("status", str, enum=Tournament.Status.values, required=False)],
                   responses={200: inline_serializer("TournamentPage", {
                       "count": serializers.IntegerField(), "next": serializers.CharField(allow_null=True),
                       "previous": serializers.CharField(allow_null=True),
                       "results": TournamentOutput(many=True)}), 429: _AUTH[429]})
    def get(self, request):
        rows = selectors.tournament_list()
        wanted = request.query_params.get("status")
        if wanted in Tournament.Status.values:
            rows = rows.filter(status=wanted)
        page = self.paginator.paginate_queryset(rows, request, view=self)
        return self.paginator.get_paginated_response([_tournament(t) for t in page])

    @property
    def paginator(self):
        from sitekit.pagination import BoundedLimitOffsetPagination

        if not hasattr(self, "_paginator"):
            self._paginator = BoundedLimitOffsetPagination()
        return self._paginator

    @extend_schema(summary="Create a tournament (you are its organiser)", request=InputSerializer,
                   operation_id="tournaments_create",
                   responses={201: TournamentOutput,
                              400: _err("bad_settings: settings that do not fit together (a seat count the preset "
                                        "cannot seat, a knockout of more than 2 seats, rounds outside Swiss, ...): "
                                        "the detail says which and what is allowed; bad_request: a body holding a "
                                        "NUL character"),
                              **_AUTH})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        t = services.tournament_create(created_by=request.user, **data.validated_data)
        return Response(_tournament(t), status=status.HTTP_201_CREATED)


class TournamentDetailApi(TournamentBase):
    @extend_schema(summary="A tournament: settings, entries, live standings, rounds and their matches",
                   responses={200: TournamentDetailOutput, 404: _NOT_FOUND, 429: _AUTH[429]})
    def get(self, request, tournament_id: int):
        return Response(tournament_detail_data(self.tournament(tournament_id)))


class EntryApi(TournamentBase):
    @extend_schema_serializer(component_name="TournamentRegister")
    class InputSerializer(serializers.Serializer):
        bot_id = serializers.IntegerField(min_value=1, required=False,
                                          help_text="one of your bots (its id at /api/bots/); leave out to enter "
                                                    "yourself")

    @extend_schema(summary="Register yourself or one of your bots (before the start)", request=InputSerializer,
                   responses={201: TournamentEntryOutput, 404: _NOT_FOUND,
                              400: _err("bad_request: a body holding a NUL character (U+0000); unknown_field: a "
                                        "field other than bot_id"),
                              409: _err("registration_closed, already_registered, not_admitted (bots or people "
                                        "only, a guest), suspended (the bot cannot play), match_with (you chose "
                                        "people only), same_owner (two of one owner would have to meet), full"),
                              **_AUTH})
    def post(self, request, tournament_id: int):
        t = self.tournament(tournament_id)
        refuse_unknown_fields(request.data, {"bot_id"}, "an entry")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.access_entrant(user=request.user, bot_id=data.validated_data.get("bot_id"))
        entry = services.tournament_register(tournament=t, player=player)
        return Response({"player": _player(entry.player), "seed": entry.seed, "rating": entry.rating,
                         "withdrawn": entry.withdrawn}, status=status.HTTP_201_CREATED)


class EntryDetailApi(TournamentBase):
    @extend_schema(summary="Withdraw (yourself, your bot; the organiser anyone)",
                   responses={204: None, 403: _err("forbidden: not your entry"),
                              404: _err("not_found, not_registered"), 409: _err("finished"), **_AUTH})
    def delete(self, request, tournament_id: int, player_id: int):
        t = self.tournament(tournament_id)
        player = Player.objects.filter(pk=player_id).first()
        if player is None:
            raise TournamentError("not_registered", f"no player {player_id} in this tournament", 404)
        if player.user_id != request.user.pk:
            services.check_organiser(tournament=t, user=request.user)
        services.tournament_withdraw(tournament=t, player=player)
        return Response(status=status.HTTP_204_NO_CONTENT)


class StartApi(TournamentBase):
    @extend_schema(summary="Start the tournament now (the organiser): seeds fixed, round 1 created", request=None,
                   responses={200: TournamentOutput, 403: _err("forbidden: not the organiser"), 404: _NOT_FOUND,
                              409: _err("not_registering, too_few_entrants (the detail says how many are needed), "
                                        "too_many_matches, same_owner"), **_AUTH})
    def post(self, request, tournament_id: int):
        t = self.tournament(tournament_id)
        services.check_organiser(tournament=t, user=request.user)
        try:
            t = services.tournament_start(tournament=t)
        except ValueError as exc:  # e.g. the pairing could not keep one owner's entrants apart
            raise TournamentError("same_owner", f"the first round cannot be paired: {exc}") from None
        return Response(_tournament(t))
