"""Server-rendered tournament pages: the list, a tournament (settings, live standings, bracket, rounds) and a round
(every match with its page and replay). Running matches show players and links only (``tournament_selectors``)."""

from __future__ import annotations


from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.utils.translation import gettext
from django.shortcuts import get_object_or_404, redirect, render

from eights_engine import Ruleset
from sitekit.pages import post_only
from sitekit.ids import parse_id
from games.models import Player
from tournaments import tournament_selectors as selectors
from tournaments import tournament_services as services
from tournaments.models import Tournament, TournamentEntry
from tournaments.tournament_services import TournamentError


def tournament_list(request, *, status: int = 200, error: str = "", chosen: dict | None = None):
    """The tournaments, newest first, and (signed in) the form that creates one."""
    from eights_engine import PRESETS

    return render(request, "tournaments/tournament_list.html", {
        "tournaments": selectors.tournament_list()[:100], "presets": sorted(PRESETS), "formats": Tournament.Format,
        "entrant_kinds": Tournament.Entrants, "error": error, "chosen": chosen or {}}, status=status)


_FORM_INTS = {"seats_per_match": 2, "rounds": None, "max_entrants": 64}


@post_only("tournament-list", say="Use the form on the tournaments page to create a tournament.")
@login_required
def tournament_new_page(request):
    """Create a tournament from the tournaments page's form (``services.tournament_create``, as the API does); its
    page, where the organiser enters people's and house bots and starts it."""
    post = request.POST
    numbers = {}
    for field, default in _FORM_INTS.items():
        text = (post.get(field) or "").strip()
        if field == "rounds" and post.get("format") != Tournament.Format.SWISS:
            continue
        if text and parse_id(text) is None:
            return tournament_list(request, status=400, error=f"{field.replace('_', ' ')} is a whole number",
                                   chosen=post)
        numbers[field] = parse_id(text) if text else default
    try:
        t = services.tournament_create(name=post.get("name", "").strip()[:80], format=post.get("format", ""),
                                       preset=post.get("preset", "pagat"), entrants=post.get("entrants", "both"),
                                       created_by=request.user, **{k: v for k, v in numbers.items() if v is not None})
    except TournamentError as exc:
        return tournament_list(request, status=exc.status, error=str(exc.detail), chosen=post)
    messages.success(request, f"{t.name} is open for entries.")
    return redirect("tournament-detail", tournament_id=t.pk)


@post_only("tournament-detail", say="Use the form on the tournament page to enter a house bot.")
@login_required
def tournament_enter_house_page(request, tournament_id: int):
    """The organiser enters a house bot (``player_id``) into their registering tournament."""
    t = get_object_or_404(Tournament, pk=tournament_id)
    player_id = parse_id(request.POST.get("player_id") or "")
    house = Player.objects.filter(pk=player_id, kind=Player.Kind.HOUSE).first() if player_id is not None else None
    try:
        services.check_organiser(tournament=t, user=request.user)
        if house is None:
            raise TournamentError("not_found", "choose one of the house bots", 404)
        services.tournament_register(tournament=t, player=house)
        messages.success(request, f"{house.name} is entered.")
    except TournamentError as exc:
        _refused(request, exc)
    return redirect("tournament-detail", tournament_id=t.pk)


def entry_choices(*, tournament: Tournament, user) -> list[dict]:
    """What ``user`` could enter into the registering ``tournament``: themself and each of their bots, as
    ``{"value": "" (themself) or the bot's id, "label", "refused": the reason it would be refused or None}``
    (``services.entry_refusal``, the rules ``tournament_register`` applies), so the page offers only what is taken."""
    entries = list(TournamentEntry.objects.filter(tournament=tournament).select_related("player"))
    # a person's player row is made on their first match or entry: judge a new one as it would be made
    person = (Player.objects.filter(user=user, kind=Player.Kind.HUMAN).first()
              or Player(user=user, kind=Player.Kind.HUMAN, name=user.get_username()))
    refusal = services.entry_refusal(tournament=tournament, player=person, entries=entries)
    choices = [{"value": "", "label": gettext("myself"), "refused": refusal.detail if refusal else None}]
    for bot in Player.objects.filter(user=user, kind=Player.Kind.BOT).select_related("bot").order_by("name"):
        refusal = services.entry_refusal(tournament=tournament, player=bot, entries=entries)
        choices.append({"value": str(bot.bot.pk), "label": gettext("my bot %(name)s") % {"name": bot.name},
                        "refused": refusal.detail if refusal else None})
    return choices


def tournament_detail(request, tournament_id: int):
    t = get_object_or_404(Tournament, pk=tournament_id)
    rounds = selectors.tournament_rounds(tournament=t)
    choices, is_organiser = [], False
    if request.user.is_authenticated and t.status == Tournament.Status.REGISTERING:
        choices = entry_choices(tournament=t, user=request.user)
    if request.user.is_authenticated:
        is_organiser = request.user.is_staff or request.user.pk == t.created_by_id
    houses = (list(Player.objects.filter(kind=Player.Kind.HOUSE, is_active=True).exclude(
        tournament_entries__tournament=t).order_by("name")) if is_organiser and t.status == Tournament.Status.REGISTERING
        and t.entrants != Tournament.Entrants.PEOPLE else [])
    return render(request, "tournaments/tournament_detail.html", {
        "t": t, "house_bots": houses, "standings": selectors.tournament_standings(tournament=t), "rounds": rounds,
        "choices": choices, "can_enter": any(c["refused"] is None for c in choices),
        "refusals": [c for c in choices if c["refused"]], "is_organiser": is_organiser,
        "bracket": rounds if t.format == Tournament.Format.KNOCKOUT else None,
        "lower_total_wins": Ruleset.from_dict(t.ruleset).lower_total_wins})


def tournament_round(request, tournament_id: int, number: int):
    t = get_object_or_404(Tournament, pk=tournament_id)
    found = selectors.tournament_rounds(tournament=t, number=number)
    if not found:
        raise Http404(f"{t.name} has no round {number}")
    return render(request, "tournaments/tournament_round.html", {"t": t, "round": found[0]})


def _refused(request, exc: TournamentError) -> None:
    messages.error(request, exc.detail[0].upper() + exc.detail[1:])


@post_only("tournament-detail", say="Use the Enter button to enter this tournament.")
@login_required
def tournament_enter_page(request, tournament_id: int):
    """The tournament page's Enter: the person themself, or (``bot_id``) one of their bots."""
    t = get_object_or_404(Tournament, pk=tournament_id)
    bot_id = request.POST.get("bot_id") or ""
    try:
        if bot_id and parse_id(bot_id) is None:
            raise TournamentError("not_found", "choose yourself or one of your bots", 404)
        player = services.access_entrant(user=request.user, bot_id=parse_id(bot_id) if bot_id else None)
        services.tournament_register(tournament=t, player=player)
        messages.success(request, f"{player.name} is entered.")
    except TournamentError as exc:
        _refused(request, exc)
    return redirect("tournament-detail", tournament_id=t.pk)


@post_only("tournament-detail", say="Use the Withdraw button to withdraw from this tournament.")
@login_required
def tournament_withdraw_page(request, tournament_id: int):
    """Withdraw yourself or your bot (``player_id``); the organiser may withdraw anyone."""
    t = get_object_or_404(Tournament, pk=tournament_id)
    player_id = request.POST.get("player_id") or ""
    player = Player.objects.filter(pk=pid).first() if (pid := parse_id(player_id)) is not None else None
    try:
        if player is None:
            raise TournamentError("not_registered", "choose an entrant to withdraw", 404)
        if player.user_id != request.user.pk:
            services.check_organiser(tournament=t, user=request.user)
        services.tournament_withdraw(tournament=t, player=player)
        messages.success(request, f"{player.name} is withdrawn.")
    except TournamentError as exc:
        _refused(request, exc)
    return redirect("tournament-detail", tournament_id=t.pk)


@post_only("tournament-detail", say="The organiser starts the tournament with its Start button.")
@login_required
def tournament_start_page(request, tournament_id: int):
    """The organiser's Start."""
    t = get_object_or_404(Tournament, pk=tournament_id)
    try:
        services.check_organiser(tournament=t, user=request.user)
        services.tournament_start(tournament=t)
        messages.success(request, "The tournament has started: round 1 is being played.")
    except TournamentError as exc:
        _refused(request, exc)
    return redirect("tournament-detail", tournament_id=t.pk)
