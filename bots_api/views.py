"""Server-rendered bot pages: the owner's list and register form, the owner's page of one bot (actions, health,
latency chart), and every player's public profile. Thin: services write, selectors read.

A new secret (registration, rotation) is rendered straight into the answer to that POST and never stored in the
session or a message, so it is shown exactly once; those answers are ``no-store``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from bots_api import selectors
from bots_api.services import (BotError, bot_check_request, bot_delete, bot_enter_ladder, bot_leave_ladder,
                               bot_register, bot_rotate_secret, bot_update)
from bots_api.trials import trial_list
from games.models import Player


class BotRegisterForm(forms.Form):
    name = forms.CharField(max_length=40, help_text="2 to 40 characters, unique among all players")
    endpoint_url = forms.CharField(label="Endpoint URL", max_length=300,
                                   widget=forms.TextInput(attrs={"placeholder": "https://bot.example.com/eights",
                                                                 "size": 40}),
                                   help_text="the service POSTs ping, turn and match_end here")


class BotEndpointForm(forms.Form):
    endpoint_url = forms.CharField(label="Endpoint URL", max_length=300,
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
        messages.success(request, f"{bot.name} is {action}d.")
    elif action in ("enter", "leave"):
        ladder = selectors.ladder_by_slug(slug=request.POST.get("ladder", ""))
        if action == "enter":
            bot_enter_ladder(bot=bot, ladder=ladder)
            messages.success(request, f"{bot.name} entered {ladder.name}.")
        else:
            bot_leave_ladder(bot=bot, ladder=ladder)
            messages.success(request, f"{bot.name} left {ladder.name} (its rating is kept).")
    elif action == "endpoint":
        form = BotEndpointForm(request.POST)
        if not form.is_valid():
            raise BotError("invalid_endpoint", "give the endpoint as an absolute URL")
        bot_update(bot=bot, endpoint_url=form.cleaned_data["endpoint_url"])
        messages.success(request, "Endpoint saved." + ("" if bot.verified_at else " Verify the bot again."))
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
                messages.success(request, f"{bot.name} is deleted.")
                return redirect("bot-list")
            messages.info(request, f"{bot.name} has played matches, so it is disabled instead of deleted "
                                   "(its matches stay replayable).")
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
    })


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


def player_profile(request, name: str):
    player = selectors.player_by_name(name=name)
    profile = selectors.player_profile(player=player)
    bot = getattr(player, "bot", None) if player.kind == Player.Kind.BOT else None
    return render(request, "bots_api/player_profile.html", {
        "player": player, "profile": profile,
        "is_owner": bot is not None and request.user.is_authenticated and bot.owner_id == request.user.pk,
        "bot": bot,
    })
