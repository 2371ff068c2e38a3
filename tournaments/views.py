"""Server-rendered ladder pages."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from games import match_pages
from games.browse import BadFilter
from eights_engine import PRESETS, Ruleset
from games.people.casual import casual_start
from games.people.guests import guest_deal, guest_opponents, session_guest
from sitekit.limits import LimitRefused
from games.services import casual_match_create, player_for_user
from games.views import RulesNotFound, rules_context, rules_index, watch_context
from games.models import Match, Player
from tournaments import selectors
from sitekit.pages import post_only
from tournaments.duplicate_services import duplicate_set_page
from tournaments.models import DuplicateSet, DuplicateSetMatch, Ladder, LadderEntry, Season, TournamentMatch
from tournaments.seasons import season_open, season_podium, seasons_of_ladder
from tournaments.ratings import rating_chart
from tournaments.services import LadderBusy, ladder_play_now


#: the guest table's preset when none is chosen (System B's web table); any preset that has a ladder may be chosen
GUEST_DEFAULT_PRESET = "web-table"
#: how many of the matches playing now the home page and a ladder page list (strongest first)
PLAYING_NOW_SHOWN = 10


def guest_presets() -> list[str]:
    """The presets a Deal on the home page offers: ``web-table`` first, then every active ladder's preset."""
    ladder_presets = sorted(set(Ladder.objects.filter(is_active=True).values_list("preset", flat=True)))
    return [GUEST_DEFAULT_PRESET, *(p for p in ladder_presets if p != GUEST_DEFAULT_PRESET)]


def home(request, *, status: int = 200, guest_error: str = "", chosen: dict | None = None):
    """The home page: "Play now as a guest" (a table choice and Deal), the ladders and the recent matches."""
    return render(request, "tournaments/home.html", {
        "ladders": selectors.ladder_list(),
        "recent": match_pages.match_list(status="finished")[:10],
        "guest_presets": guest_presets(), "guest_error": guest_error,
        "chosen": chosen or {"preset": GUEST_DEFAULT_PRESET, "seats": "2"},
        "your_tables": match_pages.running_tables(player=_person(request)),
        "playing": selectors.matches_playing_now(limit=PLAYING_NOW_SHOWN),
    }, status=status)


def _person(request) -> Player | None:
    """The player this browser plays as: the logged-in person's player, else the session's guest (or None)."""
    if request.user.is_authenticated:
        return Player.objects.filter(user=request.user, kind=Player.Kind.HUMAN).first()
    return session_guest(request)


@post_only("home", say="Choose a table and press Deal to play.")
def guest_deal_page(request):
    """The home page's Deal: a casual, unrated match against house bots at once, then its table. Without an account
    the browser plays as a guest (``games.people.guests.guest_deal``: its limits answer 429 with Retry-After and the home
    page saying which limit); a logged-in person plays as themselves, under the casual match limits
    (``games.people.casual``, answered the same way). A preset without a ladder (other than
    ``web-table``) or a seat count other than 2 or 3 answers 400. Nothing is created when refused."""
    preset = request.POST.get("preset") or GUEST_DEFAULT_PRESET
    seats_text = request.POST.get("seats") or "2"
    chosen = {"preset": preset, "seats": seats_text}
    if preset not in guest_presets():
        return home(request, status=400, chosen=None, guest_error=(
            f"There is no table with the preset {preset[:40]!r} here: choose one of {', '.join(guest_presets())}."))
    if seats_text not in ("2", "3"):
        return home(request, status=400, chosen=None,
                    guest_error="A guest table has 2 seats (one on one) or 3 seats: choose one of them.")
    try:
        if request.user.is_authenticated:
            opponents = [p.name for p in guest_opponents(int(seats_text) - 1)]
            match = casual_start(person=player_for_user(user=request.user), create=lambda: casual_match_create(
                user=request.user, opponents=opponents, preset=preset))
        else:
            match = guest_deal(request, preset=preset, seats=int(seats_text))
    except LimitRefused as exc:  # a guest limit, or the account's casual match limits (games.people.casual)
        response = home(request, status=429, guest_error=exc.detail, chosen=chosen)
        response["Retry-After"] = str(exc.retry_after)
        return response
    except ValueError as exc:
        message = str(exc)
        return home(request, status=400, chosen=chosen,
                    guest_error=f"{message[0].upper()}{message[1:]}" + ("" if message.endswith(".") else "."))
    return redirect("match-table", match_id=match.pk)


def ladder_detail(request, slug: str):
    ladder = get_object_or_404(Ladder, slug=slug)
    try:
        players = selectors.board_players(request.GET.get("players"))
    except BadFilter:  # a hand-typed address: the whole board, its filter links say what there is
        players = None
    board = selectors.ladder_leaderboard(ladder=ladder, players=players)
    scale_max = max([e.mu + 3 * e.sigma for e in board] + [50.0])
    scale_min = min([e.mu - 3 * e.sigma for e in board] + [0.0])
    span = scale_max - scale_min or 1
    for e in board:  # positions (percent) of the rating bar: mu +- 3 sigma, ordinal = left end
        e.bar_left = 100 * (e.mu - 3 * e.sigma - scale_min) / span
        e.bar_width = 100 * 6 * e.sigma / span
        e.bar_mu = 100 * (e.mu - scale_min) / span
    trust = selectors.ladder_trust(board=board)
    recent = match_pages.match_list().filter(ladder_match__ladder=ladder)[:15]
    match_with = "both"
    if request.user.is_authenticated:
        me = Player.objects.filter(user=request.user, kind=Player.Kind.HUMAN).first()
        match_with = me.match_with if me else "both"
    return render(request, "tournaments/ladder_detail.html", {"ladder": ladder, "board": board, "recent": recent,
                                                              "trust": trust, "provisional_matches": settings.LADDER_PROVISIONAL_MATCHES,
                                                              "match_with": match_with, "players": players,
                                                              "season": season_open(ladder=ladder),
                                                              "waiting": request.GET.get("waiting") == "1",
                                                              "playing": selectors.matches_playing_now(
                                                                  ladder=ladder, limit=PLAYING_NOW_SHOWN),
                                                              "duplicate_sets": selectors.duplicate_sets_recent(
                                                                  ladder=ladder) if ladder.duplicate else None})


def ladder_seasons(request, slug: str):
    """The ladder's seasons (``tournaments.seasons``), newest first: the open one with its end, each closed one
    with its podium. 404 for an unknown ladder; a ladder without seasons says so."""
    ladder = get_object_or_404(Ladder, slug=slug)
    return render(request, "tournaments/ladder_seasons.html", {
        "ladder": ladder, "seasons": seasons_of_ladder(ladder=ladder)})


def ladder_season(request, slug: str, number: int):
    """One season: while open, its dates and the live board's link; once closed, its podium and its leaderboard as
    it closed (``SeasonStanding``), with each entry's matches and wins of the season. 404 for an unknown season."""
    ladder = get_object_or_404(Ladder, slug=slug)
    season = get_object_or_404(Season, ladder=ladder, number=number)
    standings = list(season.standings.select_related("player__user"))
    return render(request, "tournaments/ladder_season.html", {
        "ladder": ladder, "season": season, "standings": standings,
        "podium": season_podium(standings)})


#: the entry page's rating chart shows this many most recent matches; the table below it is paged (50 a page)
CHART_MATCHES = 200


def ladder_entry(request, slug: str, entry_id: int):
    """An entry's page: its rating now (mu, sigma, the ordinal; provisional or its rank) and its rating history,
    as an inline SVG chart (mu +- 3 sigma and the ordinal after each match) and a table linking each match.
    404 for an entry of another ladder."""
    ladder = get_object_or_404(Ladder, slug=slug)
    entry = get_object_or_404(LadderEntry.objects.select_related("player__user"), pk=entry_id, ladder=ladder)
    board = selectors.ladder_leaderboard(ladder=ladder)
    placed = next(e for e in board if e.pk == entry.pk)
    history = selectors.entry_history(entry=entry, last=CHART_MATCHES)
    table = selectors.entry_history_page(entry=entry, page=request.GET.get("page"))
    points = []
    if history:
        first = history[0]
        points.append({"mu": first.mu_before, "sigma": first.sigma_before, "ordinal": first.ordinal_before})
        points += [{"mu": c.mu_after, "sigma": c.sigma_after, "ordinal": c.ordinal_after} for c in history]
    return render(request, "tournaments/ladder_entry.html", {
        "ladder": ladder, "entry": placed, "history": table, "chart": rating_chart(points),
        "chart_from": history[0] if history else None, "chart_matches": CHART_MATCHES,
        "board_size": len(board), "provisional_matches": settings.LADDER_PROVISIONAL_MATCHES})


def ladder_rules(request, slug: str):
    """How to play on this ladder: its ruleset (a preset with the ladder's own options) at its seats per match."""
    ladder = get_object_or_404(Ladder, slug=slug)
    try:
        ruleset = Ruleset.from_dict(ladder.ruleset)
        own = ladder.preset in PRESETS and ruleset != Ruleset.preset(ladder.preset)
        facts = {"name": ladder.name, "preset": ladder.preset, "seats": ladder.seats_per_match}
        intro = (_("The rules of the ladder %(name)s: preset %(preset)s with the ladder's own options, %(seats)s "
                   "seats per match.") if own else
                 _("The rules of the ladder %(name)s: preset %(preset)s, %(seats)s seats per match.")) % facts
        context = rules_context(
            ruleset=ruleset, seats=ladder.seats_per_match, preset=ladder.preset,
            title=_("How to play: %(preset)s") % {"preset": ladder.name}, intro=intro,
            back=(reverse("ladder-detail", args=[slug]), ladder.name))
    except (RulesNotFound, ValueError, TypeError) as exc:  # a ladder stored with rules the engine cannot seat
        return rules_index(request, _("The rules of the ladder %(name)s cannot be shown: %(why)s. The ladder's "
                                      "settings need fixing by an administrator.") % {"name": ladder.name, "why": exc},
                           404)
    return render(request, "games/rules.html", context)


def match_page_extras(match) -> dict:
    """Rating changes for the match page (registered into games.hooks.MATCH_PAGE_EXTRAS): ``rating_changes`` (per
    player id) and ``ladder_ratings`` (the same, best place first, for ``tournaments/_match_rating.html``); for a match of a duplicate
    set, the set (``duplicate_set``, its rating changes, stored against its first match) and the note that links it;
    ``tournament_match`` (with its round and tournament) for a tournament's match, else None."""
    changes = selectors.match_rating_changes(match=match)
    ladder_match = getattr(match, "ladder_match", None)
    extras = {"rating_changes": changes, "ladder": ladder_match.ladder if ladder_match else None}
    entry = DuplicateSetMatch.objects.filter(match_id=match.pk).select_related("duplicate_set__ladder").first()
    if entry is not None:  # -- duplicate play
        first = entry.duplicate_set.set_matches.order_by("rotation").values_list("match_id", flat=True).first()
        extras.update(duplicate_set=entry.duplicate_set, duplicate_rotation=entry.rotation,
                      match_page_include="tournaments/duplicate_match_note.html",
                      rating_changes=selectors.match_rating_changes(match=Match(pk=first)))
    extras["ladder_ratings"] = sorted(extras["rating_changes"].values(), key=lambda c: (c.place, c.entry.player.name))
    extras["tournament_match"] = (TournamentMatch.objects.filter(match_id=match.pk)
                                  .select_related("round__tournament").first())  # the tournament and round, if any
    return extras


def duplicate_set_detail(request, slug: str, set_id: int):
    """A duplicate set side by side: its matches, seat by seat and deal by deal the points each seating scored with
    the same cards, the swings, and the combined result. No deal code while a match of the set runs (they share
    their seeds); hands and records stay on the match pages, which publish them only when the whole set is over."""
    dup = get_object_or_404(DuplicateSet, pk=set_id, ladder__slug=slug)
    context = duplicate_set_page(duplicate_set=dup)
    return render(request, "tournaments/duplicate_set.html", {"set": dup, "ladder": dup.ladder, **context})


@post_only("ladder-detail", say="Press Play now to start a match on this ladder.")
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


def watch_featured(request):
    """The featured match (like lichess TV) at a stable address: the watch page of the strongest match being played
    (``selectors.featured_match``); when it ends the page comes back here and shows the next one. With no match
    being played it says so and looks again every few seconds."""
    match = selectors.featured_match()
    return render(request, "games/watch.html", watch_context(match=match, featured=True))
