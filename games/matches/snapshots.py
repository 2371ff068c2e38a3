"""One consistent read of a stored match: its progress and its log in one SELECT (``match_snapshot``), or brought up
to date from the state this process cached (``match_state_snapshot``). No writes, no locks."""

from __future__ import annotations

import copy as copy_module
import json
from dataclasses import dataclass
from datetime import timezone as dt_timezone
from functools import cached_property

from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from eights_engine import MatchState, Ruleset, replay, replay_more
from games.models import Deal, Match, Move


#: The fields of a match row that change while it is played; a snapshot reads them with the log.
_PROGRESS = ("status", "ply_count", "deal_number", "awaiting_human")
_PROGRESS_TEXT = ("totals", "last_progress_at", "finished_at")  # read as text (see match_snapshot)


def text_datetime(text: str | None):
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
    deal_ids: dict[int, int] | None = None  # the deals' row ids by number
    identity: tuple | None = None  # the row's (id, commitment, seed, created_at) as read: ``state_cache.key_of``'s

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
                         "deals__moves__ply", "deals__moves__seat", "deals__moves__contribution",
                         "commitment", "seed", "created_at"))
    copy = copy_module.copy(match)
    deals: list[dict] = []
    deal_ids: dict[int, int] = {}
    last_deal = None
    head = len(_PROGRESS) + len(_PROGRESS_TEXT)
    identity = None
    for row in rows:
        if last_deal is None:
            for name, value in zip(_PROGRESS, row):
                setattr(copy, name, value)
            copy.totals = json.loads(row[len(_PROGRESS)])
            copy.last_progress_at, copy.finished_at = (text_datetime(text) for text in row[len(_PROGRESS) + 1:head])
            identity = (match.pk, *row[-3:])
        deal_id, number, seed, key, contributions, commitment, points, action, ply, seat, offer = row[head:-3]
        if deal_id is None:  # a match row without deals (never stored so, but read it as an empty log)
            last_deal = 0
            continue
        if deal_id != last_deal:
            last_deal = deal_id
            deals.append(_deal_entry(number, seed, key, json.loads(contributions) if contributions else None))
            deal_ids[number] = deal_id
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
    return MatchSnapshot(match=copy, record={**record_head(match), "deals": deals}, deal_ids=deal_ids,
                         identity=identity)


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

    def __init__(self, match: Match, state: MatchState, commitments: dict[int, str], key: tuple,
                 deal_ids: dict[int, int] | None = None) -> None:
        self.match, self.state, self._commitments, self._key = match, state, commitments, key
        self._deal_ids = deal_ids or {}

    def deal_start(self, number: int) -> int:
        """The match's ply count before the first ply of deal ``number`` (1-based, a deal of the state)."""
        return sum(len(ids) for ids in self.state.deal_ids[:number - 1])

    def deal_row(self, number: int) -> Deal:
        """The row of deal ``number`` as far as storing plies needs it (id, match, number, commitment): built from
        the snapshot's read when it read that deal, else read (one query). ``Deal.DoesNotExist`` when there is
        none."""
        pk = self._deal_ids.get(number)
        if pk is None:
            return Deal.objects.get(match_id=self.match.pk, number=number)
        return Deal(pk=pk, match_id=self.match.pk, number=number, commitment=self.commitment(number) or "")

    def commitment(self, number: int) -> str | None:
        if number not in self._commitments:  # a deal stored after the read: its row has it
            self._commitments[number] = Deal.objects.filter(match_id=self.match.pk, number=number).values_list(
                "commitment", flat=True).first() or ""
        return self._commitments[number] or None

    def keep(self) -> None:
        from games import state_cache

        if state_cache.plies_of(self.state) == self.match.ply_count:  # else a ply applied was never stored: drop it
            state_cache.put(self._key, self.state)


def match_state_snapshot(*, match: Match, watch: int = 0, same_match: bool = False) -> StateSnapshot:
    """One consistent read of ``match`` with its engine state, as ``match_snapshot`` but without replaying the whole
    log: the state cached in this process (``games.state_cache``) is brought up to date with only the plies stored
    after it (``eights_engine.replay_more``), read with the match's progress and its current deals in a single
    SELECT (match LEFT JOIN deals from the cached state's deal on LEFT JOIN their moves after the cached ply), so a
    ply or a deal's end committed meanwhile is wholly in it or wholly out. With no cached state it replays the
    whole log (``match_snapshot``). The state always agrees with the log: the plies applied must come to the
    snapshot's ply count, else the state is thrown away and the log replayed; every ply is checked by the engine.

    ``watch`` > 0 has the state keep the last ``watch`` plies as everyone saw them (``MatchState.watch``), from the
    plies it is brought up to date with on (a whole replay keeps none: it starts watching at its end).

    ``same_match``: the row must still be the match ``match`` was read as (its commitment, seed and creation time,
    read in the same SELECT), else ``Match.DoesNotExist``: a holder of an old row (a live feed) learns that the id
    was handed out again (a restored backup, a flush with its sequences reset) without a query of its own.

    Raises ``ReplayMismatch`` (a ``ValueError``) when the stored log does not replay, ``Match.DoesNotExist`` if the
    match is gone. Takes no lock.
    """
    from games import state_cache

    key = state_cache.key_of(match)
    state = state_cache.take(key)
    if state is not None:
        if watch:
            state.watch(watch)
        count = state_cache.plies_of(state)
        read = _match_tail(match, deal_number=state.deal_number, done=len(state.deal_ids[-1]))
        if read is not None:
            copy, deals, commitments, deal_ids, identity = read
            if same_match and identity != key:
                raise Match.DoesNotExist(f"no match {match.pk} (its id was handed out again)")
            applied = sum(len(d["actions"]) for d in deals)
            if count + applied == copy.ply_count:
                try:
                    return StateSnapshot(copy, replay_more(state, deals), commitments, key, deal_ids)
                except ValueError:
                    pass  # a log that does not follow the cached state: replay it whole (and raise there if bad)
    snapshot = match_snapshot(match=match)
    if same_match and snapshot.identity != key:
        raise Match.DoesNotExist(f"no match {match.pk} (its id was handed out again)")
    commitments = {d["number"]: d.get("commitment", "") for d in snapshot.record["deals"]}
    if watch:
        snapshot.state.watch(watch)
    return StateSnapshot(snapshot.match, snapshot.state, commitments, key, snapshot.deal_ids)


def _match_tail(match: Match, *, deal_number: int,
                done: int) -> tuple[Match, list[dict], dict[int, str], dict[int, int], tuple] | None:
    """The match's progress and the plies stored from ply ``done`` of deal ``deal_number`` on, in one SELECT: a copy
    of ``match`` with its progress fields, the deals from ``deal_number`` on (record entries: number, seed, actions
    after the first ``done`` of the first deal, points once finished), their commitments and row ids by number, and
    the row's identity as read (``state_cache.key_of``'s shape). None when the match has no deal ``deal_number``
    (not the match the state was cached for)."""
    m, d, mv = (connection.ops.quote_name(model._meta.db_table) for model in (Match, Deal, Move))
    progress = ", ".join(f"m.{name}" for name in _PROGRESS)
    texts = ", ".join(f"CAST(m.{name} AS TEXT)" for name in _PROGRESS_TEXT)
    sql = (f"SELECT {progress}, {texts}, d.id, d.number, d.seed, d.{connection.ops.quote_name('key')}, d.commitment, "
           f"CAST(d.points AS TEXT), CAST(d.contributions AS TEXT), "
           f"CAST(mv.action AS TEXT), mv.ply, mv.seat, mv.contribution, m.commitment, m.seed, "
           f"CAST(m.created_at AS TEXT) FROM {m} m "
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
    copy.last_progress_at, copy.finished_at = (text_datetime(text) for text in first[len(_PROGRESS) + 1:head])
    identity = (match.pk, first[-3], first[-2], text_datetime(first[-1]))
    deals: list[dict] = []
    commitments: dict[int, str] = {}
    deal_ids: dict[int, int] = {}
    for row in rows:
        deal_id, number, seed, key, commitment, points, contributions, action, ply, seat, offer = row[head:-3]
        if number is None:
            return None
        if not deals or deals[-1]["number"] != number:
            deals.append(_deal_entry(number, seed, key, json.loads(contributions) if contributions else None))
            commitments[number] = commitment
            deal_ids[number] = deal_id
            if points is not None:
                deals[-1]["points"] = json.loads(points)
        if action is not None:
            deals[-1]["actions"].append(json.loads(action))
            if offer:
                deals[-1].setdefault("offers", []).append([ply, seat, offer])
    if deals[0]["number"] != deal_number:
        return None
    return copy, deals, commitments, deal_ids, identity


def match_record(*, match: Match) -> dict:
    """The engine record of a stored match (ruleset, engine version, seeds, every ply), for ``replay``; one
    consistent snapshot (``match_snapshot``)."""
    return match_snapshot(match=match).record


def match_state(*, match: Match) -> MatchState:
    """Rebuild the engine state of a match from its stored log as of one instant (verifying seeds, plies and
    points). Use ``match_snapshot`` when the match's progress fields must agree with the state."""
    return match_snapshot(match=match).state


def ruleset_of(match: Match) -> Ruleset:
    return Ruleset.from_dict(match.ruleset)
