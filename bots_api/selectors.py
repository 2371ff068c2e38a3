"""Bot and player reads for the owner API and the pages (no writes here).

``access_bot`` is the one gate to a bot's private data: a bot that is not the caller's answers exactly like a
bot that does not exist (404), so a stranger learns nothing, not even that the id is taken.
"""

from __future__ import annotations

import re

from django.db.models import Count, F, Prefetch, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.http import Http404

from bots_api.models import Bot, BotCheck
from games import match_pages
from games.models import Match, Move, Player
from tournaments.models import Ladder, LadderEntry

#: Turns the latency percentiles are computed over (the most recent ones: what an author debugging wants).
LATENCY_WINDOW = 1000
#: Recent samples kept per fault kind.
FAULT_SAMPLES = 5


def bot_list(*, owner) -> QuerySet[Bot]:
    """``owner``'s bots by name, with their player and ladder entries loaded."""
    return (Bot.objects.filter(owner=owner).select_related("player", "owner")
            .prefetch_related(Prefetch("player__ladder_entries",
                                       queryset=LadderEntry.objects.select_related("ladder").order_by("ladder__name"))))


def access_bot(*, user, bot_id: int) -> Bot:
    """The bot ``bot_id`` if ``user`` owns it; ``Http404`` otherwise (same answer for missing and foreign)."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("no such bot")
    bot = bot_list(owner=user).filter(pk=bot_id).first()
    if bot is None:
        raise Http404(f"you have no bot with id {bot_id}")
    return bot


def bot_check(*, bot: Bot, check_id: int) -> BotCheck:
    """The check ``check_id`` of ``bot`` (a bot the caller may see: ``access_bot``); ``Http404`` otherwise."""
    check = BotCheck.objects.filter(bot=bot, pk=check_id).first()
    if check is None:
        raise Http404(f"your bot has no check with id {check_id}")
    return check


def bot_last_check(*, bot: Bot) -> BotCheck | None:
    """The bot's most recent check (None before its first)."""
    return BotCheck.objects.filter(bot=bot).first()


def ladder_by_slug(*, slug: str) -> Ladder:
    ladder = Ladder.objects.filter(slug=slug).first()
    if ladder is None:
        raise Http404(f"there is no ladder {slug!r}")
    return ladder


def ladders_active() -> QuerySet[Ladder]:
    return Ladder.objects.filter(is_active=True).order_by("name")


def player_matches(*, player: Player) -> QuerySet[Match]:
    """Matches ``player`` sat in, newest first, with seats, players and ladder loaded."""
    return (match_pages.match_list().filter(seats__player=player)
            .select_related("ladder_match__ladder").order_by("-created_at", "-id"))


def bot_turns(*, bot: Bot) -> QuerySet[Move]:
    """Every stored ply the bot's seats made (each one a ``turn`` call, or a fallback after a fault)."""
    # One filter() call: Django reuses the seats join, so F("...seats__index") is the seat the bot sat in.
    return Move.objects.filter(deal__match__seats__player_id=bot.player_id, seat=F("deal__match__seats__index"))


def _percentile(ordered: list[int], p: float) -> int | None:
    """Nearest-rank percentile of an ascending list (None when empty)."""
    if not ordered:
        return None
    rank = max(1, -(-len(ordered) * p // 100))  # ceil(n * p / 100)
    return ordered[int(rank) - 1]


def bot_health(*, bot: Bot) -> dict:
    """Calls (turns), latency (ms: p50, p95, max over the last ``LATENCY_WINDOW`` turns) and faults by kind,
    each kind with its count and ``FAULT_SAMPLES`` most recent samples (match id, deal number, ply, cause)."""
    turns = bot_turns(bot=bot)
    totals = turns.aggregate(calls=Count("id"), faults=Count("id", filter=~Q(fault_kind="")))
    recent = sorted(turns.order_by("-id").values_list("think_ms", flat=True)[:LATENCY_WINDOW])
    counts = list(turns.exclude(fault_kind="").values("fault_kind").annotate(count=Count("id"))
                  .order_by("-count", "fault_kind"))
    samples = (turns.exclude(fault_kind="")
               .annotate(nth=Window(RowNumber(), partition_by=F("fault_kind"), order_by=F("id").desc()))
               .filter(nth__lte=FAULT_SAMPLES).order_by("fault_kind", "-id")
               .values("fault_kind", "deal__match_id", "deal__number", "ply", "fault", "created_at"))
    by_kind: dict[str, list[dict]] = {}
    for s in samples:
        by_kind.setdefault(s["fault_kind"], []).append({
            "match_id": s["deal__match_id"], "deal_number": s["deal__number"], "ply": s["ply"],
            "cause": s["fault"], "at": s["created_at"]})
    return {
        "calls": totals["calls"],
        "latency_ms": {"window": len(recent), "p50": _percentile(recent, 50), "p95": _percentile(recent, 95),
                       "max": recent[-1] if recent else None},
        "fault_count": totals["faults"],
        "faults": [{"kind": c["fault_kind"], "count": c["count"], "recent": by_kind.get(c["fault_kind"], [])}
                   for c in counts],
        "suspended_reason": bot.suspended_reason,
    }


def bot_recent_latencies(*, bot: Bot, last: int = 200) -> list[dict]:
    """The bot's last ``last`` turns, oldest first: ``think_ms`` and ``fault_kind`` ("" for a good turn)."""
    rows = list(bot_turns(bot=bot).order_by("-id").values("think_ms", "fault_kind")[:last])
    rows.reverse()
    return rows


def player_by_name(*, name: str) -> Player:
    """The player with this name; ``Http404`` when there is none (or the name could never be one)."""
    if "\x00" in name or len(name) > 200:
        raise Http404("there is no player by that name")
    player = Player.objects.filter(name=name).select_related("user", "bot__owner").first()
    if player is None:
        raise Http404(f"there is no player named {name!r}")
    return player


def player_ratings(*, player: Player) -> list[LadderEntry]:
    return list(LadderEntry.objects.filter(player=player).select_related("ladder").order_by("ladder__name"))


def player_profile(*, player: Player, matches: int = 10) -> dict:
    """What anyone may see of a player: name, kind, owner (bots), ratings per ladder, recent matches, and for
    bots the number of faults (never the endpoint, the secret or the fault details)."""
    bot = getattr(player, "bot", None) if player.kind == Player.Kind.BOT else None
    return {
        "id": player.pk,
        "name": player.name,
        "kind": player.kind,
        "owner": bot.owner.get_username() if bot else None,
        "fault_count": bot_turns(bot=bot).exclude(fault_kind="").count() if bot else None,
        "ratings": player_ratings(player=player),
        "recent_matches": list(player_matches(player=player)[:matches]),
    }


def player_by_ref(*, ref: str) -> Player:
    """The player ``ref`` names (``GET /api/players/{ref}/``): when ``ref`` is all ASCII digits, the player with this
    id (an id always wins: a player named "42" cannot shadow player 42; it is found by its name only while no player
    has that id, and always at its page ``/players/<name>/``); else the player with this exact name. ``Http404`` when
    neither exists."""
    if re.fullmatch(r"[0-9]{1,18}", ref):
        player = Player.objects.filter(pk=int(ref)).select_related("user", "bot__owner").first()
        if player is not None:
            return player
        try:
            return player_by_name(name=ref)
        except Http404:
            raise Http404(f"there is no player with id {ref} and no player named {ref!r}") from None
    return player_by_name(name=ref)
