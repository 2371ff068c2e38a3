"""Ladder API: "play now" starts a rated match for the requesting person."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.models import Ladder
from tournaments.services import ladder_play_now


class CannotPlayError(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "cannot_play"


class PlayNowApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Play now: a rated match against the best-matched bots", request=None,
                   responses=inline_serializer("PlayNow", {"match_id": serializers.IntegerField(),
                                                            "seat": serializers.IntegerField(),
                                                            "view_url": serializers.CharField()}))
    def post(self, request, slug: str):
        ladder = get_object_or_404(Ladder, slug=slug)
        try:
            match, seat = ladder_play_now(ladder=ladder, user=request.user)
        except ValueError as exc:
            raise CannotPlayError(str(exc)) from None
        return Response({"match_id": match.pk, "seat": seat,
                         "view_url": f"/api/matches/{match.pk}/seats/{seat}/"}, status=status.HTTP_201_CREATED)
