"""Reports over the API and the site (``games.people.fairplay``): ``POST /api/reports/`` and the report form at
``/players/<name>/report/`` (linked from the player's page and from matches)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games.models import Match, Player, Report
from games.people.fairplay import REPORT_REASONS, ReportRefused, report_create
from sitekit.errors import ErrorOutput
from sitekit.ids import parse_id
from sitekit.limits import LimitRefused


class ReportInput(serializers.Serializer):
    player = serializers.CharField(max_length=60, help_text="the reported player's exact name, or its id")
    reason = serializers.ChoiceField(REPORT_REASONS, help_text="why (one of the list)", error_messages={
        "invalid_choice": f"\"{{input}}\" is not a reason: use one of {', '.join(REPORT_REASONS)}"})
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, help_text="what you saw (optional)")
    match = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                     help_text="a match of theirs it is about (optional)")


class ReportOutput(serializers.Serializer):
    id = serializers.IntegerField()
    player = serializers.CharField(source="player.name")
    reason = serializers.CharField()
    match = serializers.IntegerField(source="match_id", allow_null=True)
    status = serializers.CharField(help_text="open until staff decide")
    created_at = serializers.DateTimeField()


def _player(ref: str) -> Player | None:
    ref = ref.strip()
    found = Player.objects.filter(name=ref).first()
    if found is None and (pk := parse_id(ref)) is not None:
        found = Player.objects.filter(pk=pk).first()
    return found


class ReportsApi(APIView):
    """Report a player (a person or a bot) to the staff: a reason from a short list and an optional note."""

    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["players"], summary="Report a player for staff to review", request=ReportInput,
                   responses={201: ReportOutput,
                              200: OpenApiResponse(ReportOutput, description="reported already: the open report, with "
                                                                             "a detail"),
                              400: OpenApiResponse(ErrorOutput, description="bad_report"),
                              401: OpenApiResponse(ErrorOutput, description="not logged in"),
                              404: OpenApiResponse(ErrorOutput, description="no such player or match"),
                              429: OpenApiResponse(ErrorOutput, description="REPORT_RATE used up")})
    def post(self, request):
        given = ReportInput(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        match = None
        if data.get("match"):
            match = Match.objects.filter(pk=data["match"]).first()
            if match is None:
                raise ReportRefused("not_found", f"there is no match {data['match']}")
        report, made = report_create(request=request, player=_player(data["player"]), reason=data["reason"],
                                     note=data.get("note", ""), match=match)
        answer = ReportOutput(report).data
        if not made:  # 200, not 201: nothing new was made
            answer["detail"] = ("you reported this player already and that report is still open: it stands as you "
                                "made it")
        return Response(answer, status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)


@login_required
def report_page(request, name: str):
    """``GET``: the report form for the player ``name`` (a match may be named by ``?match=``); ``POST``: the report,
    then back to the player's page with a message. 404 for an unknown player or a house bot (not reported)."""
    player = get_object_or_404(Player.objects.exclude(kind=Player.Kind.HOUSE), name=name)
    if player.user_id == request.user.pk:
        messages.error(request, _("You cannot report yourself or your own bots."))
        return redirect("player-profile", name=player.name)
    match_id = (request.POST.get("match") or request.GET.get("match") or "").strip()
    match = None
    if match_id:
        pk = parse_id(match_id)
        match = Match.objects.filter(pk=pk).first() if pk is not None else None
        if match is None:
            messages.error(request, _("There is no match %(match)s: report from the match's page, or leave the "
                                      "match out.") % {"match": match_id[:20]})
            return redirect("player-report", name=player.name)
    if request.method == "POST":
        try:
            _report, made = report_create(request=request, player=player, reason=request.POST.get("reason", ""),
                                          note=request.POST.get("note", ""), match=match)
        except (ReportRefused, LimitRefused) as exc:
            messages.error(request, str(exc.detail))
            return redirect(request.path + (f"?match={match_id}" if match is not None else ""))
        if made:
            messages.success(request, _("Thank you: the staff will look at your report."))
        else:
            messages.info(request, _("You reported this player already: that report is still open."))
        return redirect("player-profile", name=player.name)
    reasons = [(value, label) for value, label in Report.Reason.choices if value in REPORT_REASONS]
    return render(request, "games/report.html", {"player": player, "reasons": reasons,
                                                  "match_id": match.pk if match is not None else ""})
