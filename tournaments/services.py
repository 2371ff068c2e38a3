"""Ladder writes: create ladders and entries, schedule matches, apply ratings when a match finishes."""

from __future__ import annotations

import logging
from collections import Counter
from itertools import combinations

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone
from openskill.models import PlackettLuce

from eights_engine import Ruleset
from eights_engine.deal import check_ruleset_seats
from games.models import Match, Player, Seat
from games.services import match_create, match_wake, player_for_user
from sitekit.errors import ApiError
from tournaments.matchmaking import Candidate, choose_matches
from tournaments.duplicate_services import duplicate_set_create, on_set_match_finished
from tournaments.models import Ladder, LadderEntry, LadderMatch, PlayRequest, RatingChange
from tournaments.seasons import season_open, seasons_roll

log = logging.getLogger(__name__)
_MODEL = PlackettLuce()


class LadderBusy(ApiError):
    """Another transaction is seating this person right now (their other Play now, or another person's pairing
    them): try again in a second (409 ``busy``, Retry-After: 1). Raised at once, so no web request waits on a lock."""

    def __init__(self, detail: str) -> None:
        super().__init__("busy", detail, 409, retry_after=1)


def ladder_create(*, name: str, slug: str, preset: str = "pagat", seats_per_match: int = 2,
                  target: int | None = None, max_running_matches: int = 4, overrides: dict | None = None,
                  turn_timeout_ms: int | None = None, duplicate: bool = False) -> Ladder:
    """Create a ladder, or return the existing one with this slug when its rules are the same.

    ``duplicate``: duplicate play (``Ladder.duplicate``; a rule like the others: it cannot change once matches were
    played). Raises ``ValueError`` for an unknown preset, a bad override or seat count, or when a ladder with this slug
    already played matches under other rules (ratings from different rules must not mix: use another slug).
    """
    base = Ruleset.preset(preset, **(overrides or {}))
    ruleset = Ruleset.preset(preset, **({"target": target} if target is not None else {}), **(overrides or {}))
    target = ruleset.target_for(seats_per_match) if base.seats_min <= seats_per_match <= base.seats_max else ruleset.target
    if not ruleset.seats_min <= seats_per_match <= ruleset.seats_max:
        raise ValueError(f"preset {preset!r} seats {ruleset.seats_min} to {ruleset.seats_max}, not {seats_per_match}")
    check_ruleset_seats(ruleset, seats_per_match)  # partnership: exactly 4; hollywood scoring: 2
    if not 1 <= max_running_matches <= 1000:
        raise ValueError(f"max_running_matches must be from 1 to 1000, not {max_running_matches}")
    if turn_timeout_ms is None:
        turn_timeout_ms = settings.BOT_TURN_TIMEOUT_MS
    if not 50 <= turn_timeout_ms <= 60000:
        raise ValueError(f"turn_timeout_ms must be from 50 to 60000 ms, not {turn_timeout_ms}")
    existing = Ladder.objects.filter(slug=slug).first()
    rules = {"preset": preset, "ruleset": ruleset.to_dict(), "seats_per_match": seats_per_match, "target": target,
             "turn_timeout_ms": turn_timeout_ms, "duplicate": bool(duplicate)}
    if existing is not None:
        changed = [k for k, v in rules.items() if getattr(existing, k) != v]
        if changed and existing.ladder_matches.exists():
            raise ValueError(f"ladder {slug!r} already has matches under preset {existing.preset!r}, "
                             f"{existing.seats_per_match} seats, target {existing.target}; its rules cannot change "
                             "(use another slug)")
        for key, value in {**rules, "name": name, "max_running_matches": max_running_matches}.items():
            setattr(existing, key, value)
        existing.save()
        return existing
    return Ladder.objects.create(name=name, slug=slug, max_running_matches=max_running_matches, **rules)


def ladder_entry_create(*, ladder: Ladder, player: Player) -> LadderEntry:
    """Put ``player`` on ``ladder`` with the default rating (or reactivate the entry). ``ValueError`` for a guest
    (``games.people.guests``): guests are never rated and never on a leaderboard."""
    if player.is_guest:
        raise ValueError(f"{player.name} is a guest: guests play casual matches only; sign up to join a ladder")
    entry, created = LadderEntry.objects.get_or_create(ladder=ladder, player=player)
    if not created and not entry.is_active:
        entry.is_active = True
        entry.save(update_fields=["is_active"])
    return entry


def _running_per_player(ladder: Ladder, player: Player | None = None) -> Counter:
    """Running matches of ``ladder`` per player id (of ``player`` only, when given)."""
    rows = Seat.objects.filter(match__status=Match.Status.RUNNING, match__ladder_match__ladder=ladder)
    if player is not None:
        rows = rows.filter(player=player)
    return Counter(rows.values_list("player_id", flat=True))


#: The ladder's last this many matches (running ones included) are its "recent" ones: who met whom lately and how
#: many matches each entry played lately (``tournaments.matchmaking``).
RECENT_MATCHES = 50


def _recent_pairs(ladder: Ladder, last: int = RECENT_MATCHES) -> tuple[Counter, Counter]:
    """How often each pair of players met (keyed ``(a, b)``, ``a < b``) and how many matches each player played,
    in the ladder's last ``last`` matches."""
    pairs: Counter = Counter()
    match_ids = list(LadderMatch.objects.filter(ladder=ladder).order_by("-match_id").values_list("match_id", flat=True)[:last])
    seats: dict[int, list[int]] = {}
    for match_id, player_id in Seat.objects.filter(match_id__in=match_ids).values_list("match_id", "player_id"):
        seats.setdefault(match_id, []).append(player_id)
    for players in seats.values():
        for a, b in combinations(sorted(players), 2):
            pairs[(a, b)] += 1
    return pairs, Counter(p for players in seats.values() for p in players)


def _seat_counts(ladder: Ladder) -> dict[int, Counter]:
    """Times each player sat in each seat index in the ladder's matches (one grouped query)."""
    counts: dict[int, Counter] = {}
    rows = (Seat.objects.filter(match__ladder_match__ladder=ladder).values("player_id", "index")
            .annotate(n=Count("id")).values_list("player_id", "index", "n"))
    for player_id, index, n in rows:
        counts.setdefault(player_id, Counter())[index] = n
    return counts


def ladder_schedule_matches(*, ladder: Ladder, limit: int | None = None) -> list[Match]:
    """Start matches on ``ladder`` up to its running-match cap (and ``limit``, when given).

    Whom and in which seats: ``tournaments.matchmaking.choose_matches`` (fewer recent matches first, close
    ratings, opponents spread, seats and dealers rotated, no entry starves; no match seats two entries of one
    owner, whose bots could share cards). A player is never in more than ``max_concurrent_per_player`` running
    matches of the ladder; people are never scheduled (they ask with Play now). Returns the created matches; the
    caller enqueues them (``tournaments.tasks`` does, on commit).
    """
    with transaction.atomic():
        # one scheduler per ladder at a time: the caps below are counted and used under this row lock. NO KEY
        # UPDATE: rows that merely reference the ladder (Play now's LadderMatch, entries) are not held up by it
        ladder = Ladder.objects.select_for_update(no_key=True).get(pk=ladder.pk)
        if ladder.is_active:
            seasons_roll(ladder=ladder)  # a season whose end has come closes here, and the next opens
        return _schedule_locked(ladder, limit)


def _schedule_locked(ladder: Ladder, limit: int | None) -> list[Match]:
    if not ladder.is_active:
        return []
    running = Match.objects.filter(status=Match.Status.RUNNING, ladder_match__ladder=ladder).count()
    room = max(0, ladder.max_running_matches - running)
    if limit is not None:
        room = min(room, limit)
    if room == 0:
        return []
    # people are never scheduled by the ladder: they ask for a match with Play now (ladder_play_now)
    entries = list(LadderEntry.objects.filter(ladder=ladder, is_active=True, player__is_active=True)
                   .exclude(player__kind=Player.Kind.HUMAN).select_related("player"))
    claimed = _claim_seating([e.player_id for e in entries if e.player.kind == Player.Kind.BOT])
    entries = [e for e in entries if e.player.kind != Player.Kind.BOT or e.player_id in claimed]  # else: next tick
    busy = _running_per_player(ladder)  # counted after the claim: every match seating a claimed bot is committed
    pairs, recent = _recent_pairs(ladder)
    seat_counts = _seat_counts(ladder)
    n = ladder.seats_per_match
    candidates = [Candidate(id=e.player_id, name=e.player.name, mu=e.mu, sigma=e.sigma, owner=e.player.user_id,
                            recent=recent[e.player_id], running=busy[e.player_id],
                            seat_counts=tuple(seat_counts.get(e.player_id, Counter())[k] for k in range(n)))
                  for e in entries]
    players = {e.player_id: e.player for e in entries}
    if not ladder.duplicate:
        chosen = choose_matches(candidates, seats=n, room=room, cap=ladder.max_concurrent_per_player, met=pairs)
        return [_ladder_match_create(ladder, [players[i] for i in ids]) for ids in chosen]
    # -- duplicate play (tournaments.duplicate_services): a duplicate ladder plays each chosen group as a set of n
    # rotations, one match per seating, from one match seed; room counts matches, so ceil(room / n) sets (the last
    # set may go over the running cap by up to n - 1 matches)
    chosen = choose_matches(candidates, seats=n, room=-(-room // n), cap=ladder.max_concurrent_per_player, met=pairs)
    return [match for ids in chosen
            for match in duplicate_set_create(ladder=ladder, players=[players[i] for i in ids])]


#: advisory lock keys "a transaction is seating this player": this base plus the player's id (ids below 2**40)
_SEATING_LOCK_BASE = 0x5EA7 << 40


def _claim_seating(player_ids: list[int]) -> set[int]:
    """Of ``player_ids``, those this transaction now holds the right to seat until it ends (PostgreSQL advisory
    transaction locks, taken with ``pg_try_advisory_xact_lock``); one another transaction holds is left out at
    once, never waited for. The scheduler and Play now claim every submitted bot (so its running-match cap holds:
    count its matches after claiming it) and Play now claims the people it seats (so no two requests seat one
    person). An advisory lock holds up no write to the players' rows (a bot owner's edit never waits for it).
    Without PostgreSQL (SQLite: one writer at a time) every id is claimed."""
    if not player_ids:
        return set()
    if connection.vendor != "postgresql":
        return set(player_ids)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM unnest(%s::bigint[]) AS id WHERE pg_try_advisory_xact_lock(%s + id)",
                       [list(player_ids), _SEATING_LOCK_BASE])
        return {row[0] for row in cursor.fetchall()}


def _same_owner(player: Player, others: list[Player]) -> bool:
    """Whether ``player`` has the owner of one of ``others`` (``Player.user``: the person, or a bot's owner; a
    house bot has none). Such players never share a match: a person and their bot, or two bots of one owner."""
    return player.user_id is not None and player.user_id in {p.user_id for p in others}


def _ladder_match_create(ladder: Ladder, players: list[Player]) -> Match:
    """A rated match of ``ladder`` for ``players`` in seat order, under its rules, bot turn timeout and move clock."""
    match = match_create(players=players, ruleset=Ruleset.from_dict(ladder.ruleset), preset=ladder.preset,
                         turn_timeout_ms=ladder.turn_timeout_ms, move_seconds=ladder.move_seconds)
    LadderMatch.objects.create(ladder=ladder, match=match, season=season_open(ladder=ladder))
    return match


def ladder_table_match_create(*, ladder: Ladder, players: list[Player]) -> Match:
    """A rated match of ``ladder`` for a table's ``players`` in seat order (``tables``: "rated on that ladder"),
    created like the scheduler's (``_ladder_match_create``: the ladder's rules, clocks, rated at its end). Every seat
    is an entry of the ladder: a person gets theirs (as Play now does), a bot or house bot must have an active one.
    ``ValueError`` saying which seat is not right: a guest, a bot or house bot not on the ladder, two players of one
    owner, a seat count that is not the ladder's, or an inactive ladder."""
    if not ladder.is_active:
        raise ValueError(f"the ladder {ladder.name} is closed: it plays no new matches")
    if len(players) != ladder.seats_per_match:
        raise ValueError(f"the ladder {ladder.name} plays {ladder.seats_per_match} seats, not {len(players)}")
    banned = next((p for p in players if p.banned_at is not None), None)
    if banned is not None:
        raise ValueError(f"{banned.name} is banned from rated play after a fair-play review: play a casual table")
    entered = set(LadderEntry.objects.filter(ladder=ladder, is_active=True, player__in=players)
                  .values_list("player_id", flat=True))
    for index, player in enumerate(players):
        if _same_owner(player, players[:index]):
            raise ValueError(f"{player.name} and a player of the same owner would share the match: never at one table")
        if player.pk in entered:
            continue
        if player.kind != Player.Kind.HUMAN:
            raise ValueError(f"{player.name} is not on the ladder {ladder.name}: only its entries play rated there")
        ladder_entry_create(ladder=ladder, player=player)  # ValueError for a guest
    return _ladder_match_create(ladder, players)


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """Signal receiver: rate a finished ladder match (inside the finishing transaction)."""
    ladder_match = LadderMatch.objects.select_for_update().filter(match=match, rated_at__isnull=True).first()
    if ladder_match is None:
        return
    if on_set_match_finished(match=match):  # -- duplicate play: a set's match is rated with its set, once
        return
    ladder_rate_match(ladder_match=ladder_match)


def ladder_rate_match(*, ladder_match: LadderMatch, places: dict[int, int] | None = None) -> list[RatingChange]:
    """Apply openskill Plackett-Luce to the match's places (ties share a place); ranked by the conservative
    ordinal mu - 3 sigma. Under ``partnership`` (RULES.md A, C: seats 0+2 against 1+3) the two sides are rated as
    teams of two: partners share their side's result (its worse member's place, should a forfeit have split
    them) and each moves by its own share of the team's update. Returns one ``RatingChange`` per seat.

    ``places`` (player id -> place) replaces the seats' places: a duplicate set's combined result
    (``tournaments.duplicate_services.rate_set``), rated once against its first match.
    Call inside a transaction holding ``ladder_match``'s row lock; rates each match exactly once.
    """
    match = ladder_match.match
    seats = list(match.seats.select_related("player").order_by("index"))
    entries = {e.player_id: e for e in LadderEntry.objects.select_for_update().filter(
        ladder=ladder_match.ladder, player_id__in=[s.player_id for s in seats])}
    for seat in seats:  # a player who left the ladder mid-match is still rated
        if seat.player_id not in entries:
            entries[seat.player_id] = LadderEntry.objects.create(ladder=ladder_match.ladder, player=seat.player,
                                                                 is_active=False)
    if places is not None:  # -- duplicate play: the set's combined places
        for seat in seats:
            seat.place = places[seat.player_id]
    if (match.ruleset or {}).get("partnership") and len(seats) == 4:
        sides = [[seats[0], seats[2]], [seats[1], seats[3]]]
    else:
        sides = [[seat] for seat in seats]
    teams = [[_MODEL.rating(mu=entries[s.player_id].mu, sigma=entries[s.player_id].sigma) for s in side]
             for side in sides]
    new = _MODEL.rate(teams, ranks=[max(s.place for s in side) for side in sides])
    changes = []
    for side, ratings in zip(sides, new):
        for seat, rating in zip(side, ratings):
            entry = entries[seat.player_id]
            change = RatingChange(entry=entry, match=match, place=seat.place, mu_before=entry.mu,
                                  sigma_before=entry.sigma, ordinal_before=entry.ordinal, mu_after=rating.mu,
                                  sigma_after=rating.sigma, ordinal_after=rating.ordinal())
            entry.mu, entry.sigma, entry.ordinal = rating.mu, rating.sigma, rating.ordinal()
            entry.matches_played += 1
            entry.wins += 1 if seat.place == 1 else 0
            entry.save(update_fields=["mu", "sigma", "ordinal", "matches_played", "wins"])
            changes.append(change)
    RatingChange.objects.bulk_create(changes)
    ladder_match.rated_at = timezone.now()
    ladder_match.save(update_fields=["rated_at"])
    return changes


def ladder_play_now(*, ladder: Ladder, user, match_with: str | None = None) -> tuple[Match | None, int | None]:
    """Play now on ``ladder`` for a person: returns (match, seat), or (None, None) while they wait for a person.

    ``match_with`` (saved as the person's preference): ``bots`` starts a rated match at once against the
    best-matched bots (nearest rating; bots free of running matches first, house bots otherwise); ``people``
    waits for another person who accepts people; ``both`` takes a waiting person if there is one, else bots.
    Calling again returns the running match or keeps waiting. Nobody is matched with their own bot, nor with two
    bots of one owner. ``ValueError`` when the ladder is closed, the preference is unknown, or there are too few
    bots (of other owners); ``LadderBusy`` when another request is seating this person right now.

    Never waits for a lock (it runs inside a web request): it claims only the players it seats
    (``_claim_seating``): the person (``LadderBusy`` when another request is seating them), waiting people and
    submitted bots (one another transaction is seating is passed over); not the ladder's row, which the scheduler
    holds while it works.
    """
    if match_with is not None and match_with not in ("both", "bots", "people"):
        raise ValueError(f"match_with is 'both', 'bots' or 'people', not {match_with!r:.30}")
    person = player_for_user(user=user)
    with transaction.atomic():
        if not _claim_seating([person.pk]):
            raise LadderBusy("a match is being started for you right now: try again in a second")
        person = Player.objects.get(pk=person.pk)
        if match_with is not None:
            person.match_with = match_with
            person.save(update_fields=["match_with"])
        ladder = Ladder.objects.get(pk=ladder.pk)
        if not ladder.is_active:
            raise ValueError(f"the ladder {ladder.slug!r} is not active")
        if person.banned_at is not None:
            raise ValueError("your account is banned from rated play after a fair-play review: casual matches and "
                             "tables stay open to you")
        running = Match.objects.filter(status=Match.Status.RUNNING, ladder_match__ladder=ladder, seats__player=person).first()
        if running is not None:
            PlayRequest.objects.filter(ladder=ladder, player=person, match__isnull=True).delete()
            return running, running.seats.get(player=person).index
        me = ladder_entry_create(ladder=ladder, player=person)
        opponents: list[Player] = []
        if person.match_with in ("both", "people"):
            waiting = (PlayRequest.objects.filter(ladder=ladder, match__isnull=True)
                       .exclude(player=person).filter(player__match_with__in=["both", "people"])
                       .select_related("player").order_by("created_at"))
            for ask in waiting:  # one whose own Play now (or another pairing) is running right now: passed over
                if (len(opponents) < ladder.seats_per_match - 1 and _claim_seating([ask.player_id])
                        and PlayRequest.objects.filter(pk=ask.pk, match__isnull=True).exists()):  # not just paired
                    opponents.append(ask.player)
            if len(opponents) < ladder.seats_per_match - 1 and person.match_with == "people":
                PlayRequest.objects.get_or_create(ladder=ladder, player=person, match=None)
                return None, None
        if len(opponents) < ladder.seats_per_match - 1:
            opponents += _best_bots(ladder, me, ladder.seats_per_match - 1 - len(opponents), [person, *opponents])
        match = _ladder_match_create(ladder, [person, *opponents])
        PlayRequest.objects.filter(ladder=ladder, player__in=[person, *opponents], match__isnull=True).update(match=match)
        match_wake(match_id=match.pk)
    return match, 0


def _best_bots(ladder: Ladder, me: LadderEntry, count: int, seated: list[Player]) -> list[Player]:
    """``count`` bots for ``me``'s match, nearest-rated first (bots free of running matches before busy house
    bots), none with the owner of a player in ``seated`` or of another chosen bot. ``ValueError`` when too few."""
    busy = _running_per_player(ladder)
    cap = ladder.max_concurrent_per_player

    def key(e: LadderEntry) -> tuple:
        return (busy[e.player_id] >= cap, abs(e.ordinal - me.ordinal), e.player.name)

    candidates = sorted((e for e in LadderEntry.objects.filter(ladder=ladder, is_active=True, player__is_active=True)
                         .exclude(player__kind=Player.Kind.HUMAN).select_related("player")
                         if busy[e.player_id] < cap or e.player.kind == Player.Kind.HOUSE), key=key)
    chosen: list[Player] = []
    owners_kept_apart = False
    for entry in candidates:
        if len(chosen) == count:
            break
        if _same_owner(entry.player, [*seated, *chosen]):
            owners_kept_apart = True
            continue
        if entry.player.kind == Player.Kind.BOT and not (  # claimed, then counted again: the cap holds
                _claim_seating([entry.player_id]) and _running_per_player(ladder, entry.player)[entry.player_id] < cap):
            continue
        chosen.append(entry.player)
    if len(chosen) < count and owners_kept_apart:
        raise ValueError(f"the bots free to play now on the ladder {ladder.slug!r} are your own (or share an owner "
                         "with a player here), and nobody is matched with their own bot: try again in a while, or "
                         "play people")
    if len(chosen) < count:
        raise ValueError(f"the ladder {ladder.slug!r} has too few bots free to play now: try again in a while, "
                         "or play people")
    return chosen
