"""Plies: the match loop (``match_advance``, what the Celery task runs), a person's move (``match_submit_action``) and
the end of a match, all storing plies the same way.

The match loop rebuilds the engine state from one consistent read of the stored log, plays each seat's turn through
the engine's referee (``eights_engine.referee``: the seat's agent is asked with its ``Turn``, and the referee decides
fault, fallback, fault count and forfeit; a person's move is judged by the same referee), and stores each ply in its
own transaction. Who stores a ply is decided by a compare-and-set on ``Match.ply_count`` (the UPDATE that bumps it
is conditional on the count the writer read, and comes first in the transaction that inserts the move), with the
unique (deal, ply) constraint as the last guard: a person's move, a worker, a retried or duplicated task can never
store a ply twice, and the loser changes nothing. The lease (a conditional UPDATE whose row count says who won,
renewed with every ply) only says which worker runs the loop; a person's move never waits for it. Slow agent calls
(HTTP bots) happen outside any transaction.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games import live
from eights_engine import MatchState, referee
from eights_engine.deal import ACTIONS
from eights_engine.strategies import STRATEGIES, strategy_rng
from games.models import Deal, Match, Move, Player, Seat
from games.matches.seats import match_waits, seat_view  # match_waits: for callers here too
from games.matches.snapshots import match_state_snapshot
from games.hooks import agent_for, match_finished
from games.matches.leavers import SeatLeft, presence_note
from games.matches.lifecycle import (StalePly, _deal_row_new, _wake_followers, access_seat, match_abort, match_wake,
                                      takes_contributions)

log = logging.getLogger(__name__)



def _claim(match_id: int, token: str) -> bool:
    """Take (or renew) the match's lease for ``token``: one conditional UPDATE, which fails when the match is not
    running, another worker's lease is current, or its ``after`` match still runs (nothing is played then)."""
    now = timezone.now()
    claimed = (
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now) | Q(lease_owner=token))
        .exclude(Exists(Match.objects.filter(pk=OuterRef("after_id"), status=Match.Status.RUNNING)))
        .update(lease_owner=token, lease_until=now + timedelta(seconds=settings.MATCH_LEASE_SECONDS), claimed_at=now)
    )
    return claimed == 1


def _unclaimed(match_id: int) -> str:
    """Why ``_claim`` failed, in ``match_advance``'s words: ``"not_running"``, ``"waiting"`` (its ``after`` match
    still runs) or ``"busy"`` (another worker holds the lease). One query."""
    row = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).values_list("after__status").first()
    if row is None:
        return "not_running"
    return "waiting" if row[0] == Match.Status.RUNNING else "busy"


def _release(match_id: int, token: str) -> None:
    Match.objects.filter(pk=match_id, lease_owner=token).update(lease_owner="", lease_until=None)


def match_advance(*, match_id: int, ply_budget: int | None = None, time_budget_ms: int | None = None) -> str:
    """Play the match on from its stored log until it ends, a seat's agent has no answer yet, ``ply_budget``
    plies have been stored by this call, or ``time_budget_ms`` milliseconds (wall clock) have passed since the call
    began and at least one ply was stored (a slice: the budget is checked before each ply, so one slow bot's turn
    can overrun it by up to that turn's timeout; ``None``: no limit). The worker task and the zero-setup loop play
    matches in such slices so that a few matches with slow bots never hold every worker while people wait.

    Returns ``"finished"``, ``"waiting"`` (an agent such as a human has not acted, or the match's ``after`` match
    still runs: nothing is played, and that match's end queues this one again), ``"budget"``, ``"busy"``
    (another worker holds the lease), ``"not_running"``, or ``"conflict"`` (a store failed with nothing new to
    read: the stored rows disagree with the ply count; nothing was written). A ply another writer stores first (a person's move
    against the clock's fallback, a redelivered task) is never overwritten: this call re-reads the log and plays
    on from there. Idempotent: calling it again continues exactly where the log stops.
    """
    token = uuid.uuid4().hex
    if not _claim(match_id, token):  # a predecessor still running ("waiting"): nothing is played, no bot is asked;
        return _unclaimed(match_id)  # its end wakes this match
    deadline = None if time_budget_ms is None else time.monotonic() + time_budget_ms / 1000
    outcome = None
    try:
        outcome = _advance_claimed(match_id, token, ply_budget, deadline)
        return outcome
    finally:
        if outcome != "waiting":  # waiting gave the lease up already, in the UPDATE that marked it so
            _release(match_id, token)


def _advance_claimed(match_id: int, token: str, ply_budget: int | None, deadline: float | None) -> str:
    """The match loop, while ``token`` holds the lease. Plies are stored by a compare-and-set on the ply count read
    with the log (``_Plies.store``); when it fails, someone else stored a ply: re-read and go on (or stop, when the
    lease went to another worker or the match ended). It stops to wait for a person only through a conditional
    UPDATE that also gives up the lease, so a move stored meanwhile is never left without a worker.

    Consecutive house-strategy plies are stored together, up to ``MATCH_BATCH_PLIES`` plies or ``MATCH_BATCH_MS``
    ms a transaction (``_Plies``): they are deterministic (the house agent draws from ``strategy_rng``, keyed by the
    deal seed, the ply and the seat) and nobody has seen them before they are stored, so a worker killed with a
    batch in hand loses nothing anyone was told of, and the next worker plays the same plies again. The batch is
    stored before any other seat's turn (a bot is asked, or a person waits, only on stored plies), before the loop
    returns, and with the match's end."""
    stored = 0  # plies played by this call (stored, or in the batch that is stored before the call returns)
    failed_at, idle_failures = None, 0  # the ply count at which a store or the wait last failed; how often so
    while True:  # one pass per consistent read of the log
        match = Match.objects.get(pk=match_id)
        try:
            snapshot = match_state_snapshot(match=match)
            state = snapshot.state
        except ValueError as exc:  # ReplayMismatch or a bad stored ruleset: it can never be played on
            log.error("match %s does not replay, aborted: %s", match_id, exc)
            match_abort(match_id=match_id, reason=f"its stored record does not replay: {exc}")
            return "not_running"
        match = snapshot.match
        if match.status != Match.Status.RUNNING:
            return "not_running"
        idle_failures = idle_failures + 1 if failed_at == match.ply_count else 0
        if idle_failures >= 3:  # failed again and again with nothing stored meanwhile: not a race, do not spin
            log.error("match %s: a ply could not be stored at ply count %s and nothing else was", match_id, failed_at)
            return "conflict"
        if state.is_over:  # every ply is stored but the finish did not commit: finish now
            with transaction.atomic():
                if Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, ply_count=match.ply_count).update(
                        last_progress_at=timezone.now()) == 1:
                    _finish(match, state)
                    live.ply_stored(match_id=match_id, ply_count=match.ply_count)
            return "finished"
        seats = {seat.index: seat for seat in match.seats.select_related("player")}
        deal_row = snapshot.deal_row(state.deal_number)
        plies = _Plies(match, deal_row, lease_token=token)
        outcome = None
        try:
            while True:
                if (ply_budget is not None and stored >= ply_budget) or (
                        deadline is not None and stored and time.monotonic() >= deadline):
                    plies.store(state)
                    outcome = "budget"
                    break
                seat_row = seats[state.to_play]
                house = seat_row.player.kind == Player.Kind.HOUSE
                if not house:  # a bot is asked, a person waits, only on stored plies
                    plies.store(state)
                deal = state.deal
                ruling, think_ms = _play_turn(match, state, seat_row, commitment=deal_row.commitment or None)
                if ruling is None:
                    if Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, ply_count=match.ply_count,
                                            lease_owner=token).update(awaiting_human=True, lease_owner="",
                                                                      lease_until=None) == 1:
                        outcome = "waiting"
                        break
                    failed_at = match.ply_count
                    snapshot.keep()  # unchanged, and every ply before this turn is stored
                    break  # a ply was stored since the read (the person moved): read again
                deal_row, over = plies.add(state, deal, seat_row, ruling, action=ruling.action, think_ms=think_ms)
                if ruling.fault:
                    log.warning("match %s seat %s (%s): %s", match_id, ruling.seat, seat_row.player, ruling.fault)
                stored += 1
                if over or not house or plies.full():
                    plies.store(state)
                if over:
                    outcome = "finished"
                    break
        except StalePly:
            stored -= len(plies.plies)  # never stored: they do not count against the budget, nor as this call's
            failed_at = match.ply_count
            log.info("match %s: a ply after ply count %s was stored by another writer; reading again", match_id,
                     match.ply_count)  # the state is ahead of the log now: thrown away, the next pass reads the log
        if outcome is not None:
            snapshot.keep()  # every ply applied to the state is stored: this process's next read starts here
            return outcome
        if not _claim(match_id, token):  # the lease ran out and another worker took the match on
            return _unclaimed(match_id)


def _fault_policy(kind: str, match: Match) -> referee.FaultPolicy:
    """The referee's fault policy for a seat of ``match`` played by a player of ``kind``: a house strategy never
    forfeits; a bot or a person forfeits the match at ``match.fault_limit`` consecutive faults (fixed when the match
    was created; ``BOT_MAX_CONSECUTIVE_FAULTS`` for a match from before), as its record says (``max_faults``); a
    person's illegal move is refused (400, with the rule's reason) and is no fault, while their move clock running
    out is one."""
    if kind == Player.Kind.HOUSE:
        return referee.FaultPolicy(max_faults=None)
    return referee.FaultPolicy(max_faults=match.fault_limit or settings.BOT_MAX_CONSECUTIVE_FAULTS,
                               refuse_illegal=kind == Player.Kind.HUMAN)


def _turn_clock(match: Match, seat_row: Seat) -> dict:
    """The clock a seat's turn carries (ms): a bot's deadline (``Match.turn_timeout_ms``) and time bank, a
    person's move clock; a house strategy has none. With the seat's last round trip and the match id."""
    kind = seat_row.player.kind
    deadline = {Player.Kind.BOT: match.turn_timeout_ms, Player.Kind.HUMAN: match.move_clock_seconds * 1000}.get(kind)
    return {"match_id": match.pk, "deadline_ms": deadline, "last_latency_ms": seat_row.last_latency_ms,
            "time_bank_ms": seat_row.time_bank_ms if kind == Player.Kind.BOT else None}


def _play_turn(match: Match, state: MatchState, seat_row: Seat, *,
               commitment: str | None) -> tuple[referee.Ruling | None, int]:
    """One turn of the seat to play, through the referee (``referee.play_turn``): its agent (by the player's kind)
    is asked with the seat's ``Turn`` (carrying ``commitment``, the current deal's) and its own random source, the
    answer is judged under the seat's fault policy and applied to ``state``. Returns the ruling (None: the agent has no answer yet, ``state`` unchanged) and the
    think time in ms (the agent's own measure, else the wall clock around the call)."""
    player = seat_row.player
    agent = agent_for(player.kind)
    deal_seed = state.deal.seed
    took = {"ms": 0}
    offers = takes_contributions(match)

    def ask(turn: referee.Turn):
        started = time.perf_counter()
        answer = agent(player=player, turn=turn, rng=strategy_rng(deal_seed, turn.ply, turn.seat),
                       seat_row=seat_row, match=match,
                       contribution_open=(turn.seat not in state.offers) if offers else None)
        took["ms"] = int((time.perf_counter() - started) * 1000)
        return answer

    ruling = referee.play_turn(state, ask, faults_before=seat_row.consecutive_faults,
                               policy=_fault_policy(player.kind, match), commitment=commitment, offers=offers,
                               **_turn_clock(match, seat_row))
    return ruling, (ruling.answer.think_ms or took["ms"]) if ruling else 0


class _Plies:
    """Plies played and applied to the state but not stored yet, for one match read at ``match.ply_count`` plies, and
    ``store``: the one place where plies are stored, all of them in one transaction. ``lease_token`` (a worker) must
    still hold the lease when they are stored; a person's move passes none and never touches the lease."""

    def __init__(self, match: Match, deal_row: Deal, *, lease_token: str | None) -> None:
        self.match, self.row, self.lease_token = match, deal_row, lease_token
        self.plies: list[dict] = []
        self.started = 0.0  # time.monotonic() of the first ply in hand

    def add(self, state: MatchState, deal, seat_row: Seat, ruling: referee.Ruling, *, action: dict,
            think_ms: int) -> tuple[Deal, bool]:
        """Take a ply that ``state`` has just applied to ``deal`` (its engine deal; ``ruling`` for the seat of
        ``seat_row``; ``action`` as it will be stored). ``seat_row`` gets the seat's new fault count and clocks now
        (its next turn is judged with them). Returns the row of the deal now being played (a new row, saved with
        the plies, when this ply ended the deal) and whether the match is over (a finish, or the ruling's forfeit:
        store at once)."""
        if not self.plies:
            self.started = time.monotonic()
        seat_updates = {"consecutive_faults": ruling.faults, "last_latency_ms": think_ms}
        if ruling.answer.time_bank_ms is not None:
            seat_updates["time_bank_ms"] = ruling.answer.time_bank_ms
        for key, value in seat_updates.items():
            setattr(seat_row, key, value)
        row = self.row
        if deal.is_over and not state.is_over:
            self.row = _deal_row_new(self.match, state)
        self.plies.append({"row": row, "deal": deal, "seat": seat_row, "action": action, "ruling": ruling,
                           "think_ms": think_ms, "seat_updates": seat_updates, "next_row": self.row})
        return self.row, bool(ruling.forfeit or state.is_over)

    def full(self) -> bool:
        """Whether the plies in hand should be stored now: ``MATCH_BATCH_PLIES`` of them, or ``MATCH_BATCH_MS`` ms
        since the first."""
        return len(self.plies) >= settings.MATCH_BATCH_PLIES or (
            bool(self.plies) and (time.monotonic() - self.started) * 1000 >= settings.MATCH_BATCH_MS)

    def store(self, state: MatchState, *, awaiting_human: bool = False) -> None:
        """Store every ply in hand in one transaction (none: nothing to do), if the match is still running at
        ``match.ply_count`` plies: the moves (with their rulings' sources and faults), the seats' fault counts and
        clocks (each seat's latest), the deal rows at a deal's end and the new deal's row, the match's progress,
        and the finish or the last ruling's forfeit. ``state`` stands after the last ply in hand. ``awaiting_human``:
        the seat to play next is a person's, so no worker need look at the match until they move (a person's move
        that the house answered in the same request, ``match_submit_action``).

        The first statement is a compare-and-set on ``Match.ply_count`` (the count the state was read with,
        ``match_state_snapshot``): its row lock serialises every writer of this match, and a writer that read an
        older count changes nothing; the unique (deal, ply) constraint is the last guard. A worker's store also
        checks and renews its lease. The transaction is only these writes (the plies were played before it
        opened), so a person's move waits for it at most that long. On success ``match`` carries the new count and
        the plies in hand are none. Raises ``StalePly`` (nothing stored) when another writer got there first, the
        match is over, or the lease is gone.
        """
        if not self.plies:
            return
        match, plies = self.match, self.plies
        now = timezone.now()
        progress = {"ply_count": match.ply_count + len(plies), "deal_number": state.deal_number,
                    "totals": list(state.totals), "last_progress_at": now, "awaiting_human": awaiting_human,
                    "failures": 0}
        current = {"id": match.pk, "status": Match.Status.RUNNING, "ply_count": match.ply_count}
        if self.lease_token is not None:
            current["lease_owner"] = self.lease_token
            progress["lease_until"] = now + timedelta(seconds=settings.MATCH_LEASE_SECONDS)
        last = plies[-1]["ruling"]
        try:
            with transaction.atomic():
                if _update(Match, progress, where=current) != 1:
                    raise StalePly(f"ply {match.ply_count} is not the current position any more: another ply was "
                                   "stored, or the match ended")
                moves, seat_updates = [], {}
                for entry in plies:
                    ruling = entry["ruling"]
                    moves.append(Move(deal=entry["row"], ply=ruling.ply, seat=ruling.seat, action=entry["action"],
                                      source=ruling.source, fault=ruling.fault_text[:300],
                                      fault_kind=ruling.fault_kind, think_ms=entry["think_ms"],
                                      contribution=ruling.contribution.hex() if ruling.contribution else ""))
                    seat_updates.setdefault(entry["seat"].pk, {}).update(entry["seat_updates"])
                    if entry["deal"].is_over:
                        _deal_row_finish(entry["row"], entry["deal"])
                        if entry["next_row"] is not entry["row"]:
                            entry["next_row"].save(force_insert=True)
                _insert(moves)
                _seats_update(seat_updates)
                if last.forfeit:
                    _finish(match, state, forfeited=last.seat)
                elif state.is_over:
                    _finish(match, state)
                # one commit stores every ply in hand: watchers hear of them once, after the commit (games.live)
                live.ply_stored(match_id=match.pk, ply_count=progress["ply_count"])
        except IntegrityError:  # the (deal, ply) guard: never expected behind the compare-and-set, but never two
            raise StalePly(f"a ply after ply count {match.ply_count} was stored by another writer") from None
        for key, value in progress.items():
            setattr(match, key, value)  # the next seat's clock starts now (human_agent reads it)
        self.plies = []


def _update(model, fields: dict[str, object], *, where: dict[str, object]) -> int:
    """``UPDATE`` the rows of ``model`` whose fields equal ``where``'s values, setting ``fields`` (field names:
    values, each prepared for the database by its field, as the ORM would); returns the rows changed. Written here
    rather than compiled by the ORM on every store: on a person's move the ORM's compile of the two or three
    updates cost more CPU than the statements (BENCHMARKS.md, "Speed for people")."""
    ops, meta = connection.ops, model._meta

    def prepared(items):
        names = sorted(items)
        columns = [ops.quote_name(meta.get_field(name).column) for name in names]
        return columns, [meta.get_field(name).get_db_prep_save(items[name], connection) for name in names]

    set_columns, set_values = prepared(fields)
    where_columns, where_values = prepared(where)
    sql = (f"UPDATE {ops.quote_name(meta.db_table)} SET {', '.join(f'{c} = %s' for c in set_columns)} "
           f"WHERE {' AND '.join(f'{c} = %s' for c in where_columns)}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*set_values, *where_values])
        return cursor.rowcount


def _insert(rows: list) -> None:
    """``INSERT`` ``rows`` (unsaved instances of one model, at least one) in one statement: every concrete field but
    the automatic primary key, each value taken as the ORM's ``bulk_create`` takes it (``pre_save`` with ``add``,
    so ``auto_now_add`` times are set on the instances too, then ``get_db_prep_save``). The instances' primary keys
    are not read back. Written here rather than compiled by the ORM on every store, like ``_update``: the compile of
    ``Move.objects.bulk_create`` was about 7 % of the web tier's CPU under load (BENCHMARKS.md, "Speed for people")."""
    meta = rows[0]._meta
    fields = [f for f in meta.concrete_fields if f is not meta.auto_field]
    q = connection.ops.quote_name
    values = [field.get_db_prep_save(field.pre_save(row, True), connection) for row in rows for field in fields]
    one = f"({', '.join('%s' for _ in fields)})"
    sql = (f"INSERT INTO {q(meta.db_table)} ({', '.join(q(f.column) for f in fields)}) "
           f"VALUES {', '.join(one for _ in rows)}")
    with connection.cursor() as cursor:
        cursor.execute(sql, values)


def _seats_update(updates: dict[int, dict[str, int]]) -> None:
    """Store the seats' new fault counts and clocks, ``{seat pk: {field: value}}`` (integer fields of ``Seat``), in one
    UPDATE however many seats changed (a person's move and the house's answers touch two or more): a CASE on the
    seat's id per field, a field a seat did not set left as it is."""
    if len(updates) == 1:
        (pk, fields), = updates.items()
        _update(Seat, fields, where={"id": pk})
        return
    q = connection.ops.quote_name
    names = sorted({name for fields in updates.values() for name in fields})
    sets, params = [], []
    for name in names:
        column = q(Seat._meta.get_field(name).column)
        cases = [(pk, fields[name]) for pk, fields in updates.items() if name in fields]
        sets.append(f"{column} = CASE {' '.join('WHEN id = %s THEN CAST(%s AS INTEGER)' for _ in cases)} "
                    f"ELSE {column} END")
        params += [value for case in cases for value in case]
    sql = (f"UPDATE {q(Seat._meta.db_table)} SET {', '.join(sets)} "
           f"WHERE id IN ({', '.join('%s' for _ in updates)})")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *updates])


def _deal_row_finish(deal_row: Deal, deal) -> None:
    result = deal.result
    deal_row.outcome = result.outcome
    deal_row.winner = result.winner
    deal_row.hand_values = result.hand_values
    deal_row.points = result.points
    deal_row.plies = result.plies
    deal_row.finished_at = timezone.now()
    deal_row.save(update_fields=["outcome", "winner", "hand_values", "points", "plies", "finished_at"])


def _finish(match: Match, state: MatchState, forfeited: int | None = None) -> None:
    """Mark the match finished, write totals and places, and tell listeners (same transaction).

    A ``forfeited`` seat (too many consecutive faults) takes last place; the others keep their order by the
    standings at that moment.
    """
    places = state.standings if forfeited is None else state.standings_after_forfeit(forfeited)
    for seat in match.seats.all():
        seat.total = state.totals[seat.index]
        seat.place = places[seat.index]
        seat.forfeited = seat.index == forfeited
        seat.save(update_fields=["total", "place", "forfeited"])
    match.status = Match.Status.FINISHED
    match.totals = list(state.totals)
    match.deal_number = state.deal_number
    match.finished_at = timezone.now()
    match.save(update_fields=["status", "totals", "deal_number", "finished_at"])
    _wake_followers(match.pk)
    match_finished.send(sender=Match, match=match)


@dataclass(frozen=True)
class MoveStored:
    """A person's move, stored (``match_submit_action``): ``match`` (a copy of the row with the progress just stored,
    and the finish if the move ended it) and ``seat_view``, the mover's seat view right after the move
    (``selectors.seat_view``: what ``GET .../seats/<seat>/`` would answer)."""

    match: Match
    seat_view: dict


def match_submit_action(*, match_id: int, seat: int, ply: int, action: object, user,
                        guest: Player | None = None, contribution: bytes | None = None) -> MoveStored:
    """A person's move: ``action`` for ``seat`` of the match, answering the position at match ply ``ply``
    (``Match.ply_count``, given with every view). Stores it, with the house seats' answers that follow it
    (``_house_answers``: in the same transaction), and wakes the match task when a bot's or a stand-in's turn comes
    next (a person's turn marks the match ``awaiting_human`` instead); returns the match and the seat's view after
    them (``MoveStored``).

    Never waits for the worker's lease: the ply is stored by a compare-and-set on the ply count (``_Plies.store``),
    so whichever of this move and the worker (the move clock's fallback) stores the ply first wins, and the other
    changes nothing. Raises ``MatchNotFound`` (404), ``SeatForbidden`` (403: not this user's seat), ``SeatLeft``
    (409: the others ended the wait for this seat, ``games.matches.leavers``), ``StalePly``
    (409: another ply was stored, it is not this seat's turn, the match is over, or it waits for its ``after``
    match to end) and ``IllegalAction`` (400,
    with the rule's reason). A double submit stores the ply once. ``guest``: the session's guest player, for a guest's
    seat (``access_seat``). ``contribution``: randomness of the person's own (1-32 bytes, e.g. from their browser)
    for the key of the match's next deal: the seat's first in this deal counts (docs/FAIRNESS.md), any later one and
    any in a match that takes none (``takes_contributions``) are ignored.
    """
    match, seat_row, seats = access_seat(match_id=match_id, seat=seat, user=user, guest=guest)
    if seat_row.left_at is not None:
        raise SeatLeft("the others at the table ended the wait for you while you were away: " + (
            "a house bot plays your seat now" if seat_row.stand_in else "you forfeited this match"))
    presence_note(match_id=match_id, seat=seat)
    snapshot = match_state_snapshot(match=match)  # this process's cached state, brought up to date
    match, state = snapshot.match, snapshot.state
    try:
        if match.status != Match.Status.RUNNING:
            raise StalePly("the match is over")
        if match_waits(match=match):
            raise StalePly(f"this match has not started: it waits for match {match.after_id} to end (the rotations "
                           "of a duplicate set are played one after another); fetch the view again then")
        if ply != match.ply_count:
            raise StalePly(f"ply {ply} is not the current position: the match is at ply {match.ply_count}; fetch the "
                           "view again")
        if state.to_play != seat:
            raise StalePly(f"it is not your turn: seat {state.to_play} is to play")
        # the referee refuses an illegal move (IllegalAction says why, and changes nothing): a person tries again
        ruling = referee.judge(state, referee.Answer(action=action), faults_before=seat_row.consecutive_faults,
                               policy=_fault_policy(seat_row.player.kind, match))
    except Exception:
        snapshot.keep()  # the state is as read: the next read of this match starts from it
        raise
    deal = state.deal
    deal_row = snapshot.deal_row(state.deal_number)
    if takes_contributions(match):
        ruling = referee.offer_contribution(state, ruling, contribution)
    state.apply_id(ruling.action_id)
    think_ms = max(0, int((timezone.now() - match.last_progress_at).total_seconds() * 1000))
    plies = _Plies(match, deal_row, lease_token=None)
    _row, over = plies.add(state, deal, seat_row, ruling, action=dict(ACTIONS[ruling.action_id]), think_ms=think_ms)
    by_index = {row.index: row for row in seats}
    if not over:
        over = _house_answers(match, state, plies, by_index)
    up_next = None if over else by_index[state.to_play]
    person_next = up_next is not None and up_next.player.kind == Player.Kind.HUMAN and up_next.left_at is None
    try:
        plies.store(state, awaiting_human=person_next)
    except StalePly:  # the state is ahead of the log: dropped, never cached
        raise StalePly("that ply was just stored by another request (or the match ended); fetch the view "
                       "again") from None
    view = seat_view(snapshot=snapshot, seat=seat, seats=seats)  # the mover's next view, from the state in hand
    snapshot.keep()  # at the ply count just stored, before the row is read again
    if not over and not person_next:  # a bot, a stand-in or more house plies: the match task plays them
        match_wake(match_id=match_id, kinds={row.player.kind for row in seats})
    return MoveStored(match, view)  # the snapshot's copy: the progress just stored (``_Plies.store``), any finish


def _house_answers(match: Match, state: MatchState, plies: _Plies, seats: dict[int, Seat]) -> bool:
    """Play the house seats' turns that follow a person's move on ``state``, into ``plies`` (stored with the move, in
    its transaction): until a seat that is not an instant house strategy's is to play, the match ends, or ``plies``
    holds ``MATCH_BATCH_PLIES`` plies (the match task plays the rest). An instant house strategy (``STRATEGIES``)
    takes microseconds and asks nobody, so its answer costs the person's request less than a trip through the queue
    and a worker's read of the match (BENCHMARKS.md, "Speed for people"); its plies are deterministic
    (``strategy_rng``), exactly those the worker would play. A searching one (``expert``: tens of ms a decision)
    is left to the match task. ``seats``: the match's seats by index, players loaded. Returns whether the match is
    over."""
    while len(plies.plies) < settings.MATCH_BATCH_PLIES:
        seat_row = seats[state.to_play]
        if seat_row.player.kind != Player.Kind.HOUSE or seat_row.player.strategy not in STRATEGIES:
            return False
        deal = state.deal
        ruling, think_ms = _play_turn(match, state, seat_row, commitment=plies.row.commitment or None)
        _row, over = plies.add(state, deal, seat_row, ruling, action=ruling.action, think_ms=think_ms)
        if over:
            return True
    return False
