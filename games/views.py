"""Server-rendered match pages (thin: selectors do the reading)."""

from __future__ import annotations

from typing import Callable

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render

from games import selectors
from games.models import Match

#: Other apps add context to the match page here (tournaments: rating changes) without games importing them.
MATCH_PAGE_EXTRAS: list[Callable[[Match], dict]] = []

_STATUSES = {s.value for s in Match.Status}


def match_list(request):
    status = request.GET.get("status") or None
    if status not in _STATUSES:
        status = None
    page = Paginator(selectors.match_list(status=status), 25).get_page(request.GET.get("page"))
    return render(request, "games/match_list.html", {"page": page, "status": status, "statuses": sorted(_STATUSES)})


def match_detail(request, match_id: int):
    match = get_object_or_404(selectors.match_list(), pk=match_id)
    seats = list(match.seats.all())
    context = {"match": match, "seats": seats, "deals": selectors.match_deal_table(match=match)}
    for extra in MATCH_PAGE_EXTRAS:
        context.update(extra(match))
    if match.is_finished:
        context["podium"] = sorted(seats, key=lambda s: (s.place, s.index))
    return render(request, "games/match_detail.html", context)


def healthz(request):
    return JsonResponse({"status": "ok"})


@login_required
def match_table(request, match_id: int):
    """The play table for the logged-in person's seat (the page polls the seat API; state lives on the server)."""
    match = get_object_or_404(Match, pk=match_id)
    seat = match.seats.filter(player__user=request.user).first()
    if seat is None:
        raise PermissionDenied("you have no seat in this match")
    return render(request, "games/table.html", {"match": match, "seat": seat.index,
                                                "move_seconds": settings.HUMAN_MOVE_SECONDS})
