"""Tournament reads for pages and the API: the list, live standings, rounds with their matches, the bracket.

Nothing here shows what a running match hides: a running match is listed with its players and links only (its
totals, places and seeds appear once it has ended), and the tournament's own seed is never read."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Q, QuerySet

from eights_engine import Ruleset
from games.models import Match, Player
from tournaments import formats, knockout
from tournaments.models import Tournament, TournamentEntry, TournamentMatch
from tournaments.tournament_rounds import pod_results


def tournament_list() -> QuerySet[Tournament]:
    """Tournaments, newest first, with ``entry_count`` (not withdrawn)."""
    return Tournament.objects.annotate(entry_count=Count("entries", filter=Q(entries__withdrawn=False)))


@dataclass
class StandingRow(formats.Standing):
    """A row of the standings as the pages and the API show it: ``formats.Standing`` (``seed`` here is the entry's
    seed, None before the start) with the entrant's player, their rating at entry and, in a knockout, the round
    they went out in."""
    player: Player | None = None
    rating: float = 0.0
    out_in_round: int | None = None


def tournament_standings(*, tournament: Tournament) -> list[StandingRow]:
    """Live standings from the ended pods, best first. Swiss: points, Buchholz, head-to-head, card points; round
    robin: points, head-to-head, card points; knockout: the champion, then by the round reached (later better),
    points within. Before the start: the entrants in registration order, all level."""
    entries = list(TournamentEntry.objects.filter(tournament=tournament).select_related("player__user")
                   .order_by("seed", "registered_at", "id"))
    by_player = {e.player_id: e for e in entries}
    entrants = [formats.Entrant(id=e.player_id, seed=e.seed or i, owner=e.player.user_id, withdrawn=e.withdrawn)
                for i, e in enumerate(entries, start=1)]
    byes: dict[int, int] = {}
    rounds = list(tournament.round_set.order_by("number"))
    for rnd in rounds:
        if tournament.format != Tournament.Format.KNOCKOUT:
            for b in rnd.byes:
                byes[b] = byes.get(b, 0) + 1
    results = pod_results(tournament)
    lower = Ruleset.from_dict(tournament.ruleset).lower_total_wins
    table = formats.standings(entrants, results, byes, lower_totals_better=lower,
                              buchholz=tournament.format == Tournament.Format.SWISS)
    rows = {s.id: StandingRow(**{**vars(s), "seed": by_player[s.id].seed}, player=by_player[s.id].player,
                              rating=by_player[s.id].rating)
            for s in table}
    if tournament.format == Tournament.Format.KNOCKOUT and rounds:
        slot_rounds = [r.slots for r in rounds]
        champion = None
        if tournament.status == Tournament.Status.FINISHED:
            champion = _knockout_champion(tournament, rounds, entrants)
        order = knockout.knockout_standings(entrants, slot_rounds, champion)
        out = []
        for player_id, rank in order:
            row = rows[player_id]
            row.rank = rank
            out.append(row)
        return out
    return [rows[s.id] for s in table]


def _knockout_champion(tournament, rounds, entrants) -> int | None:
    last = rounds[-1]
    if len(last.slots) == 1:
        return last.slots[0]
    withdrawn = {e.id for e in entrants if e.withdrawn}
    seed = {e.id: e.seed for e in entrants}
    results = {r.players: r for r in pod_results(tournament, round_number=last.number)}
    try:
        final = knockout.knockout_next_round(last.slots, results, seed, withdrawn)
    except ValueError:
        return None
    return final[0] if len(final) == 1 else None


@dataclass
class MatchRow:
    match: Match
    pod: int
    game: int
    seats: list = field(default_factory=list)  # [(player, place or None, total or None)] in seat order

    @property
    def is_finished(self) -> bool:
        return self.match.status != Match.Status.RUNNING


@dataclass
class RoundView:
    number: int
    finished: bool
    byes: list[Player]
    matches: list[MatchRow]
    slots: list[Player | None]


def tournament_rounds(*, tournament: Tournament, number: int | None = None) -> list[RoundView]:
    """Every round (or only round ``number``: an empty list when there is none) with its matches (players in seat
    order; places and totals only once a match has ended) and byes; a knockout round with its bracket slots. Three
    queries; the matches are grouped by round in one pass (time linear in rounds + matches)."""
    rounds = tournament.round_set.order_by("number")
    matches = TournamentMatch.objects.filter(round__tournament=tournament)
    if number is not None:
        if not 0 < number < 2 ** 15:  # a round number is a small integer column
            return []
        rounds, matches = rounds.filter(number=number), matches.filter(round__number=number)
    rounds = list(rounds)
    by_round: dict[int, list[TournamentMatch]] = defaultdict(list)
    for tm in (matches.select_related("match").prefetch_related("match__seats__player__user")
               .order_by("round__number", "pod", "game")):
        by_round[tm.round_id].append(tm)
    ids = {b for r in rounds for b in r.byes} | {s for r in rounds for s in r.slots if s is not None}
    players = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
    out = []
    for rnd in rounds:
        rows = []
        for tm in by_round[rnd.pk]:
            ended = tm.match.status != Match.Status.RUNNING
            seats = [(s.player, s.place if ended else None, s.total if ended else None)
                     for s in sorted(tm.match.seats.all(), key=lambda s: s.index)]
            rows.append(MatchRow(match=tm.match, pod=tm.pod, game=tm.game, seats=seats))
        out.append(RoundView(number=rnd.number, finished=rnd.finished_at is not None,
                             byes=[players[b] for b in rnd.byes if b in players], matches=rows,
                             slots=[players.get(s) if s is not None else None for s in rnd.slots]))
    return out


def tournament_entries(*, tournament: Tournament) -> list[TournamentEntry]:
    return list(TournamentEntry.objects.filter(tournament=tournament).select_related("player__user")
                .order_by("seed", "registered_at", "id"))
