"""Server-rendered tournament pages: the list, a tournament (settings, live standings, bracket, rounds) and a round
(every match with its page and replay). Running matches show players and links only (``tournament_selectors``)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from tournaments import tournament_selectors as selectors
from tournaments.models import Tournament


def tournament_list(request):
    return render(request, "tournaments/tournament_list.html", {"tournaments": selectors.tournament_list()[:100]})


def tournament_detail(request, tournament_id: int):
    t = get_object_or_404(Tournament, pk=tournament_id)
    rounds = selectors.tournament_rounds(tournament=t)
    return render(request, "tournaments/tournament_detail.html", {
        "t": t, "standings": selectors.tournament_standings(tournament=t), "rounds": rounds,
        "entries": selectors.tournament_entries(tournament=t),
        "bracket": rounds if t.format == Tournament.Format.KNOCKOUT else None})


def tournament_round(request, tournament_id: int, number: int):
    t = get_object_or_404(Tournament, pk=tournament_id)
    found = [r for r in selectors.tournament_rounds(tournament=t) if r.number == number]
    if not found:
        raise Http404(f"{t.name} has no round {number}")
    return render(request, "tournaments/tournament_round.html", {"t": t, "round": found[0]})
