"""Tournament writes: create, register, withdraw, start, and advance round by round (``tournament_advance``).

The next round is made by ``tournaments.tournament_rounds`` from the stored results; pairing and standings are pure
(``tournaments.formats``, ``tournaments.knockout``).

Advancing is idempotent and safe to call any number of times from anywhere (the match-finished signal, the beat
task, a retried task, ``tournament_run``): under the tournament's row lock it creates the next round only when
every match of the last one has ended, and the unique (tournament, number) round and (round, pod, game) match
constraints are the last guard. A round is created in one transaction (each pod's matches with one fresh match
secret, shared by a duplicate pod's rotations) and the pairings come from the stored results only, so a worker
killed at any point loses nothing and the tournament ends with the same result.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from sitekit.dispatch import send_task
from eights_engine import Ruleset
from sitekit.ids import parse_id
from games.models import Match, Player
from games.services import player_for_user
from tournaments import formats, knockout
from tournaments.errors import TournamentError
from tournaments.tournament_rounds import advance_locked
from tournaments.models import LadderEntry, Tournament, TournamentEntry, TournamentMatch

log = logging.getLogger(__name__)

#: The most matches a tournament may create (round robin of many entrants with pods, duplicate rotations).
MAX_MATCHES = 2000
MAX_SWISS_ROUNDS = 30


def _bad(detail: str) -> TournamentError:
    return TournamentError("bad_settings", detail, 400)


@dataclass(frozen=True)
class Plan:
    """What ``tournament_create`` checked: the ruleset and the numbers derived from it."""

    ruleset: Ruleset
    target: int


def tournament_create(*, name: str, format: str, preset: str = "pagat", seats_per_match: int = 2,
                      rounds: int | None = None, matches_per_pairing: int = 1, target: int | None = None,
                      duplicate: bool = False, entrants: str = "both", turn_timeout_ms: int = 1000,
                      move_seconds: int = 60, max_entrants: int = 64, starts_at=None, created_by=None,
                      slug: str | None = None, overrides: dict | None = None) -> Tournament:
    """A tournament open for registration. ``TournamentError`` (400 ``bad_settings``) names the field and the allowed
    values for an unknown format or preset, a seat count the preset cannot seat (knockout: 2 seats only), Swiss
    without 1..30 rounds, k outside 1..10, a bad target, clock or entrants choice, a duplicate tournament for people
    only; 409 ``slug_taken``."""
    if format not in Tournament.Format.values:
        raise _bad(f"format {format!r:.30} is unknown: choose one of {', '.join(Tournament.Format.values)}")
    if entrants not in Tournament.Entrants.values:
        raise _bad(f"entrants {entrants!r:.30} is unknown: choose one of {', '.join(Tournament.Entrants.values)}")
    try:
        base = Ruleset.preset(preset, **(overrides or {}))
        ruleset = Ruleset.preset(preset, **(overrides or {}), **({"target": target} if target is not None else {}))
    except (ValueError, TypeError) as exc:
        raise _bad(f"the rules are not valid: {exc}") from None
    if not (isinstance(seats_per_match, int) and base.seats_min <= seats_per_match <= base.seats_max):
        raise _bad(f"preset {preset!r} seats {base.seats_min} to {base.seats_max} players per match, not "
                   f"{seats_per_match}: choose seats_per_match in that range")
    if format == Tournament.Format.KNOCKOUT and seats_per_match != 2:
        raise _bad(f"a knockout plays 2 seats per match, not {seats_per_match}: use a Swiss or round robin "
                   "tournament for pods of 3 to 8")
    if format == Tournament.Format.SWISS:
        rounds = 3 if rounds is None else rounds
        if not (isinstance(rounds, int) and 1 <= rounds <= MAX_SWISS_ROUNDS):
            raise _bad(f"a Swiss tournament plays 1 to {MAX_SWISS_ROUNDS} rounds, not {rounds}")
    elif rounds is not None:
        raise _bad(f"rounds is set by the entrants in a {format.replace('_', ' ')} tournament: leave it out "
                   "(it is for Swiss)")
    if duplicate and entrants == Tournament.Entrants.PEOPLE:
        raise _bad("a duplicate tournament is for bots only (a person would remember the cards of the first rotation "
                   "in the next): choose entrants bots or both, or leave duplicate off")
    if not 1 <= matches_per_pairing <= 10:
        raise _bad(f"matches_per_pairing (k) is 1 to 10, not {matches_per_pairing}")
    if matches_per_pairing != 1 and format != Tournament.Format.ROUND_ROBIN:
        raise _bad("matches_per_pairing (k) is for round robin only: leave it at 1")
    if not 50 <= turn_timeout_ms <= 60000:
        raise _bad(f"turn_timeout_ms is 50 to 60000 ms, not {turn_timeout_ms}")
    if not 5 <= move_seconds <= 86400:
        raise _bad(f"move_seconds is 5 to 86400 s, not {move_seconds}")
    if not 2 <= max_entrants <= 256:
        raise _bad(f"max_entrants is 2 to 256, not {max_entrants}")
    if not (isinstance(name, str) and name.strip()):
        raise _bad("name the tournament (1 to 80 characters)")
    explicit = slug is not None
    slug = slugify(slug or name)[:70] or "tournament"  # a name of symbols or other scripts: a plain slug
    if Tournament.objects.filter(slug=slug).exists():
        if explicit:
            raise TournamentError("slug_taken", f"a tournament with the slug {slug!r} exists: choose another")
        n = 2
        while Tournament.objects.filter(slug=f"{slug}-{n}").exists():
            n += 1
        slug = f"{slug}-{n}"
    return Tournament.objects.create(
        name=name, slug=slug, format=format, duplicate=bool(duplicate), preset=preset, ruleset=ruleset.to_dict(),
        seats_per_match=seats_per_match, rounds=rounds, matches_per_pairing=matches_per_pairing,
        target=ruleset.target_for(seats_per_match), turn_timeout_ms=turn_timeout_ms, move_seconds=move_seconds,
        entrants=entrants, max_entrants=max_entrants, starts_at=starts_at, created_by=created_by,
        seed=secrets.randbits(62))


def access_tournament(*, key: str | int) -> Tournament:
    """The tournament with id or slug ``key``; ``TournamentError`` 404 ``not_found``."""
    found = None
    if (tournament_id := parse_id(key)) is not None:
        found = Tournament.objects.filter(pk=tournament_id).first()
    if found is None:
        found = Tournament.objects.filter(slug=str(key)[:80]).first()
    if found is None:
        raise TournamentError("not_found", f"no tournament {str(key)[:40]!r}: the list is at /api/tournaments/", 404)
    return found


def access_entrant(*, user, bot_id: int | None = None) -> Player:
    """The player ``user`` may enter: themself, or (``bot_id``, the id of ``/api/bots/<id>/``) one of their own bots.
    ``TournamentError`` 404 when the bot is not theirs (another owner's bot looks missing)."""
    if bot_id is None:
        return player_for_user(user=user)
    player = Player.objects.filter(kind=Player.Kind.BOT, user=user, bot__pk=bot_id).first()
    if player is None:
        raise TournamentError("not_found", f"you have no bot {bot_id}: your bots are listed at /api/bots/", 404)
    return player


def entry_refusal(*, tournament: Tournament, player: Player, entries: list[TournamentEntry]) -> TournamentError | None:
    """Why ``player`` may not enter ``tournament`` now (a registering one), as the ``TournamentError`` that
    ``tournament_register`` raises, or None when they may: the one place the admission rules are written, so the
    tournament page offers only the choices that will be taken. ``entries``: the tournament's entries (withdrawn ones
    too) with their players."""
    if any(e.player_id == player.pk for e in entries):
        return TournamentError("already_registered", f"{player.name} is registered already: nothing to do "
                               "(withdraw with DELETE on the entry)")
    if player.is_guest or player.kind == Player.Kind.HUMAN and player.user_id is None:
        return TournamentError("not_admitted", "guests cannot enter tournaments: sign up first")
    is_person = player.kind == Player.Kind.HUMAN
    if tournament.entrants == Tournament.Entrants.BOTS and is_person:
        return TournamentError("not_admitted", "this tournament is for bots only: enter one of your bots")
    if tournament.duplicate and is_person:
        return TournamentError("not_admitted", "a duplicate tournament deals every pod's cards again in each "
                               "rotation, and a person would remember them: it is for bots only; enter one of "
                               "your bots, or a tournament without duplicate play")
    if tournament.entrants == Tournament.Entrants.PEOPLE and not is_person:
        return TournamentError("not_admitted", "this tournament is for people only: enter yourself")
    if player.banned_at is not None:
        return TournamentError("not_admitted", f"{player.name} is banned from rated play and tournaments after a "
                               "fair-play review")
    if player.kind == Player.Kind.BOT and not player.is_active:
        bot = getattr(player, "bot", None)
        why = (f"it is suspended ({bot.suspended_reason})" if bot is not None and bot.suspended_reason
               else "it is disabled or not verified")
        return TournamentError("suspended", f"the bot {player.name} cannot play: {why}; a bot enters once it is "
                               "enabled, verified and not suspended (see /api/bots/<id>/)")
    if is_person and player.match_with == "people" and tournament.entrants != Tournament.Entrants.PEOPLE:
        return TournamentError("match_with", "you chose to meet people only, and this tournament admits bots: "
                               "enter a people-only tournament, or choose to meet bots too (match_with both)")
    entries = [e for e in entries if not e.withdrawn]
    if len(entries) >= tournament.max_entrants:
        return TournamentError("full", f"the tournament is full ({tournament.max_entrants} entrants)")
    same = [e.player.name for e in entries if player.user_id is not None and e.player.user_id == player.user_id]
    if same and tournament.format != Tournament.Format.SWISS:
        return TournamentError("same_owner", f"{player.name} has the owner of {same[0]}, and in a "
                               f"{tournament.get_format_display()} they would have to meet in one match (one "
                               "owner's players never share a match): enter one of them, or a Swiss "
                               "tournament, where they are kept apart")
    return None


def tournament_register(*, tournament: Tournament, player: Player) -> TournamentEntry:
    """Enter ``player`` before the start. ``TournamentError`` 409: ``registration_closed`` (started or finished),
    ``already_registered``, ``not_admitted`` (bots-only / people-only, a guest, a person in a duplicate tournament), ``suspended`` (a bot that is
    suspended, disabled or unverified), ``match_with`` (a person who chose to meet people only, in a tournament
    open to bots), ``same_owner`` (a second entrant of one owner where they would have to meet: round robin and
    knockout; Swiss keeps them apart), ``full``."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if tournament.status != Tournament.Status.REGISTERING:
            raise TournamentError("registration_closed", f"the tournament {tournament.slug!r} is "
                                  f"{tournament.status}: entries are taken only before the start")
        entries = list(TournamentEntry.objects.filter(tournament=tournament).select_related("player"))
        refusal = entry_refusal(tournament=tournament, player=player, entries=entries)
        if refusal is not None:
            raise refusal
        entry, _ = TournamentEntry.objects.update_or_create(tournament=tournament, player=player,
                                                            defaults={"withdrawn": False})
        return entry


def tournament_withdraw(*, tournament: Tournament, player: Player) -> None:
    """Take ``player`` out: before the start the entry goes; while running it is marked withdrawn (paired no more;
    a running match plays on, and a knockout opponent goes through). ``TournamentError`` 404 ``not_registered``,
    409 ``finished``."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        entry = TournamentEntry.objects.filter(tournament=tournament, player=player, withdrawn=False).first()
        if entry is None:
            raise TournamentError("not_registered", f"{player.name} is not registered in {tournament.slug!r}", 404)
        if tournament.status == Tournament.Status.FINISHED:
            raise TournamentError("finished", "the tournament is over: its standings stay as they are")
        if tournament.status == Tournament.Status.REGISTERING:
            entry.delete()
        else:
            entry.withdrawn = True
            entry.save(update_fields=["withdrawn"])
    if tournament.status == Tournament.Status.RUNNING:
        transaction.on_commit(lambda: _queue_advance(tournament.pk))


def min_entrants(tournament: Tournament) -> int:
    """Entrants needed to start: a knockout 2, others one pod (the seats per match)."""
    return 2 if tournament.format == Tournament.Format.KNOCKOUT else tournament.seats_per_match


def check_organiser(*, tournament: Tournament, user) -> None:
    """``TournamentError`` 403 unless ``user`` created the tournament or is staff."""
    if not (user is not None and user.is_authenticated and (user.is_staff or user.pk == tournament.created_by_id)):
        raise TournamentError("forbidden", "only the tournament's organiser (or staff) may do this", 403)


def tournament_start(*, tournament: Tournament) -> Tournament:
    """Close registration, fix seeds (by rating at the start: the best ladder ordinal of the player under this
    preset, 0 unrated; then registration order) and create round 1. ``TournamentError`` 409 ``not_registering``,
    ``too_few_entrants`` (with the number needed), ``too_many_matches``."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if tournament.status != Tournament.Status.REGISTERING:
            raise TournamentError("not_registering", f"the tournament is {tournament.status} already")
        entries = list(TournamentEntry.objects.filter(tournament=tournament, withdrawn=False)
                       .select_related("player").order_by("registered_at", "id"))
        need = min_entrants(tournament)
        if len(entries) < need:
            raise TournamentError("too_few_entrants", f"{len(entries)} entrant{'s' if len(entries) != 1 else ''} "
                                  f"registered; this tournament needs at least {need} to start")
        best = {}
        for player_id, ordinal in LadderEntry.objects.filter(
                player__in=[e.player for e in entries], ladder__preset=tournament.preset).values_list(
                "player_id", "ordinal"):
            best[player_id] = max(best.get(player_id, ordinal), ordinal)
        for e in entries:
            e.rating = best.get(e.player_id, 0.0)
        entries.sort(key=lambda e: -e.rating)  # stable: registration order among equals
        for i, e in enumerate(entries, start=1):
            e.seed = i
        TournamentEntry.objects.bulk_update(entries, ["seed", "rating"])
        ids = [e.player_id for e in entries]
        check_match_count(tournament=tournament, entrants=len(ids))  # before building any schedule
        if tournament.format == Tournament.Format.ROUND_ROBIN:
            schedule = formats.round_robin_rounds(ids, tournament.seats_per_match, tournament.matches_per_pairing)
            tournament.rounds = len(schedule)
        elif tournament.format == Tournament.Format.KNOCKOUT:
            tournament.rounds = knockout.knockout_rounds_needed(len(ids))
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = timezone.now()
        tournament.save(update_fields=["status", "started_at", "rounds"])
        advance_locked(tournament)
    return tournament


def check_match_count(*, tournament: Tournament, entrants: int) -> int:
    """The matches ``tournament`` would create with ``entrants`` entrants (counted, never built: a round robin is
    ``C(entrants, seats) * matches_per_pairing`` pods, a knockout ``entrants - 1``, a Swiss tournament ``rounds *
    (entrants // seats)``; times the seats for duplicate rotations). ``TournamentError`` 409 ``too_many_matches``
    past ``MAX_MATCHES``, saying the limit and how many entrants would fit."""
    seats, k = tournament.seats_per_match, tournament.matches_per_pairing or 1
    rotations = seats if tournament.duplicate else 1
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        total = formats.round_robin_match_count(entrants, seats, k) * rotations
        fits = formats.round_robin_entrants_within(MAX_MATCHES // rotations, seats, k)
    elif tournament.format == Tournament.Format.KNOCKOUT:
        total = (entrants - 1) * rotations
        fits = MAX_MATCHES // rotations + 1
    else:
        rounds = tournament.rounds or 1
        total = rounds * (entrants // seats) * rotations
        fits = (MAX_MATCHES // (rounds * rotations) + 1) * seats - 1
    if total > MAX_MATCHES:
        other = (" (or fewer seats per match, fewer matches per pairing, or a Swiss tournament)"
                 if tournament.format == Tournament.Format.ROUND_ROBIN else "")
        raise TournamentError("too_many_matches", f"{entrants} entrants would make {total} matches; a tournament "
                              f"makes at most {MAX_MATCHES}: with these settings at most {fits} entrants fit"
                              f"{other}")
    return total


def tournament_advance(*, tournament_id: int) -> str:
    """Create the next round when the last one has ended, or finish the tournament. Returns ``"waiting"`` (matches
    of the last round are running), ``"round <n>"`` (round n created), ``"finished"`` or ``"not_running"``.
    Idempotent (see the module docstring)."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return "not_running"
        return advance_locked(tournament)


def _queue_advance(tournament_id: int) -> None:
    from tournaments.tasks import advance_tournament

    send_task(advance_tournament, tournament_id)


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """Signal receiver (inside the finishing transaction): once it commits, have the tournament advance (the beat
    task ``tournaments_tick`` is the safety net when this message is lost)."""
    tournament_id = (TournamentMatch.objects.filter(match=match).values_list("round__tournament_id", flat=True)
                     .first())
    if tournament_id is not None:
        transaction.on_commit(lambda: _queue_advance(tournament_id))


def tournaments_tick(*, now=None) -> list[str]:
    """The beat task's work: start tournaments whose start time has come (with enough entrants; else the start
    time passes and they wait for the organiser), and advance every running one. Returns what it did, for logs."""
    now = now or timezone.now()
    done = []
    for t in Tournament.objects.filter(status=Tournament.Status.REGISTERING, starts_at__lte=now):
        try:
            tournament_start(tournament=t)
            done.append(f"{t.slug}: started")
        except TournamentError as exc:
            log.warning("tournament %s could not start at its start time: %s", t.slug, exc.detail)
            Tournament.objects.filter(pk=t.pk).update(starts_at=None, note=f"not started: {exc.detail}"[:200])
    for pk, slug in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", "slug"):
        done.append(f"{slug}: {tournament_advance(tournament_id=pk)}")
    return done


