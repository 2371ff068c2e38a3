"""Server-rendered ladder pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games import selectors as game_selectors
from games.models import Player
from tournaments import selectors
from tournaments.models import Ladder
from tournaments.services import LadderBusy, ladder_play_now


def home(request):
    return render(request, "tournaments/home.html", {
        "ladders": selectors.ladder_list(),
        "recent": game_selectors.match_list(status="finished")[:10],
    })


def ladder_detail(request, slug: str):
    ladder = get_object_or_404(Ladder, slug=slug)
    board = selectors.ladder_leaderboard(ladder=ladder)
    scale_max = max([e.mu + 3 * e.sigma for e in board] + [50.0])
    scale_min = min([e.mu - 3 * e.sigma for e in board] + [0.0])
    span = scale_max - scale_min or 1
    for e in board:  # positions (percent) of the rating bar: mu +- 3 sigma, ordinal = left end
        e.bar_left = 100 * (e.mu - 3 * e.sigma - scale_min) / span
        e.bar_width = 100 * 6 * e.sigma / span
        e.bar_mu = 100 * (e.mu - scale_min) / span
    recent = game_selectors.match_list().filter(ladder_match__ladder=ladder)[:15]
    match_with = "both"
    if request.user.is_authenticated:
        me = Player.objects.filter(user=request.user, kind=Player.Kind.HUMAN).first()
        match_with = me.match_with if me else "both"
    return render(request, "tournaments/ladder_detail.html", {"ladder": ladder, "board": board, "recent": recent,
                                                              "match_with": match_with,
                                                              "waiting": request.GET.get("waiting") == "1"})


def match_page_extras(match) -> dict:
    """Rating changes for the match page (registered into games.views.MATCH_PAGE_EXTRAS)."""
    changes = selectors.match_rating_changes(match=match)
    ladder_match = getattr(match, "ladder_match", None)
    return {"rating_changes": changes, "ladder": ladder_match.ladder if ladder_match else None}


@require_POST
@login_required
def ladder_play_now_page(request, slug: str):
    """The ladder page's "Play now" button: a rated match against the best-matched bots, then the table."""
    ladder = get_object_or_404(Ladder, slug=slug)
    try:
        match, _seat = ladder_play_now(ladder=ladder, user=request.user,
                                       match_with=request.POST.get("match_with") or None)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("ladder-detail", slug=slug)
    except LadderBusy:
        messages.info(request, "A match is being started for you right now: press Play now again in a second.")
        return redirect("ladder-detail", slug=slug)
    if match is None:
        return redirect(reverse("ladder-detail", args=[slug]) + "?waiting=1")
    return redirect("match-table", match_id=match.pk)
