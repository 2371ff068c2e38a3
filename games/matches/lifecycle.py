"""The match lifecycle: create a match, wake it (queue it for a worker), end it early (the one abort), the notes the
watchdog keeps (failures, stalls, lost wake-ups) and the queries that find matches to play; who may play a seat.
Playing and storing plies is ``games.matches.plies``."""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from games import live
from sitekit.dispatch import tasks_mode
from eights_engine import ENGINE_VERSION, MatchState, Ruleset, keys
from eights_engine.fairness import SALT_BYTES, deal_commitment
from games.models import Deal, Match, Player, Seat
from games.hooks import match_created
from sitekit.errors import ApiError

log = logging.getLogger(__name__)



class MatchNotFound(ApiError):
    """No such match (or no such seat in it): 404 ``not_found``."""

    def __init__(self, detail: str) -> None:
        super().__init__("not_found", detail, 404)


class SeatForbidden(ApiError):
    """The user does not play this seat: 403 ``permission_denied``."""

    def __init__(self, detail: str) -> None:
        super().__init__("permission_denied", detail, 403)


class StalePly(ApiError):
    """The action answers a position that is gone (another ply was stored, the turn moved, or the match ended):
    409 ``stale_ply``."""

    def __init__(self, detail: str) -> None:
        super().__init__("stale_ply", detail, 409)


def match_create(*, players: list[Player], ruleset: Ruleset, preset: str = "", seed: int | None = None,
                 secret: str | None = None, turn_timeout_ms: int | None = None, single_deal: dict | None = None,
                 move_seconds: int | None = None, reveal_group: str = "", after: Match | None = None,
                 same_owner_ok: bool = False) -> Match:
    """Create a running match with ``players`` in seat order and its first deal row.

    ``reveal_group``: a key this match shares with the other matches dealt the same seeds (a duplicate set): none of
    them publishes its seeds, codes, hands or record while one of them runs (``selectors.match_is_public``).

    ``after``: a match that must end (finish or abort) before this one is played (``Match.after``): until then
    this match stays running but waits (``match_waits``): no ply, no bot call, no person's move, and its seat views
    show no hand. Its end wakes this match (``_wake_followers``). A duplicate set's rotations are chained so: the
    same entrants never hold the same cards in two matches at once.

    Dealing (docs/FAIRNESS.md): engine version 2, from a match ``secret`` (64 hex digits; matches dealt the same cards,
    such as a duplicate set's, share one) that defaults to 32 fresh bytes from the operating system
    (``new_match_secret``), or from a chosen ``seed`` (a non-negative int below 2**63: the secret is
    ``keys.secret_from_seed(seed)``; fixed-seed trials). ``single_deal`` plays one deal again: ``{"key": hex,
    "dealer": seat}`` (a version 2 deal), or ``{"seed": int, "dealer": seat}`` (a version 1 deal: the match is then a
    version 1 match). ``turn_timeout_ms`` (bot turns) defaults to
    ``BOT_TURN_TIMEOUT_MS``, and every seat starts with ``BOT_TIME_BANK_MS`` of time bank. Raises ``ValueError``
    when the ruleset cannot seat that many players, a player appears twice, or two players have the same owner
    (a person and their bot, two bots of one owner: they could share cards) unless ``same_owner_ok`` (an unrated
    trial of an owner's bot against their other bots: sharing cards there fools only the owner). Call
    ``games.tasks.advance_match`` (on commit) to play it.
    """
    if len({p.pk for p in players}) != len(players):
        raise ValueError("a player can take only one seat in a match")
    owners = [p.user_id for p in players if p.user_id is not None]
    if len(owners) != len(set(owners)) and not same_owner_ok:
        raise ValueError("a match seats no two players of the same owner (a person and their own bot, or two bots "
                         "of one owner): they could share cards")
    if seed is not None and not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**63):
        raise ValueError(f"a match seed is an integer from 0 to 2**63-1, not {seed!r}")
    version = "1" if single_deal is not None and "seed" in single_deal else ENGINE_VERSION
    if single_deal is not None:
        seed = secret = None
    elif secret is None:
        secret = new_match_secret() if seed is None else keys.secret_from_seed(seed).hex()
    state = MatchState.start(ruleset, len(players), seed, single_deal, secret=secret,
                             version=version)  # validates seats, ruleset, secret and single deal
    timeout = settings.BOT_TURN_TIMEOUT_MS if turn_timeout_ms is None else turn_timeout_ms
    single = state.single_deal or {}
    with transaction.atomic():
        seating = [p.pk for p in players] if state.secret else []
        match = Match.objects.create(ruleset=ruleset.to_dict(), preset=preset, seat_count=len(players), seed=seed,
                                     secret=state.secret.hex() if state.secret else "", seating=seating,
                                     commitment=keys.secret_commitment(state.secret, seating) if state.secret else "",
                                     fault_limit=settings.BOT_MAX_CONSECUTIVE_FAULTS,
                                     engine_version=version, totals=[0] * len(players),
                                     turn_timeout_ms=timeout, move_seconds=move_seconds, reveal_group=reveal_group,
                                     after=after, single_deal_seed=single.get("seed"),
                                     single_deal_key=single["key"].hex() if "key" in single else "",
                                     single_deal_dealer=single.get("dealer"))
        Seat.objects.bulk_create(Seat(match=match, index=i, player=p, time_bank_ms=settings.BOT_TIME_BANK_MS)
                                 for i, p in enumerate(players))
        _deal_row_create(match, state)
        match_created.send(sender=Match, match=match, players=list(players))
    return match


def takes_contributions(match: Match) -> bool:
    """Whether ``match``'s deals take the seats' contributions (docs/FAIRNESS.md, "Contributions"): a version 2
    match dealt from a fresh secret. Not a match dealt the same cards as others (a duplicate set's rotations, its
    ``reveal_group``: seats' randomness would make their cards differ), nor one dealt from a chosen seed (fixed-seed
    trials: reproducible), nor a deal played again (its key is given)."""
    return (match.engine_version == "2" and bool(match.secret) and match.seed is None and not match.reveal_group
            and not match.single_deal_key)


def new_match_secret() -> str:
    """A fresh match secret (docs/FAIRNESS.md, engine version 2): 32 bytes from the operating system's generator
    (``secrets.token_bytes``), as 64 lowercase hex digits. Matches that must be dealt the same cards (a duplicate
    set's) share one."""
    return secrets.token_bytes(keys.SECRET_BYTES).hex()


def match_wake(*, match_id: int, kinds: set[str] | None = None) -> None:
    """Have the match played on: queue the match task for ``match_id`` once the current transaction commits (at once
    outside one). With ``TASKS = "in_process"`` (no broker) it queues nothing: a match that is not waiting
    for a person's move is runnable (``matches_runnable``) and the ladder loop process plays it within a poll, so
    the web request that created the match or stored a person's move never plays bots' turns itself. ``kinds``: the
    kinds of the players seated, when the caller has them (saves ``match_queue`` its query). An unreachable broker
    is never the request's failure: the match is marked and the watchdog queues it (``match_queue``)."""
    if tasks_mode() == "in_process":
        return
    from games.tasks import match_queue  # the task module imports this one

    transaction.on_commit(lambda: match_queue(match_id=match_id, kinds=kinds, quick=True))


def _wake_followers(match_id: int) -> None:
    """``match_id`` just ended (inside the transaction that ended it): the running matches waiting for it
    (``Match.after``) start their stall clock now (the watchdog counts a follower's wait from its predecessor's
    end, never from its creation) and are queued once the end commits (``match_wake``)."""
    followers = list(Match.objects.filter(after_id=match_id, status=Match.Status.RUNNING).values_list("pk", flat=True))
    if followers:
        Match.objects.filter(pk__in=followers).update(last_progress_at=timezone.now())
    for pk in followers:
        match_wake(match_id=pk)


def _deal_row_create(match: Match, state: MatchState) -> Deal:
    """The row of the state's current deal, before its first ply, with its commitment (docs/FAIRNESS.md): every view
    and turn request of the deal carries the commitment from now on; the key (version 2; version 1: the seed and a
    fresh secret salt) stays in this row until the match is public."""
    row = _deal_row_new(match, state)
    row.save(force_insert=True)
    return row


def _deal_row_new(match: Match, state: MatchState) -> Deal:
    """``_deal_row_create``'s row, not saved yet: a deal that starts inside a batch of plies (``_Plies``) is saved
    with them. Until then nobody sees its commitment (only a house strategy's turn carries it), and a batch that is
    never stored takes its salt with it."""
    deal = state.deal
    if isinstance(deal.seed, bytes):
        return Deal(match=match, number=state.deal_number, key=deal.seed.hex(), code=deal.code, dealer=deal.dealer,
                    engine_version=state.version, commitment=keys.deal_key_commitment(deal.seed),
                    contributions=state.published_contributions(state.deal_number))
    salt = secrets.token_hex(SALT_BYTES)
    return Deal(match=match, number=state.deal_number, seed=deal.seed, code=deal.code, dealer=deal.dealer,
                engine_version=state.version, salt=salt, commitment=deal_commitment(deal.seed, salt))


def match_abort(*, match_id: int, reason: str, still: dict | None = None) -> bool:
    """The one way a match ends early: mark a running match aborted (left unrated), wake the matches waiting for it
    (``Match.after``) and send its watchers the end. ``still``: field values the match must still have (e.g. the
    ``last_progress_at`` a caller judged it by), so a move stored meanwhile wins. Returns whether it was aborted."""
    with transaction.atomic():
        aborted = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, **(still or {})).update(
            status=Match.Status.ABORTED, abort_reason=reason[:200], finished_at=timezone.now()) == 1
        if aborted:
            _wake_followers(match_id)
            live.ply_stored(match_id=match_id)  # watchers get the end event
    return aborted


def match_note_failure(*, match_id: int, cause: str) -> bool:
    """Count a failure of the match itself: a worker took it and nothing came of it (no ply stored), for ``cause``
    (words for the log and the abort reason). A match that fails more than ``MATCH_MAX_FAILURES`` times in a row
    (any stored ply sets the count back to 0) is aborted and left unrated: our failure, never a player's. An
    outage of the broker, the cache or the database is never counted (``match_note_stall``, ``games.tasks``).
    Returns whether the match should be played on."""
    Match.objects.filter(pk=match_id).update(failures=F("failures") + 1)
    limit = settings.MATCH_MAX_FAILURES
    if Match.objects.filter(pk=match_id, failures__gt=limit).exists():
        match_abort(match_id=match_id, reason=f"failed {limit + 1} times in a row with no ply stored ({cause})")
        return False
    return True


def match_note_stall(*, match_id: int) -> bool:
    """The watchdog found ``match_id`` stalled (``matches_stalled``) and is about to queue it again: count the
    re-queue (``resume_count``) and restart the stall clock. It is the match's failure (``match_note_failure``)
    only when a worker took the match after its last stored ply or re-queue and stored nothing (the worker died
    with it, or playing it raised): a match whose task no worker took (a broker outage lost the queue, every worker
    was down) is only queued again, however long that lasted. Returns whether to queue it."""
    now = timezone.now()
    row = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).values_list(
        "claimed_at", "last_progress_at").first()
    if row is None:
        return False
    claimed_at, last_progress_at = row
    Match.objects.filter(pk=match_id).update(resume_count=F("resume_count") + 1, last_progress_at=now)
    if claimed_at is not None and claimed_at > last_progress_at:
        return match_note_failure(match_id=match_id, cause="a worker took it and stored nothing")
    return True


def match_note_wake_lost(*, match_id: int) -> None:
    """The match's task could not be queued (the broker is unreachable): mark it, and the watchdog queues it on its
    first pass once the broker answers (``matches_wake_pending``)."""
    Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).update(wake_pending=True)


def matches_wake_pending() -> list[int]:
    """Ids of running matches whose task could not be queued (``match_note_wake_lost``), with no live lease; their
    mark is cleared here (the caller queues them, and marks them again if that fails too)."""
    now = timezone.now()
    pending = list(Match.objects.filter(status=Match.Status.RUNNING, wake_pending=True)
                   .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now)).values_list("pk", flat=True))
    if pending:
        Match.objects.filter(pk__in=pending).update(wake_pending=False)
    return pending


def matches_stalled(*, now=None) -> list[int]:
    """Ids of running matches with no stored ply for ``MATCH_STALL_SECONDS`` and no live lease (a person who is
    thinking is not a stall: see ``matches_clock_expired``; nor is a match whose ``after`` match still runs: it
    waits, and its stall clock starts when that match ends, ``_wake_followers``)."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.MATCH_STALL_SECONDS)
    return list(
        Match.objects.filter(status=Match.Status.RUNNING, last_progress_at__lt=cutoff, awaiting_human=False)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .exclude(after__status=Match.Status.RUNNING)
        .values_list("pk", flat=True)
    )


def matches_runnable(*, now=None, people_only: bool = False) -> list[int]:
    """Ids of running matches a worker can play on now: not waiting for a person's move nor for their ``after``
    match to end, with no live lease (none, or an expired one: a worker that died). Matches with a person seated come first (someone is watching the bots
    answer), then the longest without progress; ``people_only``: only those with a person seated. The zero-setup
    ladder loop (``TASKS = "in_process"``) polls this instead of a task queue; people whose clock ran out
    are in ``matches_clock_expired``."""
    now = now or timezone.now()
    with_person = Exists(Seat.objects.filter(match=OuterRef("pk"), player__kind=Player.Kind.HUMAN))
    runnable = (Match.objects.filter(status=Match.Status.RUNNING, awaiting_human=False)
                .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
                .exclude(after__status=Match.Status.RUNNING))
    if people_only:
        runnable = runnable.filter(with_person)
    return list(runnable.order_by(with_person.desc(), "last_progress_at", "pk").values_list("pk", flat=True))


def matches_clock_expired(*, now=None) -> list[int]:
    """Ids of running matches waiting for a person whose move clock (``Match.move_clock_seconds``) has run out. A
    guest's match is never among them: no fallback is played for a guest who left; guest housekeeping ends the match
    (``games.people.guests.guest_housekeeping``)."""
    now = now or timezone.now()
    waiting = (Match.objects.filter(status=Match.Status.RUNNING, awaiting_human=True,
                                    last_progress_at__lt=now - timedelta(seconds=5))
               .exclude(seats__player__is_guest=True)
               .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now)).only("pk", "move_seconds", "last_progress_at"))
    return [m.pk for m in waiting if (now - m.last_progress_at).total_seconds() >= m.move_clock_seconds]


def _seats_loaded(match_id: int) -> list[Seat]:
    """The match's seats by index, each with the match (one object for all), its player and the player's user
    loaded: what ``Seat.objects.filter(match_id=...).select_related("match", "player__user").order_by("index")``
    gives, in one SELECT written here once per process rather than compiled by the ORM on every request (on a
    person's move and seat view the compile cost more CPU than the query: BENCHMARKS.md, "Speed for people").
    Each value goes through its field's and the backend's converters, as the ORM's own reads do; which fields have
    converters is worked out once per database connection object (``_SeatsPlan``)."""
    conn = connections[DEFAULT_DB_ALIAS]  # this thread's connection: one lookup, not one per value
    plan = getattr(conn, "_eights_seats_plan", None)
    if plan is None:
        plan = conn._eights_seats_plan = _SeatsPlan(conn)
    with conn.cursor() as cursor:
        cursor.execute(plan.sql, [match_id])
        rows = cursor.fetchall()
    seats, match, alias = [], None, conn.alias
    (seat_model, seat_part), (_, match_part), (_, player_part), (user_model, user_part) = plan.parts
    for row in rows:
        seat_row = seat_model.from_db(alias, seat_part.attnames, seat_part.values(row, conn))
        match = match or Match.from_db(alias, match_part.attnames, match_part.values(row, conn))
        player = Player.from_db(alias, player_part.attnames, player_part.values(row, conn))
        if player.user_id is not None:
            player.user = user_model.from_db(alias, user_part.attnames, user_part.values(row, conn))
        seat_row.match, seat_row.player = match, player
        seats.append(seat_row)
    return seats


class _SeatsPlan:
    """What ``_seats_loaded`` needs for one database connection: the SELECT (``sql``) and, per model of the join
    (seat, match, player, user, in that order: ``parts``), its columns' place in the row, its fields' attribute names
    and the converters of the fields that have any (the backend's and the field's, as the ORM applies them)."""

    class Part:
        def __init__(self, model, start: int, conn) -> None:
            fields = model._meta.concrete_fields
            self.start, self.stop = start, start + len(fields)
            self.attnames = [f.attname for f in fields]
            self.converters = []  # (index in this model's values, the column expression, [converter, ...])
            for i, field in enumerate(fields):
                col = field.cached_col
                found = conn.ops.get_db_converters(col) + col.get_db_converters(conn)
                if found:
                    self.converters.append((i, col, found))

        def values(self, row, conn) -> list:
            values = list(row[self.start:self.stop])
            for i, col, found in self.converters:
                value = values[i]
                for convert in found:
                    value = convert(value, col, conn)
                values[i] = value
            return values

    def __init__(self, conn) -> None:
        user_model = get_user_model()
        models = ((Seat, "s"), (Match, "m"), (Player, "p"), (user_model, "u"))
        q = conn.ops.quote_name
        columns = ", ".join(f"{alias}.{q(f.column)}" for model, alias in models for f in model._meta.concrete_fields)
        table = {model: q(model._meta.db_table) for model, _ in models}
        self.sql = (f"SELECT {columns} FROM {table[Seat]} s JOIN {table[Match]} m ON m.id = s.match_id "
                    f"JOIN {table[Player]} p ON p.id = s.player_id "
                    f"LEFT JOIN {table[user_model]} u ON u.id = p.user_id "
                    f"WHERE s.match_id = %s ORDER BY s.{q('index')}")
        self.parts, start = [], 0
        for model, _ in models:
            part = self.Part(model, start, conn)
            self.parts.append((model, part))
            start = part.stop


def access_seat(*, match_id: int, seat: int, user, guest: Player | None = None) -> tuple[Match, Seat, list[Seat]]:
    """The match, the seat and all the match's seats (by index, players and their users loaded), when ``seat`` exists
    in it and ``user`` sits in it as a person, or ``guest`` (the request's session's guest player,
    ``games.people.guests.session_guest``) is its guest player (``Player.is_played_by``: never a bot's owner in the bot's
    seat). One query (seats joined with their match, players and users). Raises ``MatchNotFound`` (404) or
    ``SeatForbidden`` (403)."""
    seats = _seats_loaded(match_id)
    seat_row = next((row for row in seats if row.index == seat), None)
    if seat_row is None:
        raise MatchNotFound(f"no match {match_id} with a seat {seat}")
    if not seat_row.player.is_played_by(user, guest):  # a bot's seat is not its owner's: only the bot plays it
        raise SeatForbidden(f"seat {seat} of match {match_id} is not yours")
    match = seat_row.match
    for row in seats:
        row.match = match  # one match object for all the seats (the join gave each its own copy)
    return match, seat_row, seats
