"""A match's analysis over the API: ``GET /api/matches/{id}/analysis/`` reads it, ``POST`` asks for it.

The analysis (``games.matches.analysis``; the engine's ``eights_engine.analysis``) gives for each decision of each
seat the action the ``expert`` house strategy prefers from that seat's information and the expected points the
chosen action gave up, and for each deal its par and the split of each seat's points into the cards' part and the
decisions' part. It exists only for a public match (finished, and no match dealt the same cards still running): it
shows every seat's cards.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import SAFE_METHODS, AllowAny, IsAuthenticated
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from games.matches.analysis import AnalysisRefused, analysis_answer, analysis_ask
from games.models import Match
from sitekit.errors import ApiError, ErrorOutput


class AnalysisOutput(serializers.Serializer):
    status = serializers.CharField(help_text="queued, running, done or failed")
    deals_done = serializers.IntegerField(help_text="deals analysed so far")
    deals_total = serializers.IntegerField(help_text="deals in the match (0 until a worker takes it)")
    requested_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    cost_ms = serializers.IntegerField(allow_null=True, help_text="the worker's CPU time for it (ms)")
    error = serializers.CharField(help_text="why it failed (status failed), else empty")
    samples = serializers.IntegerField(help_text="determinized deals weighed per decision")
    analysis = serializers.JSONField(allow_null=True, help_text=(
        "once done: {version, samples, lower_is_better, seats, deals: [{number, plies, ply_limit, points, par, "
        "decisions_part, given_up, decisions: [{ply, seat, chosen, best, loss, options}]}], totals: {given_up, "
        "decisions, best_share}} (docs/ANALYSIS.md); null before"))


def _match(match_id: int) -> Match:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound(f"there is no match {match_id}: the match list is at /api/matches/")
    return match


class MatchAnalysisApi(APIView):
    """Anyone may read a public match's analysis; a signed-in person may ask for one (``ANALYSIS_RATE``)."""

    def get_permissions(self):
        return [AllowAny()] if self.request.method in SAFE_METHODS else [IsAuthenticated()]

    @extend_schema(tags=["matches"], summary="A finished match's analysis: every decision and each deal's luck",
                   responses={200: AnalysisOutput,
                              202: OpenApiResponse(AnalysisOutput, description="queued or running: ask again"),
                              404: OpenApiResponse(ErrorOutput, description="no such match, or no analysis of it "
                                                                            "yet (POST asks for one)"),
                              409: OpenApiResponse(ErrorOutput, description="the match is not finished and public")})
    def get(self, request, match_id: int):
        match = _match(match_id)
        try:
            answer = analysis_answer(match=match)
        except AnalysisRefused as exc:
            raise ApiError("not_public", exc.detail, status=409) from None
        if answer is None:
            raise ApiError("not_analysed", f"match {match_id} has no analysis yet: POST to this address (signed in) "
                                           "to ask for one", status=404)
        done = answer["status"] in ("done", "failed")
        return Response(AnalysisOutput(answer).data, status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)

    @extend_schema(tags=["matches"], summary="Ask for a finished match's analysis (a background task)", request=None,
                   responses={200: AnalysisOutput, 202: AnalysisOutput,
                              401: OpenApiResponse(ErrorOutput, description="not logged in (token or session)"),
                              404: OpenApiResponse(ErrorOutput, description="no such match"),
                              409: OpenApiResponse(ErrorOutput, description="the match is not finished and public"),
                              429: OpenApiResponse(ErrorOutput, description="ANALYSIS_RATE: see Retry-After")})
    def post(self, request, match_id: int):
        match = _match(match_id)
        try:
            analysis_ask(match=match, request=request)
            answer = analysis_answer(match=match)
        except AnalysisRefused as exc:
            raise ApiError("not_public", exc.detail, status=409) from None
        done = answer["status"] in ("done", "failed")
        return Response(AnalysisOutput(answer).data, status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)
