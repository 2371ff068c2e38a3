"""The REST API for people at a table: a seat's view, and a move answering a given ply.

``GET /api/matches/{id}/seats/{seat}/`` gives the seat's owner the same view a bot receives, the legal actions when
it is their turn, and ``ply`` (the match's ply count) to send back with the move.
``POST /api/matches/{id}/seats/{seat}/actions/`` with ``{"ply": n, "action": {...}}`` stores the move: 400 with the
rule's reason for an illegal action, 403 for someone else's seat, 404 for an unknown match or seat, 409 for a
stale ply (the position moved on) or a busy match (retry). A double submit stores the ply once.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.response import Response
from rest_framework.views import APIView

from games import services
from games.engine import IllegalAction
from games.models import Match
from games.selectors import match_state


class IllegalActionError(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "illegal_action"


class StalePlyError(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "stale_ply"


class BusyError(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "busy"


def _access_seat(request, match_id: int, seat: int) -> Match:
    """The match, when ``seat`` exists in it and is played by the requesting user (404 / 403 otherwise)."""
    match = Match.objects.filter(pk=match_id).first()
    seat_row = None if match is None else match.seats.select_related("player").filter(index=seat).first()
    if seat_row is None:
        raise NotFound(f"no match {match_id} with a seat {seat}")
    if seat_row.player.user_id != request.user.pk:
        raise PermissionDenied(f"seat {seat} of match {match_id} is not yours")
    return match


class SeatViewApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]  # a table polls: its own, larger budget (REST_FRAMEWORK rates)
    throttle_scope = "seat_view"

    @extend_schema(summary="Your seat's view", responses=inline_serializer("SeatView", {
        "match_id": serializers.IntegerField(), "seat": serializers.IntegerField(),
        "status": serializers.CharField(), "ply": serializers.IntegerField(),
        "your_turn": serializers.BooleanField(), "move_deadline": serializers.DateTimeField(allow_null=True),
        "legal_actions": serializers.ListField(child=serializers.DictField()), "view": serializers.DictField()}))
    def get(self, request, match_id: int, seat: int):
        match = _access_seat(request, match_id, seat)
        state = match_state(match=match)
        running = match.status == Match.Status.RUNNING and not state.is_over
        your_turn = running and state.to_play == seat
        deadline = match.last_progress_at + timedelta(seconds=settings.HUMAN_MOVE_SECONDS) if your_turn else None
        return Response({"match_id": match.pk, "seat": seat, "status": match.status, "ply": match.ply_count,
                         "your_turn": your_turn, "move_deadline": deadline,
                         "legal_actions": state.legal_actions() if your_turn else [], "view": state.view(seat)})


class SeatActionApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "seat_action"

    class InputSerializer(serializers.Serializer):
        ply = serializers.IntegerField(min_value=0, help_text="the `ply` of the view this move answers")
        action = serializers.JSONField(help_text='e.g. {"type": "play", "card": "8H", "suit": "S"}')

    @extend_schema(summary="Make a move", request=InputSerializer, responses=inline_serializer("MoveStored", {
        "stored": serializers.BooleanField(), "ply": serializers.IntegerField(), "status": serializers.CharField()}))
    def post(self, request, match_id: int, seat: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            match = services.match_submit_action(match_id=match_id, seat=seat, ply=data.validated_data["ply"],
                                                 action=data.validated_data["action"], user=request.user)
        except services.MatchNotFound as exc:
            raise NotFound(str(exc)) from None
        except services.SeatForbidden as exc:
            raise PermissionDenied(str(exc)) from None
        except services.StalePly as exc:
            raise StalePlyError(str(exc)) from None
        except services.MatchBusy as exc:
            raise BusyError(str(exc) or "the match is busy: try again") from None
        except IllegalAction as exc:
            raise IllegalActionError(str(exc)) from None
        return Response({"stored": True, "ply": match.ply_count, "status": match.status})
