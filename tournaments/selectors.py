"""Ladder reads for pages and commands."""

from __future__ import annotations


from django.conf import settings
from django.core.cache import cache
from django.utils.translation import ngettext
from django.db.models import Count, FloatField, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from games.browse import BadFilter
from sitekit.ids import parse_id
from games.models import Match, Player, Seat
from tournaments.models import (DuplicateSet, Ladder, LadderEntry, LadderMatch, RatingChange, Tournament,
                                TournamentMatch)
from tournaments.ratings import order_confidence, trust_statement


def _count(queryset: QuerySet) -> Coalesce:
    """``COUNT(*)`` of ``queryset`` (rows of one ladder: filtered on ``OuterRef("pk")``) as a subquery."""
    return Coalesce(Subquery(queryset.order_by().values("ladder").annotate(n=Count("*")).values("n")), 0)


def ladder_list() -> QuerySet[Ladder]:
    """Ladders with their entry count and finished / running match counts (one query). Each count is its own
    subquery: three COUNT(DISTINCT) over one join multiplied the entries by the matches (8 s for two ladders of
    200 entries and 55,000 matches each; BENCHMARKS.md, "Playing now")."""
    matches = LadderMatch.objects.filter(ladder=OuterRef("pk"))
    return Ladder.objects.annotate(
        entry_count=_count(LadderEntry.objects.filter(ladder=OuterRef("pk"), is_active=True)),
        finished_count=_count(matches.filter(match__status=Match.Status.FINISHED)),
        running_count=_count(matches.filter(match__status=Match.Status.RUNNING)),
    )


#: The leaderboard's ``players`` filter (issue 27): who is listed. People and bots share one ladder and one rating;
#: a filtered board lists some of them with the same ratings, ranked among themselves.
BOARD_PLAYERS = {"people": (Player.Kind.HUMAN,), "bots": (Player.Kind.BOT, Player.Kind.HOUSE)}


def board_players(value: str | None) -> str | None:
    """The ``players`` filter from a query string: None (everyone) for a missing or empty value or ``all``, else
    ``"people"`` or ``"bots"``. ``BadFilter`` (400) for anything else, naming the values that would do."""
    value = (value or "").strip().lower()
    if value in ("", "all"):
        return None
    if value not in BOARD_PLAYERS:
        raise BadFilter("players", f"{value[:40]!r} is not a filter of the leaderboard: use people (people only), "
                        "bots (users' and house bots only) or all")
    return value


def ladder_leaderboard(*, ladder: Ladder, players: str | None = None) -> list[LadderEntry]:
    """The ladder's entries in leaderboard order: established ones (at least ``LADDER_PROVISIONAL_MATCHES`` rated
    matches) by the conservative ordinal (mu - 3 sigma), then provisional ones, also by ordinal. Each entry gets
    ``provisional`` (bool) and ``rank`` (1.. among the established, ties share a rank; None when provisional: a
    lucky start never ranks a newcomer above a settled rating). ``players`` (``board_players``: "people", "bots" or
    None for everyone) lists only those, ranked among themselves with their ratings unchanged."""
    needed = settings.LADDER_PROVISIONAL_MATCHES
    entries = LadderEntry.objects.filter(ladder=ladder, player__hidden_from_boards=False)  # fair play: hidden
    if players is not None:
        entries = entries.filter(player__kind__in=BOARD_PLAYERS[players])
    entries = list(entries.select_related("player__user").order_by("-ordinal", "player__name"))
    for entry in entries:
        entry.provisional = entry.matches_played < needed
    entries.sort(key=lambda e: e.provisional)  # stable: each group stays in ordinal order
    rank = 0
    previous = None
    for i, entry in enumerate(entries, start=1):
        if entry.provisional:
            entry.rank = None
            continue
        if previous is None or round(entry.ordinal, 6) != round(previous, 6):
            rank = i
        entry.rank = rank
        previous = entry.ordinal
    return entries


def ladder_trust(*, board: list[LadderEntry]) -> dict:
    """How sure the leaderboard's order is (``tournaments.ratings``): ``pairs``, a sentence for each two adjacent
    established entries ("A is ahead of B with 97 % confidence", "B and C cannot yet be told apart (61 %)"), and
    ``provisional``, one sentence naming the provisional entries (or ""). ``board``: ``ladder_leaderboard``'s."""
    ranked = [e for e in board if not e.provisional]
    pairs = [trust_statement(a.player.name, b.player.name, order_confidence(a.mu, a.sigma, b.mu, b.sigma))
             for a, b in zip(ranked, ranked[1:])]
    newcomers = [e for e in board if e.provisional]
    provisional = ""
    if newcomers:
        needed = settings.LADDER_PROVISIONAL_MATCHES
        provisional = ngettext("Provisional, listed below and not ranked until they have played %(needed)s match: "
                               "%(names)s.", "Provisional, listed below and not ranked until they have played "
                               "%(needed)s matches: %(names)s.", needed) % {
            "needed": needed, "names": ", ".join(e.player.name for e in newcomers)}
        if not ranked:  # a new ladder's board: say when it will have a ranking
            closest = max(newcomers, key=lambda e: e.matches_played)
            more = needed - closest.matches_played
            provisional += " " + ngettext("Nobody is ranked yet: the closest, %(name)s, needs %(more)s more match; the "
                                          "ladder plays on by itself.", "Nobody is ranked yet: the closest, %(name)s, "
                                          "needs %(more)s more matches; the ladder plays on by itself.", more) % {
                "name": closest.player.name, "more": more}
    return {"pairs": pairs, "provisional": provisional}


def entry_history(*, entry: LadderEntry, last: int | None = None) -> list[RatingChange]:
    """``entry``'s rating changes, oldest first (the entry page's chart); only the ``last`` most recent ones when
    given (a long-lived entry has thousands)."""
    changes = RatingChange.objects.filter(entry=entry).order_by("-created_at", "-id")
    return list(reversed(changes[:last] if last is not None else changes))


def entry_history_page(*, entry: LadderEntry, page: str | int | None, per_page: int = 50):
    """One page (Django ``Page``, newest first, ``per_page`` rows) of ``entry``'s rating changes for the entry page's
    table; a page number that is not one (text, past the end) gives the nearest page (``Paginator.get_page``)."""
    from django.core.paginator import Paginator

    return Paginator(RatingChange.objects.filter(entry=entry).order_by("-created_at", "-id"), per_page).get_page(page)


def match_rating_changes(*, match: Match) -> dict[int, RatingChange]:
    """Rating change per player id for a ladder match (empty when unrated)."""
    return {c.entry.player_id: c for c in RatingChange.objects.filter(match=match).select_related("entry__player")}


def ladder_matches_q(slug: str) -> Q:
    """The match list's ``ladder`` filter (registered into ``games.hooks.MATCH_GROUPS``): a ``Q`` over ``Match``
    selecting the matches of the ladder with this slug. Raises ``BadFilter`` naming the ladders when there is none."""
    ladder_id = Ladder.objects.filter(slug=slug).values_list("pk", flat=True).first()
    if ladder_id is None:
        slugs = list(Ladder.objects.order_by("slug").values_list("slug", flat=True)[:20])
        raise BadFilter("ladder", f"there is no ladder {slug[:80]!r}: give a ladder's slug "
                                  f"({', '.join(slugs) if slugs else 'there are no ladders yet'})")
    return Q(id__in=LadderMatch.objects.filter(ladder_id=ladder_id).values("match_id"))  # index (ladder, match)


def tournament_matches_q(slug: str) -> Q:
    """The match list's ``tournament`` filter (registered into ``games.hooks.MATCH_GROUPS``): a ``Q`` over ``Match``
    selecting every match of the tournament with this slug (or id). Raises ``BadFilter`` naming some tournaments when
    there is none."""
    query = Q(slug=slug) | Q(pk=parse_id(slug))
    tournament_id = Tournament.objects.filter(query).values_list("pk", flat=True).first()
    if tournament_id is None:
        slugs = list(Tournament.objects.order_by("-id").values_list("slug", flat=True)[:20])
        raise BadFilter("tournament", f"there is no tournament {slug[:80]!r}: give a tournament's slug or id "
                                      f"({', '.join(slugs) if slugs else 'there are no tournaments yet'})")
    return Q(id__in=TournamentMatch.objects.filter(round__tournament_id=tournament_id).values("match_id"))


def duplicate_sets_recent(*, ladder: Ladder, last: int = 10) -> list[DuplicateSet]:
    """The ladder's last ``last`` duplicate sets, newest first, with their matches, seats and players loaded."""
    return list(DuplicateSet.objects.filter(ladder=ladder).order_by("-id")
                .prefetch_related("set_matches__match__seats__player")[:last])


# -- playing now (watch any running match; the featured match follows the strongest one)

def _seat_rating() -> Coalesce:
    """A seat's rating as an SQL expression over ``Seat`` rows: the player's ordinal (mu - 3 sigma, the leaderboard's
    rating) on the match's ladder; for a match of no ladder (casual, tournament) the player's best ordinal on any
    ladder; 0 for a player on no ladder."""
    on_ladder = LadderEntry.objects.filter(player=OuterRef("player"),
                                           ladder=OuterRef("match__ladder_match__ladder")).values("ordinal")[:1]
    best = LadderEntry.objects.filter(player=OuterRef("player")).order_by("-ordinal").values("ordinal")[:1]
    return Coalesce(Subquery(on_ladder), Subquery(best), Value(0.0), output_field=FloatField())


def matches_playing_now(*, ladder: Ladder | None = None, limit: int = 8, fresh: bool = False) -> list[Match]:
    """The running matches being played now (``ladder``'s only, when given), strongest first, at most ``limit``:
    each with ``strength`` (the summed ratings of its seats, ``_seat_rating``: points of ordinal) and its seats with
    their players loaded (``match.seats.all()`` in index order). Two queries whatever the number of matches.

    Strongest first, then the longest-running (lowest id) first, so the order is stable between two reads. A match
    of a duplicate set (``Match.reveal_group``; while it runs its set is not public) is left out: its plies would
    tell the cards of the set's other matches, so it is watched only as a replay once the whole set is over
    (``games.live.check_watchable``). So is a match waiting for its predecessor (``Match.after`` still running):
    it is not being played.

    The answer is kept in the cache for ``PLAYING_NOW_CACHE_SECONDS`` (0: never; ``fresh``: read now): the strength
    is summed over every running match (BENCHMARKS.md, "Playing now": about 50 µs a running match on PostgreSQL),
    and a list a few seconds old is good enough for a page's "Playing now" (a match that ended meanwhile opens its
    replay from its watch link). An empty list is not kept: with nothing playing every read looks again (2 queries),
    so a newly started match is listed at once."""
    seconds = settings.PLAYING_NOW_CACHE_SECONDS
    if seconds and not fresh:
        key = f"playing-now:{ladder.pk if ladder is not None else 'all'}:{limit}"
        found = cache.get(key)
        if found is None:
            found = _matches_playing_now(ladder=ladder, limit=limit)
            if found:  # nothing playing is never kept: the first match started shows at once (a fresh demo)
                cache.set(key, found, seconds)
        return found
    return _matches_playing_now(ladder=ladder, limit=limit)


def _matches_playing_now(*, ladder: Ladder | None, limit: int) -> list[Match]:
    strength = (Seat.objects.filter(match=OuterRef("pk")).annotate(rating=_seat_rating()).order_by()
                .values("match").annotate(total=Sum("rating")).values("total"))
    queryset = (Match.objects.filter(status=Match.Status.RUNNING, reveal_group="")
                .exclude(after__status=Match.Status.RUNNING)
                .annotate(strength=Coalesce(Subquery(strength, output_field=FloatField()), Value(0.0)))
                .order_by("-strength", "id")
                .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("index"))))
    if ladder is not None:
        queryset = queryset.filter(ladder_match__ladder=ladder)
    return list(queryset[:limit])


def featured_match() -> Match | None:
    """The featured match (like lichess TV): the strongest match playing now (``matches_playing_now``'s first still
    running: the list may be a few seconds old), or None when no match is being played."""
    candidates = matches_playing_now(limit=5)  # the cached list: the first of them still running, else read now
    running = set(Match.objects.filter(pk__in=[m.pk for m in candidates], status=Match.Status.RUNNING)
                  .values_list("pk", flat=True)) if candidates else set()
    still = [m for m in candidates if m.pk in running]
    if not still and candidates:
        still = matches_playing_now(limit=1, fresh=True)
    return still[0] if still else None
