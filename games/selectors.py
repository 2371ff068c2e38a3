"""Reads of matches, deals and moves (no writes here)."""

from __future__ import annotations

import copy as copy_module
import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from datetime import timezone as dt_timezone
from functools import cached_property
from itertools import islice
from typing import Iterator

from django.conf import settings
from django.db import connection
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.engine import Deal as EngineDeal
from games.engine import MatchState, Ruleset, referee, replay, replay_more
from games.engine.cards import SUIT_SYMBOLS, SUITS, describe_card, parse_card
from games.engine.frames import replay_frames
from games.engine.record import FORMAT_2
from games.models import Deal, Match, Move, Player, Seat
from games.record_signing import sign_record


#: The fields of a match row that change while it is played; a snapshot reads them with the log.
_PROGRESS = ("status", "ply_count", "deal_number", "awaiting_human")
_PROGRESS_TEXT = ("totals", "last_progress_at", "finished_at")  # read as text (see match_snapshot)


def _datetime(text: str | None):
    """A timestamp column read as text: PostgreSQL's ``2026-12-01 07:40:00.5+00``, SQLite's naive UTC."""
    if text is None:
        return None
    value = parse_datetime(text)
    return value if timezone.is_aware(value) else timezone.make_aware(value, dt_timezone.utc)


@dataclass
class MatchSnapshot:
    """A match as of one instant: ``match`` (a copy of the row, its progress fields as of that instant) and
    ``record`` (the engine record, ``replay``'s input: ruleset, seeds, every stored ply, finished deals' points) as
    of the same instant, so the record always holds exactly ``match.ply_count`` plies. A deal of the record carries
    its ``commitment`` (docs/FAIRNESS.md) when it has one; never its salt."""

    match: Match
    record: dict

    def commitment(self, number: int) -> str | None:
        """The commitment of deal ``number`` (1-based; public from the deal's start), None when it has none."""
        deals = self.record["deals"]
        return deals[number - 1].get("commitment") if 1 <= number <= len(deals) else None

    @cached_property
    def state(self) -> MatchState:
        """The engine state rebuilt from ``record`` (verifying it; ``ReplayMismatch`` when it does not replay)."""
        return replay(self.record)


def match_snapshot(*, match: Match) -> MatchSnapshot:
    """One consistent read of ``match``: its progress and its whole stored log in a single SELECT (match LEFT JOIN
    deals LEFT JOIN moves), which PostgreSQL and SQLite each answer from one snapshot, so a ply or a deal's end
    committed meanwhile is either wholly in it or wholly out. Takes no lock (never SQLite's write lock).

    ``match`` gives the fields that never change (ruleset, seats, seeds); ``Match.DoesNotExist`` if it is gone.
    """
    # The match's and the deal's columns repeat on every move's row: all but the cheapest are read as text and
    # decoded once (decoding them on every row cost more than the query).
    as_text = {f"{name}_text": Cast(name, TextField()) for name in _PROGRESS_TEXT}
    rows = (Match.objects.filter(pk=match.pk).order_by("deals__number", "deals__moves__ply")
            .annotate(points_text=Cast("deals__points", TextField()),
                      contributions_text=Cast("deals__contributions", TextField()), **as_text)
            .values_list(*_PROGRESS, *as_text, "deals__id", "deals__number", "deals__seed", "deals__key",
                         "contributions_text", "deals__commitment", "points_text", "deals__moves__action",
                         "deals__moves__ply", "deals__moves__seat", "deals__moves__contribution"))
    copy = copy_module.copy(match)
    deals: list[dict] = []
    last_deal = None
    head = len(_PROGRESS) + len(_PROGRESS_TEXT)
    for row in rows:
        if last_deal is None:
            for name, value in zip(_PROGRESS, row):
                setattr(copy, name, value)
            copy.totals = json.loads(row[len(_PROGRESS)])
            copy.last_progress_at, copy.finished_at = (_datetime(text) for text in row[len(_PROGRESS) + 1:head])
        deal_id, number, seed, key, contributions, commitment, points, action, ply, seat, offer = row[head:]
        if deal_id is None:  # a match row without deals (never stored so, but read it as an empty log)
            last_deal = 0
            continue
        if deal_id != last_deal:
            last_deal = deal_id
            deals.append(_deal_entry(number, seed, key, json.loads(contributions) if contributions else None))
            if commitment:
                deals[-1]["commitment"] = commitment
            if points is not None:
                deals[-1]["points"] = json.loads(points)
        if action is not None:
            deals[-1]["actions"].append(action)
            if offer:
                deals[-1].setdefault("offers", []).append([ply, seat, offer])
    if last_deal is None:
        raise Match.DoesNotExist(f"no match {match.pk}")
    return MatchSnapshot(match=copy, record={**record_head(match), "deals": deals})


def record_head(match: Match) -> dict:
    """The engine record's head of a stored match (``MatchState.record``'s keys but ``deals``): ``ruleset``,
    ``engine_version``, ``seats`` and what the match is dealt from: version 2 its ``secret`` and ``commitment`` (and
    the chosen ``seed`` it came from), version 1 its ``seed``, or a ``single_deal`` (``key`` or ``seed``, and
    ``dealer``). Secret facts: only for the engine, or for a record of a public match."""
    head = {"ruleset": match.ruleset, "engine_version": match.engine_version, "seats": match.seat_count}
    if match.single_deal_key:
        head["single_deal"] = {"key": match.single_deal_key, "dealer": match.single_deal_dealer}
    elif match.single_deal_seed is not None:
        head["single_deal"] = {"seed": match.single_deal_seed, "dealer": match.single_deal_dealer}
    else:
        if match.secret:
            head.update(secret=match.secret, commitment=match.commitment)
            if match.seating:
                head["seating"] = list(match.seating)
        if match.seed is not None:
            head["seed"] = match.seed
    return head


def _deal_entry(number: int, seed: int | None, key: str, contributions: list | None) -> dict:
    """A record's deal entry before its actions: its ``number`` and its ``key`` (version 2, with the seats'
    ``contributions`` to it when any seat gave one) or ``seed``. The service's own log adds ``offers`` (``[ply,
    seat, hex]``: the contributions its plies carried, for the next deal; ``MatchState.offer``)."""
    if not key:
        return {"number": number, "seed": seed, "actions": []}
    entry = {"number": number, "key": key, "actions": []}
    if contributions and any(contributions):
        entry["contributions"] = contributions
    return entry


class StateSnapshot:
    """A match as of one instant with its engine state (``match_state_snapshot``): ``match`` (a copy of the row, its
    progress fields as of that instant) and ``state`` (the engine state after exactly ``match.ply_count`` plies),
    which the caller owns: it may apply plies to it. ``commitment(number)`` as ``MatchSnapshot.commitment``, for the
    current deal and any deal after the cached state's, and for a deal stored after the read (a move that ended a
    deal: read from its row). ``keep()`` hands the state back to the per-process cache
    (``games.state_cache``) at ``match.ply_count`` plies: call it only while the state stands there (unchanged, or
    with every ply applied since stored and ``match.ply_count`` counting them), and touch the state no more."""

    def __init__(self, match: Match, state: MatchState, commitments: dict[int, str], key: tuple) -> None:
        self.match, self.state, self._commitments, self._key = match, state, commitments, key

    def commitment(self, number: int) -> str | None:
        if number not in self._commitments:  # a deal stored after the read: its row has it
            self._commitments[number] = Deal.objects.filter(match_id=self.match.pk, number=number).values_list(
                "commitment", flat=True).first() or ""
        return self._commitments[number] or None

    def keep(self) -> None:
        from games import state_cache

        if state_cache.plies_of(self.state) == self.match.ply_count:  # else a ply applied was never stored: drop it
            state_cache.put(self._key, self.state)


def seat_etag(match: Match, seat: int, waits_for: int | None, seats: list[Seat]) -> str:
    """The seat view's ETag: ``W/"<id>.<seat>.<ply>.<status>.<waits_for or None>.<digest>"``, the digest over what
    else the view shows: the seats' players (ids, names, users, guest flags: a guest who signs up takes the seat
    over, ``games.people.guests.guest_adopt``) and the move clock (``move_seconds`` and ``last_progress_at``, the
    deadline's parts). The view changes only when one of these does (places and forfeits come with the status)."""
    players = tuple((s.player_id, s.player.name, s.player.user_id, s.player.is_guest) for s in seats)
    moved = match.last_progress_at.timestamp() if match.last_progress_at else None
    digest = hashlib.blake2b(repr((players, match.move_seconds, moved)).encode(), digest_size=6).hexdigest()
    return f'W/"{match.pk}.{seat}.{match.ply_count}.{match.status}.{waits_for}.{digest}"'


def match_waits(*, match: Match) -> bool:
    """Whether ``match`` may not be played yet: its ``Match.after`` match is still running (one query; False at
    once when it has none). A match never goes back to running, so once False it stays False."""
    return match.after_id is not None and Match.objects.filter(pk=match.after_id,
                                                               status=Match.Status.RUNNING).exists()


def seat_waits_for(match: Match) -> int | None:
    """The match a running ``match`` waits for (``match_waits``: a duplicate set's earlier rotation), else None: the
    ``waits_for`` of the seat view and the watch page."""
    return match.after_id if match.status == Match.Status.RUNNING and match_waits(match=match) else None


def seat_view(*, snapshot: StateSnapshot, seat: int, seats: list[Seat]) -> dict:
    """The seat view (``GET /api/matches/<id>/seats/<seat>/``, docs/API.md) of ``seat`` in ``snapshot``: status, ply,
    whose turn, the move deadline, the seats, the deal's commitment, the legal actions and the seat's engine view
    (on its turn exactly the referee's ``Turn`` a bot in the seat would be given). ``seats``: the match's seats by
    index, players and users loaded, read with or before the snapshot (read again when the match ended since:
    places and forfeits are written with the end). While the match waits for its ``after`` match, no move is
    taken and the hand is hidden (it is the opponent's hand in the running match). Reads the snapshot's state and
    changes nothing: the caller keeps it (``StateSnapshot.keep``) afterwards."""
    match, state = snapshot.match, snapshot.state
    running = match.status == Match.Status.RUNNING and not state.is_over
    if not running and seats and seats[0].match.status == Match.Status.RUNNING:
        seats = list(match.seats.select_related("player__user").order_by("index"))  # it ended since they were read
    your_turn = running and state.to_play == seat
    deadline = match.last_progress_at + timedelta(seconds=match.move_clock_seconds) if your_turn else None
    seat_rows = [{"index": s.index, "name": s.player.name, "kind": s.player.kind,
                  "place": None if running else s.place,  # places and forfeits are written with the match's end
                  "owner": s.player.user.username if s.player.kind == "bot" and s.player.user else None,
                  "forfeited": s.forfeited and not running, "guest": s.player.is_guest} for s in seats]
    commitment = snapshot.commitment(state.deal_number)
    turn = referee.turn_for(state, match_id=match.pk, deadline_ms=match.move_clock_seconds * 1000,
                            commitment=commitment) if your_turn else None
    view = turn.view if turn else state.view(seat)
    waits_for = seat_waits_for(match) if running else None
    if waits_for is not None:
        your_turn, turn, deadline = False, None, None
        view = {**state.view(seat), "hand": []}
    abort_reason = "" if match.status != Match.Status.ABORTED else (  # never changes once written
        Match.objects.filter(pk=match.pk).values_list("abort_reason", flat=True).first() or "")
    return {"match_id": match.pk, "seat": seat, "status": match.status, "ply": match.ply_count,
            "waits_for": waits_for, "abort_reason": abort_reason, "your_turn": your_turn, "move_deadline": deadline,
            "seats": seat_rows, "deals_finished": len(state.results), "deal_number": state.deal_number,
            "commitment": commitment, "legal_actions": list(turn.legal_actions) if turn else [], "view": view}


def match_state_snapshot(*, match: Match) -> StateSnapshot:
    """One consistent read of ``match`` with its engine state, as ``match_snapshot`` but without replaying the whole
    log: the state cached in this process (``games.state_cache``) is brought up to date with only the plies stored
    after it (``games.engine.replay_more``), read with the match's progress and its current deals in a single
    SELECT (match LEFT JOIN deals from the cached state's deal on LEFT JOIN their moves after the cached ply), so a
    ply or a deal's end committed meanwhile is wholly in it or wholly out. With no cached state it replays the
    whole log (``match_snapshot``). The state always agrees with the log: the plies applied must come to the
    snapshot's ply count, else the state is thrown away and the log replayed; every ply is checked by the engine.

    Raises ``ReplayMismatch`` (a ``ValueError``) when the stored log does not replay, ``Match.DoesNotExist`` if the
    match is gone. Takes no lock.
    """
    from games import state_cache

    key = state_cache.key_of(match)
    state = state_cache.take(key)
    if state is not None:
        count = state_cache.plies_of(state)
        read = _match_tail(match, deal_number=state.deal_number, done=len(state.deal_ids[-1]))
        if read is not None:
            copy, deals, commitments = read
            applied = sum(len(d["actions"]) for d in deals)
            if count + applied == copy.ply_count:
                try:
                    return StateSnapshot(copy, replay_more(state, deals), commitments, key)
                except ValueError:
                    pass  # a log that does not follow the cached state: replay it whole (and raise there if bad)
    snapshot = match_snapshot(match=match)
    commitments = {d["number"]: d.get("commitment", "") for d in snapshot.record["deals"]}
    return StateSnapshot(snapshot.match, snapshot.state, commitments, key)


def _match_tail(match: Match, *, deal_number: int, done: int) -> tuple[Match, list[dict], dict[int, str]] | None:
    """The match's progress and the plies stored from ply ``done`` of deal ``deal_number`` on, in one SELECT: a copy
    of ``match`` with its progress fields, the deals from ``deal_number`` on (record entries: number, seed, actions
    after the first ``done`` of the first deal, points once finished) and their commitments by number. None when the
    match has no deal ``deal_number`` (not the match the state was cached for)."""
    m, d, mv = (connection.ops.quote_name(model._meta.db_table) for model in (Match, Deal, Move))
    progress = ", ".join(f"m.{name}" for name in _PROGRESS)
    texts = ", ".join(f"CAST(m.{name} AS TEXT)" for name in _PROGRESS_TEXT)
    sql = (f"SELECT {progress}, {texts}, d.number, d.seed, d.{connection.ops.quote_name('key')}, d.commitment, "
           f"CAST(d.points AS TEXT), CAST(d.contributions AS TEXT), "
           f"CAST(mv.action AS TEXT), mv.ply, mv.seat, mv.contribution FROM {m} m "
           f"LEFT JOIN {d} d ON d.match_id = m.id AND d.number >= %s "
           f"LEFT JOIN {mv} mv ON mv.deal_id = d.id AND (d.number > %s OR mv.ply >= %s) "
           f"WHERE m.id = %s ORDER BY d.number, mv.ply")
    with connection.cursor() as cursor:
        cursor.execute(sql, [deal_number, deal_number, done, match.pk])
        rows = cursor.fetchall()
    if not rows:
        raise Match.DoesNotExist(f"no match {match.pk}")
    copy = copy_module.copy(match)
    head = len(_PROGRESS) + len(_PROGRESS_TEXT)
    first = rows[0]
    for name, value in zip(_PROGRESS, first):
        setattr(copy, name, value)
    copy.awaiting_human = bool(copy.awaiting_human)  # SQLite answers 0/1 to a raw query
    copy.totals = json.loads(first[len(_PROGRESS)])
    copy.last_progress_at, copy.finished_at = (_datetime(text) for text in first[len(_PROGRESS) + 1:head])
    deals: list[dict] = []
    commitments: dict[int, str] = {}
    for row in rows:
        number, seed, key, commitment, points, contributions, action, ply, seat, offer = row[head:]
        if number is None:
            return None
        if not deals or deals[-1]["number"] != number:
            deals.append(_deal_entry(number, seed, key, json.loads(contributions) if contributions else None))
            commitments[number] = commitment
            if points is not None:
                deals[-1]["points"] = json.loads(points)
        if action is not None:
            deals[-1]["actions"].append(json.loads(action))
            if offer:
                deals[-1].setdefault("offers", []).append([ply, seat, offer])
    if deals[0]["number"] != deal_number:
        return None
    return copy, deals, commitments


def match_record(*, match: Match) -> dict:
    """The engine record of a stored match (ruleset, engine version, seeds, every ply), for ``replay``; one
    consistent snapshot (``match_snapshot``)."""
    return match_snapshot(match=match).record


#: the ``format`` of an exported match record (docs/match-record.schema.json); bump on an incompatible change
RECORD_FORMAT = FORMAT_2


class MatchNotFinished(Exception):
    """A record was asked of a match that is not public (``match_is_public``: running, aborted, or finished while a
    match dealt the same seeds runs): its seeds are secret."""


def match_is_public(*, match: Match) -> bool:
    """Whether the hidden information of ``match`` (its seeds, deal codes, hands, record and replay) may be shown to
    everyone: it is finished and no match of its ``reveal_group`` (the matches dealt the same seeds: a duplicate set)
    is running; a finished mirror would otherwise show the cards of the running one. ``match.status`` is taken as
    read (e.g. a snapshot's copy). Safe at any instant: a match never goes back to running, and a reveal group's
    matches are all created together, so a "public" answer never turns secret again."""
    if match.status != Match.Status.FINISHED:
        return False
    return not (match.reveal_group and Match.objects.filter(reveal_group=match.reveal_group,
                                                            status=Match.Status.RUNNING).exists())


def public_matches(queryset: QuerySet[Match]) -> QuerySet[Match]:
    """The matches of ``queryset`` that are public (``match_is_public``), in one query."""
    running_sibling = Match.objects.filter(reveal_group=OuterRef("reveal_group"), status=Match.Status.RUNNING)
    return queryset.filter(status=Match.Status.FINISHED).filter(Q(reveal_group="") | ~Exists(running_sibling))


def match_export(*, match: Match, sign: bool = True) -> dict:
    """The public match record of a FINISHED match (docs/MATCH_RECORD.md, docs/match-record.schema.json): the one
    conversion of a stored match used by ``GET /api/matches/<id>/record/``, ``manage.py export_matches`` and
    ``manage.py verify_matches`` (those two through ``match_exports``, in chunks).

    Shape: ``format``, ``match`` (id), ``preset``, ``ruleset``, ``engine_version``, ``seats`` (count), ``seed``
    (the match seed), ``single_deal`` (only for a one-deal replay), ``players`` (per seat: ``seat``, ``name``,
    ``kind``, ``total``, ``place``, ``forfeited``), ``deals`` (per deal: ``number``, ``seed``, ``code``,
    ``dealer``, ``actions``; ``salt`` and ``commitment`` (docs/FAIRNESS.md) unless it was dealt before
    commitments; once it ended ``outcome``, ``winner``, ``hand_values``, ``points``), ``result`` (``totals``,
    ``places``, ``forfeited`` seat or null), ``created_at`` and ``finished_at`` (ISO 8601 UTC).
    ``python -m games.engine replay`` checks it offline. Format 2 adds (docs/MATCH_RECORD.md) the ``seating``
    committed to (version 2), each player's ``player_id`` and ``max_faults``, each deal's ``faults`` (``[ply,
    kind]``, ply 1-based), and, with ``sign``, the service's ``signature`` (``games.record_signing``).

    Raises ``MatchNotFinished`` unless the match is public (``match_is_public``: finished, and no match dealt the same
    seeds still running; a running or aborted match's seeds stay secret), and ``Match.DoesNotExist`` when it is gone.
    Reads one snapshot of the log plus the deal and seat rows, which do not change once the match is finished.
    """
    snapshot = match_snapshot(match=match)
    if snapshot.match.status != Match.Status.FINISHED:
        raise MatchNotFinished(f"match {match.pk} is {snapshot.match.status}: its record is published once it is "
                               "finished")
    if not match_is_public(match=snapshot.match):
        raise MatchNotFinished(f"match {match.pk} is finished, but another match dealt the same cards (its duplicate "
                               "set) is still running: its record is published once that one is finished too")
    rows = {d.number: d for d in Deal.objects.filter(match_id=match.pk)}
    faults: dict[int, list] = {}
    for deal_id, ply, kind in Move.objects.filter(deal__match_id=match.pk).exclude(fault_kind="").order_by(
            "deal_id", "ply").values_list("deal_id", "ply", "fault_kind"):
        faults.setdefault(deal_id, []).append([ply + 1, kind])
    deals = [(rows[entry["number"]], entry["actions"], faults.get(rows[entry["number"]].pk, []))
             for entry in snapshot.record["deals"]]
    seats = list(Seat.objects.filter(match_id=match.pk).select_related("player").order_by("index"))
    record = _export(snapshot.match, deals, seats)
    return sign_record(record) if sign else record


def match_exports(*, matches: QuerySet[Match], chunk_size: int = 200, sign: bool = True) -> Iterator[dict]:
    """``match_export`` of every FINISHED match of ``matches``, in the queryset's order, read in chunks of
    ``chunk_size`` matches (four queries a chunk: matches, deals, moves, seats with players), so memory stays flat
    over any number of matches. Rows of a finished match never change, so each chunk is consistent; a match that
    is not finished (or is gone) when its chunk is read is skipped. ``sign=False`` leaves the signatures out (a
    check of the database itself, ``verify_matches``, has no use for them)."""
    ids = matches.values_list("id", flat=True).iterator(chunk_size=max(chunk_size, 100))
    while True:
        chunk = list(islice(ids, chunk_size))
        if not chunk:
            return
        found = Match.objects.in_bulk(chunk)
        finished = [found[i] for i in chunk if i in found and found[i].status == Match.Status.FINISHED]
        deals: dict[int, list[Deal]] = {}
        for deal in Deal.objects.filter(match_id__in=[m.pk for m in finished]).order_by("match_id", "number"):
            deals.setdefault(deal.match_id, []).append(deal)
        # each action read as JSON text and a deal's decoded in one json.loads: decoding row by row (the JSONField's
        # converter) was half the time of a whole verify_matches (BENCHMARKS.md)
        texts: dict[int, list[str]] = {}
        faults: dict[int, list] = {}
        for deal_id, text, ply, kind in (Move.objects.filter(deal_id__in=[d.pk for rows in deals.values() for d in rows])
                                         .order_by("deal_id", "ply").annotate(text=Cast("action", TextField()))
                                         .values_list("deal_id", "text", "ply", "fault_kind")):
            texts.setdefault(deal_id, []).append(text)
            if kind:
                faults.setdefault(deal_id, []).append([ply + 1, kind])
        actions = {deal_id: json.loads("[" + ",".join(parts) + "]") for deal_id, parts in texts.items()}
        seats: dict[int, list[Seat]] = {}
        for seat in (Seat.objects.filter(match_id__in=[m.pk for m in finished]).select_related("player")
                     .order_by("match_id", "index")):
            seats.setdefault(seat.match_id, []).append(seat)
        for match in finished:
            record = _export(match, [(d, actions.get(d.pk, []), faults.get(d.pk, [])) for d in deals.get(match.pk, [])],
                             seats.get(match.pk, []))
            yield sign_record(record) if sign else record
        del found, finished, deals, texts, actions, seats, faults  # before the next chunk: one chunk at a time


def _export(match: Match, deals: list[tuple[Deal, list, list]], seats: list[Seat]) -> dict:
    """The record of a finished ``match`` (its row as of one instant) from its deal rows, each with its actions in
    ply order and its faulted plies (``[ply, kind]``, 1-based), and its seats (index order) with their players: see
    ``match_export``."""
    out_deals = []
    for row, actions, faults in deals:
        deal = _deal_entry(row.number, row.seed, row.key, row.contributions)
        deal.update(code=row.code, dealer=row.dealer, actions=actions)
        # published with the match's end: the key (or salt) that opens the commitment shown all along (each on its
        # own, so a row that lost one of them is refused by the replay, not taken for a deal dealt before commitments)
        deal.update({k: v for k, v in (("salt", row.salt), ("commitment", row.commitment)) if v})
        if row.points is not None:
            deal.update(outcome=row.outcome, winner=row.winner, hand_values=row.hand_values, points=row.points)
        deal["faults"] = faults
        out_deals.append(deal)
    forfeited = next((s.index for s in seats if s.forfeited), None)
    limit = match.fault_limit or settings.BOT_MAX_CONSECUTIVE_FAULTS  # the fault policy: games.services._fault_policy
    head = record_head(match)
    out = {"format": RECORD_FORMAT, "match": match.pk, "preset": match.preset, "ruleset": head.pop("ruleset"),
           "engine_version": head.pop("engine_version"), "seats": head.pop("seats"), **head}
    out.update(
        players=[{"seat": s.index, "player_id": s.player_id, "name": s.player.name, "kind": s.player.kind,
                  "total": s.total, "place": s.place, "forfeited": s.forfeited,
                  "max_faults": None if s.player.kind == Player.Kind.HOUSE else limit} for s in seats],
        deals=out_deals,
        result={"totals": list(match.totals), "places": [s.place for s in seats], "forfeited": forfeited},
        created_at=_iso(match.created_at), finished_at=_iso(match.finished_at))
    return out


def _iso(value) -> str | None:
    return None if value is None else value.astimezone(dt_timezone.utc).isoformat().replace("+00:00", "Z")


def matches_for_export(*, since=None, ladder_slug: str | None = None) -> QuerySet[Match]:
    """Finished matches, oldest finish first (by id within one instant), optionally finished at or after ``since``
    (an aware datetime) and/or played for the ladder with slug ``ladder_slug``: the input of
    ``manage.py export_matches``."""
    qs = public_matches(Match.objects.all()).order_by("finished_at", "id")
    if since is not None:
        qs = qs.filter(finished_at__gte=since)
    if ladder_slug:
        qs = qs.filter(ladder_match__ladder__slug=ladder_slug)
    return qs


def match_fairness(*, match: Match) -> list[dict]:
    """The match page's fair-deal rows (docs/FAIRNESS.md), by deal: ``number`` and ``commitment`` (None for a deal
    dealt before commitments), plus the deal's ``key`` (engine version 2) or ``seed`` and ``salt`` (version 1) only
    when ``match`` (the row as the page read it) is public: a running or aborted match's keys, salts and seeds are
    never given. A deal started after the page's read
    adds only its commitment, which is public from its start. A finished match whose duplicate set still runs
    (``match_is_public``) keeps its seeds and salts too: they deal the running match's cards."""
    published = match_is_public(match=match)
    rows = Deal.objects.filter(match_id=match.pk).order_by("number").values_list("number", "commitment", "seed",
                                                                                  "salt", "key")
    return [{"number": number, "commitment": commitment or None,
             **(({"key": key} if key else {"seed": seed, "salt": salt or None}) if published else {})}
            for number, commitment, seed, salt, key in rows]


def deal_plays(*, code: str) -> list[Deal]:
    """Every play of the deal with this code whose match is public (``match_is_public``: a code is public only
    then), with the match's seats, oldest first. Empty when there is none."""
    return list(Deal.objects.filter(code=code.strip().upper(), match__in=public_matches(Match.objects.all()),
                                    points__isnull=False)
                .select_related("match").prefetch_related("match__seats__player").order_by("match_id", "number"))


def match_state(*, match: Match) -> MatchState:
    """Rebuild the engine state of a match from its stored log as of one instant (verifying seeds, plies and
    points). Use ``match_snapshot`` when the match's progress fields must agree with the state."""
    return match_snapshot(match=match).state


def match_seats_person(*, match_id: int) -> bool:
    """Whether a person (a player of kind human) sits in match ``match_id``: someone may be waiting for its bots."""
    return Seat.objects.filter(match_id=match_id, player__kind=Player.Kind.HUMAN).exists()


def match_seat_kinds(*, match_id: int) -> set[str]:
    """The kinds of the players seated in match ``match_id`` (``Player.Kind`` values: house, bot, human)."""
    return set(Seat.objects.filter(match_id=match_id).values_list("player__kind", flat=True))


def person_seat(*, match: Match, user, guest: Player | None = None) -> Seat | None:
    """The seat ``user`` sits in as a person (kind human), or the seat of ``guest`` (a session's guest player), or
    None. A bot's owner does not sit in the bot's seat: its user is the owner, but only the bot plays it
    (``Player.is_played_by``)."""
    if (user is None or not user.is_authenticated) and guest is not None and guest.is_guest:
        return match.seats.filter(player=guest).select_related("player").first()
    if user is None or not user.is_authenticated:
        return None
    return match.seats.filter(player__kind=Player.Kind.HUMAN, player__user=user).select_related("player").first()


def match_list(*, status: str | None = None) -> QuerySet[Match]:
    """Matches, newest first, with seats and players loaded (one query each)."""
    qs = Match.objects.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player__user")))
    if status:
        qs = qs.filter(status=status)
    return qs


def match_page(*, match_id: int) -> dict | None:
    """The match page's data as of one instant: ``match`` (the row), ``deals`` (``match_deal_table`` rows) and
    ``seats`` (index order, with players and their users). The deals and the match row come from one SELECT; the
    seats are read after it, and while that instant's match is running their places and forfeits (written with the
    match's end, which may have come since) are left out. None for an unknown match."""
    deals = list(Deal.objects.filter(match_id=match_id).select_related("match").order_by("number"))
    if not deals:  # every match has its first deal row from the start
        return None
    match = deals[0].match
    seats = list(Seat.objects.filter(match_id=match_id).select_related("player__user").order_by("index"))
    for seat in seats:
        seat.match = match
        if match.status == Match.Status.RUNNING:
            seat.place, seat.forfeited = None, False
    public = match_is_public(match=match)  # read after the match row: a sibling seen running may only have ended since
    page = {"match": match, "seats": seats, "public": public,
            "deals": match_deal_table(match=match, deals=deals, seats=seats, public=public)}
    if public:  # seeds are public once the match (and every match dealt the same cards) is finished, never before
        for row, hands in zip(page["deals"], match_starting_hands(match=match, deals=deals)):
            row["hands"] = hands
    return page


def match_starting_hands(*, match: Match, deals: list[Deal]) -> list[list[list[dict]]]:
    """Each seat's starting hand in each of ``deals`` (number order), dealt again by the engine from the deal's
    stored seed and dealer (``Deal.start``): per deal, per seat, the cards in code order as ``card_faces`` dicts.

    Only for a FINISHED match (a running match's seeds and hands are secret): raises ``MatchNotFinished`` otherwise.
    """
    if not match.is_finished:
        raise MatchNotFinished(f"match {match.pk} is {match.status}: its starting hands are shown once it is finished")
    ruleset = ruleset_of(match)
    return [[card_faces(EngineDeal.start(ruleset, match.seat_count, bytes.fromhex(deal.key) if deal.key else deal.seed,
                                         dealer=deal.dealer).hand(seat))
             for seat in range(match.seat_count)] for deal in deals]


_RED_SUITS = {"D", "H"}


def card_faces(codes: list[str]) -> list[dict]:
    """Cards as a page draws them (the play table's faces, static/js/table.js ``cardEl``): ``code``, ``rank``
    (text: "10" for T), ``suit`` (its symbol), ``colour`` (red or black) and ``words`` ("eight of hearts")."""
    return [{"code": code, "rank": "10" if code[0] == "T" else code[0],
             "suit": SUIT_SYMBOLS[SUITS.index(code[1])], "colour": "red" if code[1] in _RED_SUITS else "black",
             "words": describe_card(parse_card(code))} for code in codes]


def match_deal_table(*, match: Match, deals: list[Deal], seats: list[Seat], public: bool | None = None) -> list[dict]:
    """Per deal of ``deals`` (read with ``match`` at one instant, number order): number, code (only when the match
    is public, ``match_is_public``; ``public`` passes that answer when the caller has it), dealer, outcome, winner,
    points and the running totals after it."""
    if public is None:
        public = match_is_public(match=match)
    running = [0] * match.seat_count
    names = {seat.index: seat.player.name for seat in seats}
    rows = []
    for deal in deals:
        if deal.points is None:  # the deal being played, or the one a forfeit or abort cut off
            rows.append({"number": deal.number, "dealer": deal.dealer,
                         "outcome": "playing" if match.status == Match.Status.RUNNING else "cut off",
                         "winner": None, "points": None, "running": None, "plies": None,
                         "code": deal.code if public else None})
            continue
        running = [a + b for a, b in zip(running, deal.points)]
        rows.append({"number": deal.number, "dealer": deal.dealer, "outcome": deal.outcome, "winner": deal.winner,
                     "winner_name": names.get(deal.winner), "points": deal.points, "running": list(running), "plies": deal.plies,
                     "code": deal.code if public else None})
    return rows


def ruleset_of(match: Match) -> Ruleset:
    return Ruleset.from_dict(match.ruleset)


def running_tables(*, player, limit: int = 10) -> list[dict]:
    """The running matches where ``player`` (a person or a guest; None gives []) has a seat, newest first, at most
    ``limit``: ``[{"match": Match, "seat": int, "opponents": [name, ...]}]``, for the home page's way back to a table."""
    if player is None:
        return []
    seats = (Seat.objects.filter(player=player, match__status=Match.Status.RUNNING)
             .select_related("match").order_by("-match__created_at", "-match_id")[:limit])
    others = {}
    for seat in Seat.objects.filter(match_id__in=[s.match_id for s in seats]).exclude(player=player) \
            .select_related("player").order_by("index"):
        others.setdefault(seat.match_id, []).append(seat.player.name)
    return [{"match": s.match, "seat": s.index, "opponents": others.get(s.match_id, [])} for s in seats]


def match_replay(*, match: Match) -> dict:
    """The replay viewer's data of a FINISHED match (``/matches/<id>/replay/``): ``games.engine.frames.replay_frames``
    of its exported record (``match_export``: one snapshot of the log), with each ply's think time and fault, plus
    ``match`` (id), ``preset``, ``players`` (per seat: ``seat``, ``name``, ``kind``, ``badge``, ``label``, ``total``,
    ``place``, ``forfeited``) and ``result`` (``totals``, ``places``, ``forfeited``) as the export gives them.
    The replay is public: each fault's words are ``referee.public_fault_text``'s (never the bot's endpoint).

    Raises ``MatchNotFinished`` unless the match is finished (nothing of a running or aborted match is replayed),
    ``Match.DoesNotExist`` when it is gone. The moves' think times and faults are read after the snapshot: a
    finished match's moves never change.
    """
    record = match_export(match=match, sign=False)
    moves: list[list[dict]] = [[] for _ in record["deals"]]
    rows = (Move.objects.filter(deal__match_id=match.pk).order_by("deal__number", "ply")
            .values_list("deal__number", "source", "fault_kind", "fault", "think_ms"))
    for number, source, fault_kind, fault, think_ms in rows:
        if 0 < number <= len(moves):
            moves[number - 1].append({"source": source, "fault_kind": fault_kind,
                                      "fault": referee.public_fault_text(fault_kind, fault),
                                      "think_ms": think_ms})
    frames = replay_frames(record, moves)
    players = {s.index: s.player for s in Seat.objects.filter(match_id=match.pk).select_related("player")}
    frames.update(match=match.pk, preset=record["preset"], result=record["result"], players=[
        {**p, "badge": players[p["seat"]].badge, "label": players[p["seat"]].label} for p in record["players"]])
    return frames
