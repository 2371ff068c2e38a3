"""A tournament's rounds: the next round made from the stored results (``advance_locked``, under the tournament's
row lock), and the results of ended pods (``pod_results``). Pairing and standings are pure (``tournaments.formats``,
``tournaments.knockout``); this module reads the stored results, asks the format for the next round and creates its
matches (``games.services.match_create``), which the normal match loop plays. A round is created in one transaction
(each pod's matches with one fresh match secret, shared by a duplicate pod's rotations) and the pairings come from
the stored results only, so a worker killed at any point loses nothing."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone

from eights_engine import Ruleset
from games.models import Match, Notification, Player
from games.notices import notify_player
from games.services import match_create, match_wake, new_match_secret
from tournaments import duplicate, formats, knockout
from tournaments.duplicate_services import set_match_of
from tournaments.errors import TournamentError
from tournaments.models import Tournament, TournamentEntry, TournamentMatch, TournamentRound


def advance_locked(tournament: Tournament) -> str:
    """``tournament_services.tournament_advance`` while holding the tournament's row lock (in a transaction)."""
    while True:
        last = tournament.round_set.order_by("-number").first()
        if last is not None:
            if Match.objects.filter(tournament_match__round=last, status=Match.Status.RUNNING).exists():
                return "waiting"
            if last.finished_at is None:
                last.finished_at = timezone.now()
                last.save(update_fields=["finished_at"])
        number = 1 if last is None else last.number + 1
        plan = _next_round(tournament, number, last)
        if plan is None:
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = timezone.now()
            tournament.save(update_fields=["status", "finished_at", "note"])
            return "finished"
        pods, byes, slots = plan
        rnd = TournamentRound.objects.create(tournament=tournament, number=number, byes=byes, slots=slots)
        ruleset = Ruleset.from_dict(tournament.ruleset)
        players = {p.pk: p for p in Player.objects.filter(pk__in={p for pod in pods for p in pod})}
        for i, pod in enumerate(pods):
            seatings = duplicate.rotations(pod) if tournament.duplicate else [tuple(pod)]
            # a duplicate pod's matches are dealt the same seeds: none publishes them while another one runs
            group = f"tournament-{tournament.pk}-{number}-{i}" if tournament.duplicate else ""
            match = None  # a duplicate pod's rotations play one after another (Match.after): never at once
            secret = new_match_secret()  # one per pod: a duplicate pod's rotations are dealt the same cards
            for game, seating in enumerate(seatings):
                match = match_create(players=[players[p] for p in seating], ruleset=ruleset, preset=tournament.preset,
                                     secret=secret,
                                     turn_timeout_ms=tournament.turn_timeout_ms,
                                     move_seconds=tournament.move_seconds, reveal_group=group, after=match)
                TournamentMatch.objects.create(round=rnd, match=match, pod=i, game=game)
                match_wake(match_id=match.pk)
        _tell_entrants(tournament, number, [players[p] for pod in pods for p in pod])
        if pods:
            return f"round {number}"
        # a round with nobody to play (everyone left, or only byes): go straight on


def _tell_entrants(tournament: Tournament, number: int, seated: list[Player]) -> None:
    """Each person playing round ``number`` (or the owner of a bot playing it) is told: the tournament has started
    (round 1), or their next round has."""
    kind = Notification.Kind.TOURNAMENT_START if number == 1 else Notification.Kind.ROUND_START
    url = reverse("tournament-round", args=[tournament.pk, number])
    for player in seated:
        notify_player(player=player, kind=kind, params={"name": tournament.name, "round": number,
                                                        "player": player.name},
                      url=url, key=f"tournament:{tournament.pk}:{number}:{player.pk}")


def _entrants(tournament: Tournament) -> list[formats.Entrant]:
    return [formats.Entrant(id=e.player_id, seed=e.seed or 0, owner=e.player.user_id, withdrawn=e.withdrawn)
            for e in TournamentEntry.objects.filter(tournament=tournament).select_related("player")
            .order_by("seed", "id")]


def _next_round(tournament: Tournament, number: int, last: TournamentRound | None):
    """``(pods, byes, slots)`` of round ``number``, or None when the tournament is over (a note says why when it
    ends early)."""
    entrants = _entrants(tournament)
    withdrawn = {e.id for e in entrants if e.withdrawn}
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        schedule = formats.round_robin_rounds([e.id for e in entrants], tournament.seats_per_match,
                                              tournament.matches_per_pairing)
        if number > len(schedule):
            return None
        pods = [pod for pod in schedule[number - 1] if withdrawn.isdisjoint(pod)]
        seated = {p for pod in pods for p in pod}
        return pods, [e.id for e in entrants if e.id not in seated and e.id not in withdrawn], []
    if tournament.format == Tournament.Format.SWISS:
        if number > (tournament.rounds or 0):
            return None
        byes: dict[int, int] = {}
        for rnd in tournament.round_set.all():
            for b in rnd.byes:
                byes[b] = byes.get(b, 0) + 1
        try:
            pairing = formats.swiss_pairing(entrants, pod_results(tournament), byes, tournament.seats_per_match)
        except formats.PairingError as exc:
            if number == 1:
                raise TournamentError("same_owner", f"round 1 cannot be paired: {exc}; withdraw one of the "
                                      "entrants who share an owner") from None
            tournament.note = f"ended after round {number - 1}: {exc}"[:200]
            return None
        return pairing.pods, pairing.byes, []
    seed = {e.id: e.seed for e in entrants}
    if last is None:
        slots = knockout.knockout_first_round([e.id for e in entrants])
    else:
        if len(last.slots) <= 1:
            return None
        results = {r.players: r for r in pod_results(tournament, round_number=last.number)}
        slots = knockout.knockout_next_round(last.slots, results, seed, withdrawn)
        if len(slots) == 1:
            return None
    pods, byes = knockout.knockout_pods(slots, withdrawn)
    return pods, byes, slots


def pod_results(tournament: Tournament, round_number: int | None = None) -> list[formats.Result]:
    """The result of every ended pod, players in the pod's seat order (its first rotation's). A duplicate pod's
    rotations are combined by the one rule of duplicate play (``duplicate.combined_places``: swings over the common
    deals, as a duplicate ladder set; totals are card points over those deals); a pod is ended when all of its
    rotations are. An aborted match (our failure, never a player's) counts as a tie of all its seats; in a duplicate
    pod it brings only the deals it finished (fewer common deals, or none: a tie)."""
    rows = (TournamentMatch.objects.filter(round__tournament=tournament)
            .exclude(match__status=Match.Status.RUNNING).select_related("round", "match")
            .prefetch_related("match__seats", "match__deals"))
    if round_number is not None:
        rows = rows.filter(round__number=round_number)
    by_pod: dict[tuple[int, int], list[TournamentMatch]] = {}
    for tm in rows.order_by("round__number", "pod", "game"):
        by_pod.setdefault((tm.round.number, tm.pod), []).append(tm)
    ruleset = Ruleset.from_dict(tournament.ruleset)
    out = []
    for (number, _), pod in by_pod.items():
        if tournament.duplicate:
            if len(pod) == tournament.seats_per_match:  # else a rotation is still to be played
                out.append(_duplicate_pod_result([tm.match for tm in pod], ruleset, number))
            continue
        match = pod[0].match
        seats = sorted(match.seats.all(), key=lambda s: s.index)
        aborted = match.status == Match.Status.ABORTED
        out.append(formats.Result(players=tuple(s.player_id for s in seats),
                                  places=tuple(1 if aborted else (s.place or 1) for s in seats),
                                  totals=tuple(s.total for s in seats), round=number))
    return out


def _duplicate_pod_result(matches: list[Match], ruleset: Ruleset, number: int) -> formats.Result:
    scored = [set_match_of(m) for m in matches]
    players = scored[0].seating
    lower = ruleset.lower_total_wins
    places = duplicate.combined_places(scored, lower_is_better=lower, partnership=ruleset.partnership)
    totals = duplicate.common_deal_points(scored)
    return formats.Result(players=players, places=tuple(places[p] for p in players),
                          totals=tuple(totals[p] for p in players), round=number)


def tournament_match_count(*, tournament: Tournament) -> tuple[int, int]:
    """(ended, all) matches created so far."""
    rows = TournamentMatch.objects.filter(round__tournament=tournament)
    return rows.exclude(match__status=Match.Status.RUNNING).count(), rows.count()
