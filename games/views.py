"""Server-rendered match pages (thin: selectors do the reading)."""

from __future__ import annotations

import json
import re
from typing import Callable

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST

from games import selectors, services
from games.casual import CasualRefused, casual_start
from games.engine import PRESETS, Ruleset
from games.engine.describe import describe_rules
from games.guests import session_guest
from games.models import Match

#: Other apps add context to the match page here (tournaments: rating changes) without games importing them.
MATCH_PAGE_EXTRAS: list[Callable[[Match], dict]] = []
# the fair-deal block (templates/games/_fairness.html): commitments always, seeds and salts once finished
MATCH_PAGE_EXTRAS.append(lambda match: {"fairness": selectors.match_fairness(match=match)})

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
    context["my_seat"] = (selectors.person_seat(match=match, user=request.user, guest=session_guest(request))
                          if match.status == Match.Status.RUNNING else None)  # a person's own seat, never their bot's
    for extra in MATCH_PAGE_EXTRAS:
        context.update(extra(match))
    if match.is_finished:
        context["podium"] = sorted(seats, key=lambda s: (s.place, s.index))
    return render(request, "games/match_detail.html", context)


def healthz(request):
    return JsonResponse({"status": "ok"})


@ensure_csrf_cookie
def match_table(request, match_id: int):
    """The play table for the logged-in person's seat, or the guest seat of this browser's session (the page polls the
    seat API; state lives on the server, so a closed tab reopens where it stopped). 403 with the reason otherwise."""
    match = get_object_or_404(Match, pk=match_id)
    guest = None if request.user.is_authenticated else session_guest(request)
    if not request.user.is_authenticated and guest is None:
        raise PermissionDenied("This table is not open to you: you are not logged in, and this browser has no guest "
                               "session (a guest's table opens only in the browser that dealt it, while its session "
                               "lasts). Log in, or deal a new guest table on the home page.")
    seat = selectors.person_seat(match=match, user=request.user, guest=guest)
    if seat is None:  # also a bot's owner: the bot plays its seat, not they
        raise PermissionDenied("you have no seat in this match")
    return render(request, "games/table.html", {"match": match, "seat": seat.index, "guest": guest})


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
            {"name": s.player.name, "kind": s.player.badge, "points": deal.points[s.index],
             "value": (deal.hand_values or [0] * len(seats))[s.index],
             "went_out": deal.outcome == "out" and deal.winner == s.index} for s in seats]})
    return render(request, "games/deal_code.html", {"code": plays[0].code, "rows": rows,
                                                    "seats": range(plays[0].match.seat_count)})


@require_POST
@login_required
def deal_code_play(request, code: str):
    """"Play this deal": the same cards, the person in the chosen seat, house bots elsewhere; then the table."""
    try:
        seat_text = request.POST.get("seat") or "0"
        if not re.fullmatch(r"[0-9]{1,2}", seat_text):
            raise ValueError(f"seat is a seat number (0, 1, ...), not {seat_text[:10]!r}")
        seat = int(seat_text)
        match = casual_start(person=services.player_for_user(user=request.user), create=lambda: (
            services.deal_replay_create(code=code, user=request.user, seat=seat)))
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("deal-code", code=code)
    except CasualRefused as exc:  # the account's casual match limits: the deal's page saying which, 429
        messages.error(request, exc.detail)
        response = deal_code_page(request, code)
        response.status_code = 429
        response["Retry-After"] = str(exc.retry_after)
        return response
    return redirect("match-table", match_id=match.pk)


class RulesNotFound(Exception):
    """A rules page that cannot be written (an unknown preset, a seat count outside the range): says why."""


def rules_context(*, ruleset: Ruleset, seats: int | None, title: str, intro: str, back: tuple[str, str] | None = None,
                  preset: str = "") -> dict:
    """The context of ``games/rules.html``: ``describe_rules`` sections and every option's value (for bot authors).

    Raises ``RulesNotFound`` when ``seats`` is outside the ruleset's seat range (the message says the range)."""
    try:
        sections = describe_rules(ruleset, seats)
    except ValueError as exc:
        raise RulesNotFound(str(exc)) from None
    return {"title": title, "intro": intro, "sections": sections, "back": back, "preset": preset, "seats": seats,
            "options": [(name, json.dumps(value)) for name, value in sorted(ruleset.to_dict().items())],
            "seat_choices": range(ruleset.seats_min, ruleset.seats_max + 1)}


def rules_index(request, problem: str = "", status: int = 200):
    """How to play: the list of presets, each with its rules page (also the 404 answer of a rules page, ``problem``
    saying what was wrong)."""
    return render(request, "games/rules_index.html", {"problem": problem, "presets": [
        {"name": name, "seats": f"{r.seats_min} to {r.seats_max}" if r.seats_min != r.seats_max else str(r.seats_min)}
        for name, r in ((n, Ruleset.preset(n)) for n in sorted(PRESETS))]}, status=status)


def rules_preset(request, preset: str):
    """How to play a preset (``?seats=N`` for a seat count of its range)."""
    if preset not in PRESETS:
        return rules_index(request, f"There is no preset {preset[:40]!r}: choose one of the presets below.", 404)
    ruleset = Ruleset.preset(preset)
    seats = request.GET.get("seats")
    try:
        if seats is not None:
            if not re.fullmatch(r"[0-9]{1,3}", seats):  # ASCII digits: str.isdigit() passes "²", int() "٢"
                raise RulesNotFound(f"seats is a number: this preset is for {ruleset.seats_min} to "
                                    f"{ruleset.seats_max} seats")
            seats = int(seats)
        context = rules_context(ruleset=ruleset, seats=seats, preset=preset, title=f"How to play: {preset}",
                                intro=f"The rules of the {preset} preset" + (f" with {seats} seats." if seats else "."))
    except RulesNotFound as exc:
        return rules_index(request, f"The {preset} rules cannot be shown: {exc}.", 404)
    return render(request, "games/rules.html", context)


def match_rules(request, match_id: int):
    """How to play the ruleset this match is played under, at its seat count."""
    match = get_object_or_404(Match, pk=match_id)
    ruleset = Ruleset.from_dict(match.ruleset)
    if match.preset not in PRESETS:
        origin = ", its own options"
    elif ruleset != Ruleset.preset(match.preset):
        origin = f" (preset {match.preset}, with its own options)"
    else:
        origin = f" (preset {match.preset})"
    return render(request, "games/rules.html", rules_context(
        ruleset=ruleset, seats=match.seat_count, preset=match.preset, title=f"How to play match #{match.pk}",
        intro=f"The rules of match #{match.pk}{origin}, {match.seat_count} seats.",
        back=(reverse("match-detail", args=[match.pk]), f"match #{match.pk}")))
