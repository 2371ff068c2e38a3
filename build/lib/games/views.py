"""Server-rendered match pages (thin: selectors do the reading)."""

from __future__ import annotations

from typing import Callable

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from games import selectors, services
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
    context = selectors.match_page(match_id=match_id)  # one instant: a deal's end is wholly in or out
    if context is None:
        raise Http404(f"no match {match_id}")
    match, seats = context["match"], context["seats"]
    context["my_seat"] = (selectors.person_seat(match=match, user=request.user)
                          if match.status == Match.Status.RUNNING else None)  # a person's own seat, never their bot's
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
    seat = selectors.person_seat(match=match, user=request.user)
    if seat is None:  # also a bot's owner: the bot plays its seat, not they
        raise PermissionDenied("you have no seat in this match")
    return render(request, "games/table.html", {"match": match, "seat": seat.index})


def deal_code_page(request, code: str):
    """A deal code's page: everyone who played those cards (finished matches only) and their points."""
    plays = selectors.deal_plays(code=code)
    if not plays:
        raise Http404("no finished match has a deal with this code (a code is public once its match ends)")
    rows = []
    for deal in plays:
        seats = sorted(deal.match.seats.all(), key=lambda s: s.index)
        show = (f"python -m games.engine show --code {deal.code} --preset {deal.match.preset} --seats "
                f"{len(seats)} --dealer {deal.dealer}") if deal.match.preset else ""
        rows.append({"deal": deal, "match": deal.match, "show": show, "seats": [
            {"name": s.player.name, "kind": s.player.kind, "points": deal.points[s.index],
             "value": (deal.hand_values or [0] * len(seats))[s.index],
             "went_out": deal.outcome == "out" and deal.winner == s.index} for s in seats]})
    return render(request, "games/deal_code.html", {"code": plays[0].code, "rows": rows,
                                                    "seats": range(plays[0].match.seat_count)})


@require_POST
@login_required
def deal_code_play(request, code: str):
    """"Play this deal": the same cards, the person in the chosen seat, house bots elsewhere; then the table."""
    try:
        seat = int(request.POST.get("seat", 0))
        match = services.deal_replay_create(code=code, user=request.user, seat=seat)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("deal-code", code=code)
    return redirect("match-table", match_id=match.pk)
