"""Server-rendered match pages (thin: selectors do the reading)."""

from __future__ import annotations

import json
import re

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_POST
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from rest_framework.request import Request

from games import browse, services
from games import match_pages
from games.matches.talk import TALK_PHRASES, talk_of_match
from games.matches import analysis, exports, snapshots
from games.matches import seats as match_seats
from games.people.casual import CasualRefused, casual_start
from sitekit.limits import LimitRefused
from eights_engine import PRESETS, Ruleset
from eights_engine.describe import describe_rules
from games.matches.reasons import RulesWords
from games.people.guests import session_guest
from games.models import Deal, Match, Move, Player, Seat
from games.hooks import register_match_page_extra, replay_tools
from games import hooks

# the fair-deal block (templates/games/_fairness.html): commitments always, seeds and salts once finished
register_match_page_extra(lambda match: {"fairness": exports.match_fairness(match=match),
                                         "fairness_v2": match.engine_version == "2",
                                         "fairness_secret": match.secret if exports.match_is_public(match=match)
                                         else None})


def match_list(request):
    """The match list: the filters of ``GET /api/matches/`` (``games.browse``) as a form, and the same keyset pages.
    A bad filter shows the form with what was wrong (400)."""
    drf_request = Request(request)  # DRF's cursor pages read query_params and build the links from it
    me, signed_in = browse.session_player(request)
    context = {"statuses": browse.STATUSES, "presets": sorted(PRESETS), "orders": browse.ORDERS,
               "groups": sorted(hooks.MATCH_GROUPS), "query": request.GET, "signed_in": signed_in}
    try:
        filters = browse.check_match_filters(request.GET, me=me, signed_in=signed_in)
        paginator = browse.MatchCursorPagination()
        matches = paginator.paginate_queryset(browse.match_browse(filters=filters), drf_request)
    except browse.BadFilter as exc:
        context.update(problem=str(exc.detail), matches=[], filters=None)
        return render(request, "games/match_list.html", context, status=400)
    for match in matches:
        match.list_seats = browse.list_seats(match)
    context.update(matches=matches, filters=filters, next=paginator.get_next_link(),
                   previous=paginator.get_previous_link())
    return render(request, "games/match_list.html", context)


def match_detail(request, match_id: int):
    context = match_pages.match_page(match_id=match_id)  # one instant: a deal's end is wholly in or out
    if context is None:
        raise Http404(f"no match {match_id}")
    match, seats = context["match"], context["seats"]
    context["my_seat"] = (match_seats.person_seat(match=match, user=request.user, guest=session_guest(request))
                          if match.status == Match.Status.RUNNING else None)  # a person's own seat, never their bot's
    context.update(hooks.match_page_extras(match))
    if match.is_finished:
        context["podium"] = sorted(seats, key=lambda s: (s.place, s.index))
    context["sides"] = partnership_sides(match)
    ruleset = snapshots.ruleset_of(match)
    context["lower_total_wins"] = ruleset.lower_total_wins
    context["chart"] = totals_chart(deals=context["deals"], seats=seats, target=ruleset.target_for(match.seat_count))
    if context["public"]:  # an analysis shows every seat's cards: never before the match is public
        answer = analysis.analysis_answer(match=match)
        context["analysis"] = match_pages.analysis_view(answer=answer, seats=seats, user=request.user)
        context["analysis_askable"] = answer is None or answer["status"] == "failed"
    return render(request, "games/match_detail.html", context)


@require_POST
@login_required
def match_analysis_ask(request, match_id: int):
    """The match page's "Analyse this match": ``analysis.analysis_ask`` (the person's budget), then the page."""
    match = get_object_or_404(Match, pk=match_id)
    try:
        analysis.analysis_ask(match=match, request=request)
    except analysis.AnalysisRefused as exc:
        messages.error(request, exc.detail)
    except LimitRefused as exc:
        messages.error(request, exc.detail)
    return redirect(reverse("match-detail", args=[match_id]) + "#analysis")


def partnership_sides(match: Match) -> list[dict]:
    """The two sides of a partnership match (RULES.md, system A with partners: seats 0+2 against 1+3), each as
    ``{"name": "A", "seats": [0, 2], "total": points}`` with the side's total (the sum of its seats' totals, which is
    what the target and the places are judged on); ``[]`` for a match without partners."""
    if not match.ruleset.get("partnership"):
        return []
    totals = list(match.totals)
    return [{"name": name, "seats": [first, first + 2], "total": totals[first] + totals[first + 2]}
            for name, first in (("A", 0), ("B", 1))]


#: one line per seat: a colour and a dash pattern (the lines differ in greyscale too), named in the legend
_SERIES = [("#0b6e4f", "", pgettext_lazy("a line", "solid")), ("#c0392b", "6 3", pgettext_lazy("a line", "dashed")),
           ("#1a5fb4", "2 3", pgettext_lazy("a line", "dotted")),
           ("#9a3b00", "8 3 2 3", pgettext_lazy("a line", "dash-dot")),
           ("#6d28d9", "12 4", pgettext_lazy("a line", "long-dashed")),
           ("#0e7490", "4 2 1 2", pgettext_lazy("a line", "dash-dot-dot")),
           ("#a16207", "1 5", pgettext_lazy("a line", "sparse dotted")),
           ("#334155", "10 2 2 2 2 2", pgettext_lazy("a line", "dash-dot-dot-dot"))]


def totals_chart(*, deals: list[dict], seats: list, target: int | None, width: int = 640, height: int = 240,
                 left: int = 44, pad: int = 14) -> dict | None:
    """Coordinates of the match page's inline SVG chart of each seat's running total, deal by deal: x is the deal
    (0 = before the first), y the total after it (``match_deal_table``'s ``running``: the stored deal points
    summed). None before the first deal ends. Shapes: ``series`` per seat (``index``, ``name``, ``colour``,
    ``dash``, ``pattern`` (words), ``points`` (SVG ``x,y`` pairs), ``totals`` (the plotted values, deal 0
    first)), ``ticks`` (y axis: ``y``, ``value``), ``xticks`` (``x``, ``deal``), ``target_y`` (or None)."""
    rows = [d for d in deals if d["running"] is not None]
    if not rows:
        return None
    totals = [[0] * len(seats)] + [d["running"] for d in rows]
    low = min(0, *(min(t) for t in totals))
    top = max(1, *(max(t) for t in totals), *([target] if target else []))
    x_step = (width - left - pad) / max(len(totals) - 1, 1)

    def y(value: int) -> float:
        return round(height - pad - (value - low) / (top - low) * (height - 2 * pad), 1)

    def x(i: int) -> float:
        return round(left + i * x_step, 1)

    series = []
    for seat in seats:
        colour, dash, pattern = _SERIES[seat.index % len(_SERIES)]
        values = [t[seat.index] for t in totals]
        series.append({"index": seat.index, "name": seat.player.name, "colour": colour, "dash": dash,
                       "pattern": pattern, "totals": values,
                       "points": " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values))})
    every = max(1, len(totals) // 10)
    return {"width": width, "height": height, "left": left, "right": width - pad, "deals": len(rows), "top": top,
            "series": series,
            "ticks": [{"y": y(v), "value": v} for v in sorted({low, top, *([target] if target else [])})],
            "xticks": [{"x": x(i), "deal": i} for i in range(0, len(totals), every)],
            "target_y": y(target) if target and low <= target <= top else None, "target": target}


@ensure_csrf_cookie
def match_table(request, match_id: int):
    """The play table for the logged-in person's seat, or the guest seat of this browser's session (the page fetches the
    seat API when the events stream says a ply was stored; state lives on the server, so a closed tab reopens where it stopped). 403 with the reason otherwise."""
    match = get_object_or_404(Match, pk=match_id)
    guest = None if request.user.is_authenticated else session_guest(request)
    if not request.user.is_authenticated and guest is None:
        raise PermissionDenied(_("This table is not open to you: you are not logged in, and this browser has no "
                                 "guest session (a guest's table opens only in the browser that dealt it, while its "
                                 "session lasts). Log in, or deal a new guest table on the home page."))
    seat = match_seats.person_seat(match=match, user=request.user, guest=guest)
    if seat is None:  # also a bot's owner: the bot plays its seat, not they
        raise PermissionDenied(_("You have no seat in this match."))
    # "Deal again" at the end of a casual match against house bots (a guest's or a person's Deal): the same rules
    opponents = Seat.objects.filter(match=match).exclude(index=seat.index).values_list("player__kind", flat=True)
    deal_again = (match.preset and match.seat_count in (2, 3) and not match.reveal_group
                  and all(kind == Player.Kind.HOUSE for kind in opponents))
    people = Player.Kind.HUMAN in opponents  # another person: presence, ending the wait, table talk
    context = {"match": match, "seat": seat.index, "guest": guest, "deal_again": deal_again, "people": people,
               "next_deal_seconds": settings.TABLE_NEXT_DEAL_SECONDS,
               "phrases": TALK_PHRASES.items() if people else ()}
    context.update(hooks.match_page_extras(match))  # a match played at a table: its Rematch at the end
    return render(request, "games/table.html", context)


def watch_context(*, match: Match | None, featured: bool = False) -> dict:
    """The context of ``games/watch.html`` for a running ``match`` (None: the featured page with no match to show):
    ``match``, ``featured``, ``seats`` (index order, with players), ``waits_for`` (the id of the match that must end
    before this one is played, else None) and ``watch`` (the page's data block: ``match_id``, ``public_url``,
    ``events_url``, ``watch_url``, ``featured``, ``next_url`` (where the page goes once the match ends), ``pace_ms``
    (bursts of plies shown one every so many ms))."""
    if match is None:
        return {"match": None, "featured": featured, "watch": {"match_id": None, "featured": featured,
                                                               "next_url": reverse("watch-featured")}}
    seats = list(Seat.objects.filter(match_id=match.pk).select_related("player").order_by("index"))
    waits_for = match_seats.seat_waits_for(match)
    watch_url = reverse("match-watch", args=[match.pk])
    return {"match": match, "featured": featured, "seats": seats, "waits_for": waits_for, "watch": {
        "match_id": match.pk, "featured": featured, "public_url": f"/api/matches/{match.pk}/public/",
        "events_url": f"/api/matches/{match.pk}/events/", "watch_url": watch_url,
        "pace_ms": settings.WATCH_PACE_MS,
        # the watch page's own address once the match is over answers with the replay at its last ply (or the
        # match page while the replay is not public); the featured page goes on to the next featured match
        "next_url": reverse("watch-featured") if featured else watch_url}}


def match_watch(request, match_id: int):
    """Watch a match as it is played: the public view only (``static/js/watch.js`` follows the events
    stream). A running match of a duplicate set answers 403 saying when it can be watched (as a replay, once its set
    is over: ``games.live.check_watchable``). A match that is over answers with its replay at the last ply when the
    replay is public (``match_is_public``), else with the match page (an aborted match, or a duplicate set still
    running)."""
    match = get_object_or_404(Match, pk=match_id)
    if match.status != Match.Status.RUNNING:
        if exports.match_is_public(match=match):
            last = Deal.objects.filter(match_id=match.pk).order_by("-number").values_list("pk", "number").first()
            # the deal's stored moves, not Deal.plies: a deal cut off by a forfeit keeps plies = 0
            query = f"?deal={last[1]}&ply={Move.objects.filter(deal_id=last[0]).count()}" if last else ""
            return redirect(reverse("match-replay", args=[match.pk]) + query)
        return redirect("match-detail", match_id=match.pk)
    if match.reveal_group:  # a duplicate set's match: its plies would tell the cards of the set's other matches
        return render(request, "games/replay_refused.html", {"match_id": match.pk, "title": "Not watchable yet",
                      "problem": f"Match #{match.pk} is part of a duplicate set (the same cards dealt to other seats "
                                 "in other matches): it can be watched as a replay once every match of the set is "
                                 "finished."}, status=403)
    return render(request, "games/watch.html", watch_context(match=match))


def deal_code_page(request, code: str):
    """A deal code's page: everyone who played those cards (finished matches only) and their points."""
    plays = exports.deal_plays(code=code)
    if not plays:
        raise Http404("no finished match has a deal with this code (a code is public once its match ends)")
    rows = []
    for deal in plays:
        seats = sorted(deal.match.seats.all(), key=lambda s: s.index)
        which = f"--key {deal.key}" if deal.key else f"--code {deal.code}"  # a public deal (deal_plays): its key too
        show = (f"python -m eights_engine show {which} --preset {deal.match.preset} --seats "
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


@gzip_page  # the frames of a 2,000-ply match are ~250 KiB of JSON, ~25 KiB gzipped (Django's gzip pads against BREACH)
def match_replay(request, match_id: int):
    """The replay viewer of a finished match: every ply of every deal, all hands face up (``templates/games/
    replay.html``, ``static/js/replay.js``). The frames (``match_pages.match_replay``) go into the page as a JSON data
    block, and the page is sent gzipped to a browser that accepts it. ``?deal=D&ply=P`` opens at deal D (1-based) after its P-th action (0: as dealt); a value outside the match
    answers 400 saying the range. A running or aborted match answers 403 and shows nothing of it; an unknown one 404.
    """
    match = get_object_or_404(Match, pk=match_id)
    try:
        if match.status != Match.Status.FINISHED:
            raise exports.MatchNotFinished
        data = match_pages.match_replay(match=match)
    except Match.DoesNotExist:
        raise Http404(f"no match {match_id}") from None
    except exports.MatchNotFinished:
        why = ("it was aborted: the deals of an aborted match are never published" if match.status ==
               Match.Status.ABORTED else "it is still being played: its hands and deals are published once it is "
               "finished")
        return render(request, "games/replay_refused.html", {"match_id": match_id, "title": "No replay yet" if
                      match.status == Match.Status.RUNNING else "No replay", "problem":
                      f"Match #{match_id} cannot be replayed: {why}."}, status=403)
    try:
        start = _replay_start(request.GET, data["deals"])
    except ValueError as exc:
        return render(request, "games/replay_refused.html", {"match_id": match_id, "title": "No such ply",
                      "problem": str(exc), "replay_link": True}, status=400)
    names = {p["seat"]: p["name"] for p in data["players"]}
    talk = [{**t, "name": names.get(t["seat"], f"seat {t['seat']}")} for t in talk_of_match(match_id=match_id)]
    answer = analysis.analysis_answer(match=match) if exports.match_is_public(match=match) else None
    return render(request, "games/replay.html", {"match_id": match_id, "frames": data, "start": start, "talk": talk,
                                                 "players": data["players"], "deal_count": len(data["deals"]),
                                                 "seat_tools": replay_tools(match=match, user=request.user),
                                                 "analysis": match_pages.replay_analysis(answer)})


def _replay_start(query, deals: list[dict]) -> dict:
    """``{"deal", "ply"}`` from ``?deal=&ply=`` (defaults: deal 1, ply 0); ``ValueError`` naming the range."""
    deal_text, ply_text = query.get("deal", "1"), query.get("ply", "0")
    if not re.fullmatch(r"[0-9]{1,6}", deal_text) or not 1 <= int(deal_text) <= len(deals):
        raise ValueError(f"deal is a deal number from 1 to {len(deals)} (this match has {len(deals)} "
                         f"deal{'s' if len(deals) != 1 else ''}), not {deal_text[:12]!r}")
    number = int(deal_text)
    plies = len(deals[number - 1]["plies"])
    if not re.fullmatch(r"[0-9]{1,6}", ply_text) or int(ply_text) > plies:
        raise ValueError(f"ply is a number from 0 (the deal as dealt) to {plies} (deal {number} has {plies} "
                         f"plies), not {ply_text[:12]!r}")
    return {"deal": number, "ply": int(ply_text)}


class RulesNotFound(Exception):
    """A rules page that cannot be written (an unknown preset, a seat count outside the range): says why."""


def rules_context(*, ruleset: Ruleset, seats: int | None, title: str, intro: str, back: tuple[str, str] | None = None,
                  preset: str = "") -> dict:
    """The context of ``games/rules.html``: ``describe_rules`` sections and every option's value (for bot authors).

    Raises ``RulesNotFound`` when ``seats`` is outside the ruleset's seat range (the message says the range)."""
    try:
        sections = describe_rules(ruleset, seats, RulesWords())
    except ValueError as exc:
        raise RulesNotFound(str(exc)) from None
    return {"title": title, "intro": intro, "sections": sections, "back": back, "preset": preset, "seats": seats,
            "options": [(name, json.dumps(value)) for name, value in sorted(ruleset.to_dict().items())],
            "seat_choices": range(ruleset.seats_min, ruleset.seats_max + 1)}


def rules_index(request, problem: str = "", status: int = 200):
    """How to play: the list of presets, each with its rules page (also the 404 answer of a rules page, ``problem``
    saying what was wrong)."""
    return render(request, "games/rules_index.html", {"problem": problem, "presets": [
        {"name": name, "seats": _("%(low)s to %(high)s") % {"low": r.seats_min, "high": r.seats_max}
         if r.seats_min != r.seats_max else str(r.seats_min)}
        for name, r in ((n, Ruleset.preset(n)) for n in sorted(PRESETS))]}, status=status)


def rules_preset(request, preset: str):
    """How to play a preset (``?seats=N`` for a seat count of its range)."""
    if preset not in PRESETS:
        return rules_index(request, _("There is no preset %(name)s: choose one of the presets below.") % {
            "name": repr(preset[:40])}, 404)
    ruleset = Ruleset.preset(preset)
    seats = request.GET.get("seats")
    try:
        if seats is not None:
            if not re.fullmatch(r"[0-9]{1,3}", seats):  # ASCII digits: str.isdigit() passes "²", int() "٢"
                raise RulesNotFound(_("seats is a number: this preset is for %(low)s to %(high)s seats") % {
                    "low": ruleset.seats_min, "high": ruleset.seats_max})
            seats = int(seats)
        intro = (_("The rules of the %(preset)s preset with %(seats)s seats.") if seats else
                 _("The rules of the %(preset)s preset.")) % {"preset": preset, "seats": seats}
        context = rules_context(ruleset=ruleset, seats=seats, preset=preset,
                                title=_("How to play: %(preset)s") % {"preset": preset}, intro=intro)
    except RulesNotFound as exc:
        return rules_index(request, _("The %(preset)s rules cannot be shown: %(why)s.") % {
            "preset": preset, "why": exc}, 404)
    return render(request, "games/rules.html", context)


def match_rules(request, match_id: int):
    """How to play the ruleset this match is played under, at its seat count."""
    match = get_object_or_404(Match, pk=match_id)
    ruleset = Ruleset.from_dict(match.ruleset)
    facts = {"id": match.pk, "preset": match.preset, "seats": match.seat_count}
    if match.preset not in PRESETS:
        intro = _("The rules of match #%(id)s, its own options, %(seats)s seats.") % facts
    elif ruleset != Ruleset.preset(match.preset):
        intro = _("The rules of match #%(id)s (preset %(preset)s, with its own options), %(seats)s seats.") % facts
    else:
        intro = _("The rules of match #%(id)s (preset %(preset)s), %(seats)s seats.") % facts
    return render(request, "games/rules.html", rules_context(
        ruleset=ruleset, seats=match.seat_count, preset=match.preset,
        title=_("How to play match #%(id)s") % facts, intro=intro,
        back=(reverse("match-detail", args=[match.pk]), _("match #%(id)s") % facts)))
