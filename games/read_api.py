"""A match over the API, read only: ``GET /api/matches/{id}/`` gives its seats, deals and results exactly as the
match page shows them (``games.match_pages.match_page``, one instant's read), and nothing the page hides.

Hidden information: while a match runs, or after an abort, or while a match dealt the same cards (its duplicate
set) still runs (``games.matches.exports.match_is_public``), the answer has no deal code, seed, salt or hand: only each
deal's commitment (public from the deal's start), dealer and, once the deal ended, its outcome and points. Once the
match is public it adds each deal's code, seed, salt and the seats' starting hands, and links the record and the
replay. A running match's seats show running totals and no places or forfeits (written with the match's end).
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from sitekit.errors import ErrorOutput
from games.models import Match
from games.match_pages import match_page
from games.matches.exports import match_fairness


class ReadSeatOutput(serializers.Serializer):
    index = serializers.IntegerField()
    player_id = serializers.IntegerField()
    player = serializers.CharField(help_text="the player's name")
    kind = serializers.CharField(help_text="human, bot or house")
    guest = serializers.BooleanField(help_text="a guest (a person without an account)")
    total = serializers.IntegerField(help_text="the seat's match total (running while the match runs)")
    place = serializers.IntegerField(allow_null=True, help_text="1 = first; null until the match is over")
    forfeited = serializers.BooleanField()


class ReadDealOutput(serializers.Serializer):
    number = serializers.IntegerField(help_text="1-based")
    dealer = serializers.IntegerField()
    outcome = serializers.CharField(help_text="out or blocked once it ended; playing (the running deal) or cut off "
                                              "(ended by a forfeit or an abort)")
    winner = serializers.IntegerField(allow_null=True, help_text="the seat that went out or won it, else null")
    points = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                   help_text="what the deal added to each seat's total; null until it ended")
    running = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                    help_text="each seat's total after this deal; null until it ended")
    plies = serializers.IntegerField(allow_null=True, help_text="plies the deal took; null until it ended")
    commitment = serializers.CharField(allow_null=True, help_text=(
        "the deal's commitment (docs/FAIRNESS.md), public from the deal's start: engine version 2 the hash of its "
        "key, version 1 SHA-256 of f'{seed}:{salt}'; null for a deal stored before commitments"))
    code = serializers.CharField(allow_null=True, help_text="the deal code (deals the same cards again); only once "
                                                            "the match is public, else null")
    key = serializers.CharField(allow_null=True, help_text="engine version 2: the deal's 256-bit key (64 hex digits); "
                                                          "only once the match is public, else null")
    seed = serializers.IntegerField(allow_null=True, help_text="engine version 1: only once the match is public, "
                                                               "else null")
    salt = serializers.CharField(allow_null=True, help_text="engine version 1: only once the match is public, else "
                                                            "null")
    hands = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), allow_null=True,
                                 help_text="each seat's starting hand (card codes, seat order); only once the match "
                                           "is public, else null")


class MatchReadOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField(help_text="running, finished or aborted")
    public = serializers.BooleanField(help_text=(
        "whether the match's hidden information (codes, seeds, salts, hands, record, replay) is published: finished, "
        "and no match dealt the same cards still running"))
    preset = serializers.CharField(help_text="the ruleset's preset (empty: a ruleset of its own)")
    ruleset = serializers.DictField()
    ladder = serializers.CharField(allow_null=True, help_text="the ladder's slug (null: not a ladder match)")
    seat_count = serializers.IntegerField()
    deal_number = serializers.IntegerField(help_text="deals dealt so far (the current one included)")
    engine_version = serializers.CharField(help_text="2: deals from 256-bit keys; 1: a match from before version 2")
    commitment = serializers.CharField(allow_null=True, help_text=(
        "engine version 2: the commitment to the match secret (docs/FAIRNESS.md), public from the match's creation; "
        "null for a version 1 match or a deal played again"))
    secret = serializers.CharField(allow_null=True, help_text="engine version 2: the match secret (64 hex digits), "
                                                             "only once the match is public, else null")
    ply_count = serializers.IntegerField()
    totals = serializers.ListField(child=serializers.IntegerField(), help_text="match totals, seat order")
    abort_reason = serializers.CharField(help_text="why the match was ended early (aborted), else empty")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    page = serializers.CharField(help_text="the match page")
    record = serializers.CharField(allow_null=True, help_text="the match record (once public)")
    replay = serializers.CharField(allow_null=True, help_text="the replay viewer (once public)")
    seats = ReadSeatOutput(many=True)
    deals = ReadDealOutput(many=True)


def match_read(*, match_id: int) -> dict | None:
    """``GET /api/matches/{id}/``'s answer (``MatchReadOutput``'s shape) from ``match_page`` (the match row and its
    deals at one instant, then its seats) and ``match_fairness`` (commitments; seeds and salts only when public).
    None for an unknown match. A fixed number of queries (about eight), whatever the match's length."""
    page = match_page(match_id=match_id)
    if page is None:
        return None
    match, public = page["match"], page["public"]
    fairness = {row["number"]: row for row in match_fairness(match=match)}
    running = match.status == Match.Status.RUNNING
    seats = [{"index": s.index, "player_id": s.player_id, "player": s.player.name, "kind": s.player.kind,
              "guest": s.player.is_guest,
              "total": (match.totals[s.index] if s.index < len(match.totals) else 0) if running else s.total,
              "place": s.place, "forfeited": s.forfeited} for s in page["seats"]]
    deals = []
    for row in page["deals"]:
        fair = fairness.get(row["number"], {})
        deals.append({
            "number": row["number"], "dealer": row["dealer"], "outcome": row["outcome"], "winner": row["winner"],
            "points": row["points"], "running": row["running"], "plies": row["plies"],
            "commitment": fair.get("commitment"),
            "code": row["code"] if public else None,
            "key": fair.get("key") if public else None,
            "seed": fair.get("seed") if public else None, "salt": fair.get("salt") if public else None,
            "hands": [[card["code"] for card in hand] for hand in row["hands"]] if public and "hands" in row else None})
    ladder_match = getattr(match, "ladder_match", None)  # the ladder app's relation (games does not import it)
    ladder = getattr(getattr(ladder_match, "ladder", None), "slug", None)
    return {"id": match.pk, "status": match.status, "public": public, "preset": match.preset,
            "ruleset": match.ruleset, "ladder": ladder, "seat_count": match.seat_count,
            "deal_number": match.deal_number, "ply_count": match.ply_count, "totals": list(match.totals),
            "engine_version": match.engine_version, "commitment": match.commitment or None,
            "secret": (match.secret or None) if public else None,
            "abort_reason": match.abort_reason, "created_at": match.created_at, "finished_at": match.finished_at,
            "page": reverse("match-detail", args=[match.pk]),
            "record": reverse("api-match-record", args=[match.pk]) if public else None,
            "replay": reverse("match-replay", args=[match.pk]) if public else None,
            "seats": seats, "deals": deals}


class MatchReadApi(APIView):
    """Anyone may read any match: what its page shows (see the module docstring for what stays hidden)."""

    permission_classes = [AllowAny]

    @extend_schema(tags=["matches"], summary="A match: seats, deals and results (hidden information kept hidden)",
                   responses={200: MatchReadOutput,
                              404: OpenApiResponse(ErrorOutput, description="no such match"),
                              429: OpenApiResponse(ErrorOutput, description="too many requests: see Retry-After")})
    def get(self, request, match_id: int):
        data = match_read(match_id=match_id)
        if data is None:
            raise NotFound(f"there is no match {match_id}: the match list is at /api/matches/")
        return Response(MatchReadOutput(data).data)
