"""Ladder API: "play now" starts a rated match for the requesting person: 201 with the match, 202 while waiting for
a person, 409 ``cannot_play`` (closed ladder, too few bots of other owners), 409 ``busy`` with Retry-After: 1 when
another request is starting a match for this person right now (a double press): never a wait for a lock."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from sitekit.errors import ApiError, ErrorOutput
from tournaments.models import Ladder
from tournaments.services import ladder_play_now


class PlayNowApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="PlayNowChoice")  # nested names must be unique in the schema
    class InputSerializer(serializers.Serializer):
        match_with = serializers.ChoiceField(["both", "bots", "people"], required=False,
                                             help_text="whom to play (saved as your preference)")

    @extend_schema(summary="Play now: a rated match against the best-matched bots or people",
                   request=InputSerializer,
                   responses={201: inline_serializer("PlayNow", {"match_id": serializers.IntegerField(),
                                                                 "seat": serializers.IntegerField(),
                                                                 "view_url": serializers.CharField()}),
                              202: inline_serializer("PlayNowQueued", {"queued": serializers.BooleanField(),
                                                                       "detail": serializers.CharField()}),
                              401: OpenApiResponse(ErrorOutput, description="not logged in (token or session)"),
                              404: OpenApiResponse(ErrorOutput, description="no such ladder"),
                              409: OpenApiResponse(ErrorOutput, description="cannot_play: the ladder is closed or has "
                                                   "too few players (bots of other owners) free; busy, with Retry-After: "
                                                   "1: another request of yours is starting a match: post again"),
                              429: OpenApiResponse(ErrorOutput, description="too many requests: see Retry-After")})
    def post(self, request, slug: str):
        ladder = get_object_or_404(Ladder, slug=slug)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            match, seat = ladder_play_now(ladder=ladder, user=request.user,
                                          match_with=data.validated_data.get("match_with"))
        except ValueError as exc:  # LadderBusy (409 busy, Retry-After: 1) is answered by the error handler
            raise ApiError("cannot_play", str(exc), 409) from None
        if match is None:
            return Response({"queued": True, "detail": "waiting for another person: post again to check"},
                            status=status.HTTP_202_ACCEPTED)
        return Response({"match_id": match.pk, "seat": seat, "table_url": f"/matches/{match.pk}/play/",
                         "view_url": f"/api/matches/{match.pk}/seats/{seat}/"}, status=status.HTTP_201_CREATED)
