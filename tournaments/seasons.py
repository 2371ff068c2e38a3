"""Seasons of a ladder (issue 27): a ladder with ``Ladder.season_length`` runs season after season.

- The first season opens at the ladder's first scheduling tick (``seasons_roll``, called by
  ``services.ladder_schedule_matches`` under the ladder's row lock: the beat task with a broker, the ladder loop
  without one), and each closes at its ``ends_at`` and the next opens by itself, starting where the last ended (or
  now, when the service was off for more than a season: no empty seasons are made up).
- A closing season keeps its final standings (``SeasonStanding``: the leaderboard as it closed, with each entry's
  matches and wins of the season) and softens every rating toward the start: ``mu`` stays, ``sigma`` moves
  ``SEASON_SOFTEN`` of the way back to the starting ``SIGMA_START`` (openskill's uncertainty widened, as its ``tau``
  does between matches, not wiped), the ordinal follows.
- A rated match belongs to the season open when it was created (``season_open``; ``LadderMatch.season``), even if it
  finishes after that season closed: its rating change then lands on the softened rating of the next.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Match, Notification, Seat
from games.notices import notify_player
from tournaments.models import Ladder, LadderEntry, Season, SeasonStanding

log = logging.getLogger(__name__)

#: A new entry's uncertainty (openskill Plackett-Luce's default sigma, ``LadderEntry.sigma``'s default).
SIGMA_START = 25.0 / 3
_MODEL = PlackettLuce()


def season_open(*, ladder: Ladder) -> Season | None:
    """The ladder's open season (None: the ladder has no seasons, or its first has not opened yet)."""
    if ladder.season_length is None:
        return None
    return Season.objects.filter(ladder=ladder, closed_at__isnull=True).order_by("-number").first()


def seasons_roll(*, ladder: Ladder, now: datetime | None = None) -> list[Season]:
    """Open the ladder's first season, or close the open one once its ``ends_at`` has come and open the next
    (``season_close``). Call it under the ladder's row lock (``ladder_schedule_matches`` does): two callers never
    close one season twice. Returns the seasons closed (at most one)."""
    if ladder.season_length is None:
        return []
    now = now or timezone.now()
    current = season_open(ladder=ladder)
    if current is None:
        last = Season.objects.filter(ladder=ladder).order_by("-number").first()
        Season.objects.create(ladder=ladder, number=last.number + 1 if last else 1, started_at=now,
                              ends_at=now + ladder.season_length)
        return []
    if current.ends_at > now:
        return []
    with transaction.atomic():
        season_close(season=current, now=now)
        start = current.ends_at if now < current.ends_at + ladder.season_length else now
        Season.objects.create(ladder=ladder, number=current.number + 1, started_at=start,
                              ends_at=start + ladder.season_length)
    log.info("ladder %s: season %s closed, season %s open", ladder.slug, current.number, current.number + 1)
    return [current]


def season_close(*, season: Season, now: datetime) -> None:
    """Keep ``season``'s final standings (``SeasonStanding``, in leaderboard order) and soften every entry's rating
    (module docstring); mark it closed at ``now``."""
    from tournaments.selectors import ladder_leaderboard

    board = ladder_leaderboard(ladder=season.ladder)
    played, wins = season_results(season=season)
    SeasonStanding.objects.bulk_create([
        SeasonStanding(season=season, player_id=e.player_id, position=i, rank=e.rank, mu=e.mu, sigma=e.sigma,
                       ordinal=e.ordinal, matches_played=e.matches_played, season_matches=played.get(e.player_id, 0),
                       season_wins=round(wins.get(e.player_id, 0.0), 3))
        for i, e in enumerate(board, start=1)])
    soften = settings.SEASON_SOFTEN
    softened = []
    for entry in LadderEntry.objects.filter(ladder=season.ladder, sigma__lt=SIGMA_START):
        entry.sigma += soften * (SIGMA_START - entry.sigma)
        entry.ordinal = _MODEL.rating(mu=entry.mu, sigma=entry.sigma).ordinal()
        softened.append(entry)
    LadderEntry.objects.bulk_update(softened, ["sigma", "ordinal"], batch_size=500)
    season.closed_at = now
    season.save(update_fields=["closed_at"])
    url = reverse("ladder-season", args=[season.ladder.slug, season.number])
    for entry in board:  # each person, and each bot's owner, is told where they finished
        notify_player(player=entry.player, kind=Notification.Kind.SEASON_END,
                      params={"season": season.number, "ladder": season.ladder.name, "player": entry.player.name,
                              "rank": entry.rank}, url=url, key=f"season:{season.pk}:{entry.player_id}")


def season_results(*, season: Season) -> tuple[dict[int, int], dict[int, float]]:
    """Per player id, the finished matches of ``season`` and the first places in them (a first place shared by k
    seats counts 1/k to each)."""
    rows = (Seat.objects.filter(match__ladder_match__season=season, match__status=Match.Status.FINISHED)
            .values_list("match_id", "player_id", "place"))
    by_match: dict[int, list[tuple[int, int | None]]] = {}
    for match_id, player_id, place in rows:
        by_match.setdefault(match_id, []).append((player_id, place))
    played: dict[int, int] = {}
    wins: dict[int, float] = {}
    for seats in by_match.values():
        best = min((place for _p, place in seats if place is not None), default=None)
        firsts = [p for p, place in seats if place == best and best is not None]
        for player_id, _place in seats:
            played[player_id] = played.get(player_id, 0) + 1
        for player_id in firsts:
            wins[player_id] = wins.get(player_id, 0.0) + 1 / len(firsts)
    return played, wins


#: The podium: the standings ranked this high or higher (ties share a rank, so it may hold more than three).
PODIUM_RANKS = 3


def season_podium(standings: list[SeasonStanding]) -> list[SeasonStanding]:
    """The podium rows of a closed season's ``standings`` (in order): ranked ``PODIUM_RANKS`` or better."""
    return [row for row in standings if row.rank is not None and row.rank <= PODIUM_RANKS]


def seasons_of_ladder(*, ladder: Ladder):
    """The ladder's seasons, newest first, each with ``podium`` (the first three ranked standings, closed seasons
    only; players loaded)."""
    seasons = list(Season.objects.filter(ladder=ladder).order_by("-number"))
    closed = [s.pk for s in seasons if s.closed_at is not None]
    podiums: dict[int, list[SeasonStanding]] = {}
    for row in (SeasonStanding.objects.filter(season_id__in=closed, rank__lte=PODIUM_RANKS)
                .select_related("player").order_by("season_id", "position")):
        podiums.setdefault(row.season_id, []).append(row)
    for season in seasons:
        season.podium = podiums.get(season.pk, [])
    return seasons


def player_season_history(*, player_id: int) -> list[SeasonStanding]:
    """A player's rows in every closed season's standings, newest first, with their season and ladder loaded."""
    return list(SeasonStanding.objects.filter(player_id=player_id).select_related("season__ladder")
                .order_by("-season__closed_at", "season__ladder__name"))
