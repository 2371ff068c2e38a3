"""Server-rendered bot pages: the owner's list and register form, the owner's page of one bot (actions, health,
latency chart), and every player's public profile. Thin: services write, selectors read.

A new secret (registration, rotation) is rendered straight into the answer to that POST and never stored in the
session or a message, so it is shown exactly once; those answers are ``no-store``.
"""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext, gettext_lazy as _
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from bots_api import selectors, turnlog, versions
from bots_api.services import (BotError, bot_check_request, bot_delete, bot_enter_ladder, bot_leave_ladder,
                               bot_register, bot_rotate_secret, bot_update)
from bots_api.trials import trial_list
from eights_engine import PRESETS
from games.models import Player


class BotRegisterForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=40, help_text=_("2 to 40 characters, unique among all players"))
    endpoint_url = forms.CharField(label=_("Endpoint URL"), max_length=300,
                                   widget=forms.TextInput(attrs={"placeholder": "https://bot.example.com/eights",
                                                                 "size": 40}),
                                   help_text=_("the service POSTs ping, turn and match_end here"))


class BotEndpointForm(forms.Form):
    endpoint_url = forms.CharField(label=_("Endpoint URL"), max_length=300,
                                   widget=forms.TextInput(attrs={"size": 40}))


@never_cache
@login_required
def bot_list(request):
    form = BotRegisterForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            bot, secret = bot_register(owner=request.user, **form.cleaned_data)
        except BotError as exc:
            form.add_error("endpoint_url" if exc.code == "invalid_endpoint" else "name", exc.detail)
        else:
            created = {"bot": bot, "secret": secret}
            form = BotRegisterForm()
    return render(request, "bots_api/bot_list.html",
                  {"bots": selectors.bot_list(owner=request.user), "form": form, "created": created})


def _do_action(request, bot, action: str):
    """Run one button's action; returns the new secret for ``rotate``, else None. Raises ``BotError``."""
    if action == "verify":
        bot_check_request(bot=bot)  # runs outside this request; the page shows it until it is done
    elif action == "rotate":
        return bot_rotate_secret(bot=bot)
    elif action in ("enable", "disable"):
        bot_update(bot=bot, is_enabled=action == "enable")
        messages.success(request, (gettext("%(name)s is enabled.") if action == "enable" else
                                   gettext("%(name)s is disabled.")) % {"name": bot.name})
    elif action in ("enter", "leave"):
        ladder = selectors.ladder_by_slug(slug=request.POST.get("ladder", ""))
        if action == "enter":
            bot_enter_ladder(bot=bot, ladder=ladder)
            messages.success(request, gettext("%(name)s entered %(ladder)s.") % {"name": bot.name,
                                                                                   "ladder": ladder.name})
        else:
            bot_leave_ladder(bot=bot, ladder=ladder)
            messages.success(request, gettext("%(name)s left %(ladder)s (its rating is kept).") % {
                "name": bot.name, "ladder": ladder.name})
    elif action == "endpoint":
        form = BotEndpointForm(request.POST)
        if not form.is_valid():
            raise BotError("invalid_endpoint", "give the endpoint as an absolute URL")
        bot_update(bot=bot, endpoint_url=form.cleaned_data["endpoint_url"])
        messages.success(request, gettext("Endpoint saved.") if bot.verified_at else
                         gettext("Endpoint saved. Verify the bot again."))
    return None


_ACTIONS = ("verify", "rotate", "enable", "disable", "enter", "leave", "endpoint", "delete")


@never_cache
@login_required
def bot_detail(request, bot_id: int):
    bot = selectors.access_bot(user=request.user, bot_id=bot_id)
    new_secret = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in _ACTIONS:
            return HttpResponseBadRequest(f"unknown action {action!r}")
        if action == "delete":
            bot_delete(bot=bot)
            if not selectors.bot_list(owner=request.user).filter(pk=bot_id).exists():
                messages.success(request, gettext("%(name)s is deleted.") % {"name": bot.name})
                return redirect("bot-list")
            messages.info(request, gettext("%(name)s has played matches, so it is disabled instead of deleted (its "
                                           "matches stay replayable).") % {"name": bot.name})
            return redirect("bot-detail", bot_id=bot_id)
        try:
            new_secret = _do_action(request, bot, action)
        except BotError as exc:
            messages.error(request, exc.detail)
        if new_secret is None:
            return redirect("bot-detail", bot_id=bot_id)  # post/redirect/get: a reload repeats nothing
        bot = selectors.access_bot(user=request.user, bot_id=bot_id)
    entries = {e.ladder_id: e for e in bot.player.ladder_entries.all()}
    ladders = [{"ladder": ladder, "entry": entries.get(ladder.pk)} for ladder in selectors.ladders_active()]
    return render(request, "bots_api/bot_detail.html", {
        "bot": bot, "new_secret": new_secret, "ladders": ladders, "health": selectors.bot_health(bot=bot),
        "chart": latency_chart(selectors.bot_recent_latencies(bot=bot)),
        "endpoint_form": BotEndpointForm(initial={"endpoint_url": bot.endpoint_url}),
        "matches": selectors.player_matches(player=bot.player)[:10],
        "check": selectors.bot_last_check(bot=bot),
        "trials": trial_list(bot=bot)[:10],  # -- trials (bots_api.trials)
        "versions": versions.bot_versions(bot=bot),
        "turn_log_days": settings.TURN_LOG_DAYS,
    })


#: Turns per page of the turn log page.
TURNS_PER_PAGE = 25


@never_cache
@login_required
def bot_turns(request, bot_id: int):
    """The bot's turn log (owner only: anyone else gets 404): each turn's request, reply, latency, debug note and the
    move stored for it, newest first, ``TURNS_PER_PAGE`` a page (``before``: an id, the older page's start), with the
    filters of the API (match, deal, ply, fault). A bad filter is a 400 page saying what is wrong."""
    bot = selectors.access_bot(user=request.user, bot_id=bot_id)
    error, turns, older = "", [], None
    try:
        filters = turnlog.check_turn_filters(request.GET)
        before = request.GET.get("before", "").strip()
        if before and not (before.isascii() and before.isdigit() and len(before) <= 18):
            raise turnlog.BadTurnFilter("before", "give a turn id (a whole number): follow the Older link")
    except turnlog.BadTurnFilter as exc:
        error = str(exc.detail)
    else:
        qs = turnlog.bot_turns(bot=bot, filters=filters).order_by("-id")
        if before:
            qs = qs.filter(id__lt=int(before))
        page = list(qs[:TURNS_PER_PAGE + 1])
        if len(page) > TURNS_PER_PAGE:
            page = page[:TURNS_PER_PAGE]
            older = page[-1].pk
        turns = [turnlog.turn_as_dict(t) for t in turnlog.turns_with_moves(page)]
        for turn in turns:
            turn["request_text"] = json.dumps(turn["request"], indent=1)
            turn["reply_text"] = (json.dumps(turn["reply"], indent=1) if not isinstance(turn["reply"], str)
                                  else turn["reply"]) if turn["reply"] is not None else ""
            turn["played_text"] = json.dumps(turn["played"]) if turn["played"] is not None else ""
    query = request.GET.copy()
    query.pop("before", None)
    return render(request, "bots_api/bot_turns.html", {
        "bot": bot, "turns": turns, "error": error, "older": older, "query": query.urlencode(),
        "fault_filters": turnlog.FAULT_FILTERS, "params": request.GET, "turn_log_days": settings.TURN_LOG_DAYS,
    }, status=400 if error else 200)


def latency_chart(turns: list[dict], width: int = 640, height: int = 160, pad: int = 8) -> dict | None:
    """Coordinates for the inline SVG chart of turn latencies (oldest left); faults become red dots."""
    if not turns:
        return None
    top = max(max(t["think_ms"] for t in turns), 1)
    step = (width - 2 * pad) / max(len(turns) - 1, 1)

    def y(ms: int) -> float:
        return round(height - pad - ms / top * (height - 2 * pad), 1)

    points = [(round(pad + i * step, 1), y(t["think_ms"])) for i, t in enumerate(turns)]
    return {
        "width": width, "height": height, "top": top, "count": len(turns),
        "polyline": " ".join(f"{px},{py}" for px, py in points),
        "faults": [{"x": px, "y": py, "kind": t["fault_kind"], "ms": t["think_ms"]}
                   for (px, py), t in zip(points, turns) if t["fault_kind"]],
    }


def head_to_head_page(request, a: str, b: str):
    """Two players head to head (``bots_api.head_to_head``): their public matches against each other."""
    from bots_api.head_to_head import head_to_head

    first, second = selectors.player_by_name(name=a), selectors.player_by_name(name=b)
    if first.pk == second.pk:
        return redirect("player-profile", name=first.name)
    return render(request, "bots_api/head_to_head.html", {
        "a": first, "b": second, "record": head_to_head(a=first, b=second)})


def player_profile(request, name: str):
    from bots_api.head_to_head import frequent_opponents
    from tournaments.seasons import player_season_history

    player = selectors.player_by_name(name=name)
    profile = selectors.player_profile(player=player)
    profile["opponents"] = frequent_opponents(player=player)
    profile["seasons"] = player_season_history(player_id=player.pk)
    bot = getattr(player, "bot", None) if player.kind == Player.Kind.BOT else None
    return render(request, "bots_api/player_profile.html", {
        "player": player, "profile": profile, "presets": sorted(PRESETS),
        "is_owner": bot is not None and request.user.is_authenticated and bot.owner_id == request.user.pk,
        "bot": bot,
    })
