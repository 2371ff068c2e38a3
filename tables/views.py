"""Table pages: the lobby with its create form (``/tables/``), a table's invite page (``/tables/<code>/``) and its
buttons (join, start, leave, cancel). A guest (no account) may create a table or take a seat: the session's guest
player sits there (``games.people.guests``). Refusals are shown on the page with their status (404, 409, 410, 429)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bots_api.models import Bot
from eights_engine import HOUSE_STRATEGIES, PRESETS
from games.people.guests import session_guest, session_guest_or_new
from games.services import player_for_user
from sitekit.ids import parse_id
from tables import services
from tournaments.models import Ladder

#: seats a table may have on the page's form (a preset may allow fewer)
FORM_SEATS = (2, 3, 4)


def _player(request, *, create: bool = False):
    """The person's player, or the session's guest (made now with ``create``), or None."""
    if request.user.is_authenticated:
        return player_for_user(user=request.user)
    return session_guest_or_new(request) if create else session_guest(request)


def _my_bots(request) -> list[Bot]:
    if not request.user.is_authenticated:
        return []
    return list(Bot.objects.filter(owner=request.user, verified_at__isnull=False, player__is_active=True)
                .select_related("player").order_by("player__name"))


def _challengeable_bots(request) -> list[Bot]:
    """Other owners' verified, playing bots that accept challenges (the lobby form's "challenge a bot"), by name."""
    bots = Bot.objects.filter(accepts_challenges=True, verified_at__isnull=False, player__is_active=True)
    if request.user.is_authenticated:
        bots = bots.exclude(owner=request.user)
    return list(bots.select_related("player", "owner").order_by("player__name")[:50])


def lobby(request, *, status: int = 200, error: str = ""):
    """Open tables waiting for players, newest first, and the form that creates one."""
    viewer = _player(request)
    tables = [services.table_view(t, viewer=viewer) for t in services.tables_open()]
    return render(request, "tables/lobby.html", {
        "tables": tables, "presets": sorted(PRESETS), "strategies": list(HOUSE_STRATEGIES),
        "form_seats": FORM_SEATS,
        "other_seats": range(1, max(FORM_SEATS)), "my_bots": _my_bots(request), "error": error,
        "challengeable": _challengeable_bots(request),
        "ladders": list(Ladder.objects.filter(is_active=True).order_by("name")) if request.user.is_authenticated
        else []}, status=status)


def _seat_specs(post, count: int) -> list[dict]:
    """The other seats from the form: ``seat_<i>`` is ``open``, ``invited`` (with ``invite_<i>``: a name),
    ``house:<strategy>``, ``bot:<id>`` (one's own) or ``challenge:<name>`` (another owner's bot)."""
    specs = []
    for i in range(1, count):
        choice = post.get(f"seat_{i}", "open")
        if choice == "invited":
            specs.append({"kind": "invited", "name": post.get(f"invite_{i}", "").strip()})
        elif choice.startswith("house:"):
            specs.append({"kind": "house", "strategy": choice[len("house:"):]})
        elif choice.startswith("bot:") and (bot_id := parse_id(choice[len("bot:"):])) is not None:
            specs.append({"kind": "bot", "bot": bot_id})
        elif choice.startswith("challenge:"):
            specs.append({"kind": "challenge", "name": choice[len("challenge:"):]})
        else:
            specs.append({"kind": "open"})
    return specs


@require_POST
def table_new(request):
    """Create a table from the lobby's form, then its invite page."""
    seats = request.POST.get("seats", "2")
    if parse_id(seats) not in FORM_SEATS:
        return lobby(request, status=400, error=f"A table here has {', '.join(map(str, FORM_SEATS))} seats.")
    try:
        ladder = request.POST.get("ladder") or None  # rated on a ladder: its rules, not the form's preset
        table = services.table_create(creator=_player(request, create=True), ladder=ladder,
                                      preset=None if ladder else request.POST.get("preset", "web-table"),
                                      seats=_seat_specs(request.POST, int(seats)),
                                      listed=request.POST.get("listed") == "on", request=request)
    except services.TableError as exc:
        response = lobby(request, status=exc.status, error=_sentence(exc.detail))
        if exc.retry_after:
            response["Retry-After"] = str(exc.retry_after)
        return response
    return redirect("table-detail", code=table.code)


def table_detail(request, code: str, *, status: int = 200, error: str = ""):
    """A table's invite page: its rules and seats, the link to share, and what this browser may do; once the match
    started, its table for whoever sits there (and its watch page for the others)."""
    try:
        table = services.table_by_code(code)
    except services.TableError as exc:
        return render(request, "tables/table_missing.html", {"error": _sentence(exc.detail)}, status=exc.status)
    viewer = _player(request)
    view = services.table_view(table, viewer=viewer)
    if view["status"] == "started" and view["your_seat"] is not None and request.method == "GET" and not error:
        return redirect("match-table", match_id=view["match_id"])
    return render(request, "tables/table.html", {
        "table": view, "invite_link": request.build_absolute_uri(view["invite_url"]), "error": error},
        status=status)


def _change(action):
    @require_POST
    def view(request, code: str):
        try:
            action(code=code, player=_player(request, create=action is services.table_join))
        except services.TableError as exc:
            return table_detail(request, code, status=exc.status, error=_sentence(exc.detail))
        if action is services.table_cancel:
            messages.info(request, "The table is cancelled.")
            return redirect("table-lobby")
        if action is services.table_decline:
            messages.info(request, "Declined.")
            return redirect(request.POST.get("next") if _safe_next(request) else "table-lobby")
        return redirect("table-detail", code=code)

    view.__name__ = f"table_{action.__name__.removeprefix('table_')}"
    return view


table_join = _change(services.table_join)
table_start = _change(services.table_start)
table_leave = _change(services.table_leave)
table_cancel = _change(services.table_cancel)
table_decline = _change(services.table_decline)


@require_POST
def challenge_page(request):
    """Challenge the person named by the form's ``player`` (from their page) to a one-on-one casual match: the
    challenge's table page, where the challenger waits for the answer."""
    name = request.POST.get("player", "")
    if not request.user.is_authenticated:
        messages.error(request, "Log in to challenge someone.")
        return redirect("login")
    try:
        table = services.challenge_create(challenger=player_for_user(user=request.user), name=name,
                                          preset=request.POST.get("preset", "web-table"), request=request)
    except services.TableError as exc:
        messages.error(request, _sentence(exc.detail))
        return redirect("player-profile", name=name) if name else redirect("table-lobby")
    return redirect("table-detail", code=table.code)


@require_POST
def table_rematch(request, code: str):
    """Ask for (or accept) the rematch of a table whose match is finished: its rematch table's page."""
    try:
        again = services.table_rematch(code=code, player=_player(request, create=True))
    except services.TableError as exc:
        return table_detail(request, code, status=exc.status, error=_sentence(exc.detail))
    return redirect("table-detail", code=again.code)


def match_page_extras(match) -> dict:
    """The match page's part about the table the match was played at (``tables/_match_table.html``): ``table_code``,
    and ``table_rematch`` (its rematch table's code, or None), for a match played at a table; else nothing."""
    from tables.models import Table

    table = Table.objects.filter(match_id=match.pk).select_related("rematch").first()
    if table is None:
        return {}
    return {"table_code": table.code, "table_rematch": services._rematch_code(table)}


def _safe_next(request) -> bool:
    from django.utils.http import url_has_allowed_host_and_scheme

    target = request.POST.get("next") or ""
    return bool(target) and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                            require_https=request.is_secure())


def _sentence(text) -> str:
    text = str(text)
    return f"{text[:1].upper()}{text[1:]}" + ("" if text.endswith(".") else ".")
