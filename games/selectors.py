"""Reads of matches, deals and moves (no writes here)."""

from __future__ import annotations

import copy as copy_module
import json
from dataclasses import dataclass
from datetime import timezone as dt_timezone
from functools import cached_property

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.engine import MatchState, Ruleset, replay
from games.models import Deal, Match, Player, Seat


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
    of the same instant, so the record always holds exactly ``match.ply_count`` plies."""

    match: Match
    record: dict

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
            .annotate(points_text=Cast("deals__points", TextField()), **as_text)
            .values_list(*_PROGRESS, *as_text, "deals__id", "deals__number", "deals__seed", "points_text",
                         "deals__moves__action"))
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
        deal_id, number, seed, points, action = row[head:]
        if deal_id is None:  # a match row without deals (never stored so, but read it as an empty log)
            last_deal = 0
            continue
        if deal_id != last_deal:
            last_deal = deal_id
            deals.append({"number": number, "seed": seed, "actions": []})
            if points is not None:
                deals[-1]["points"] = json.loads(points)
        if action is not None:
            deals[-1]["actions"].append(action)
    if last_deal is None:
        raise Match.DoesNotExist(f"no match {match.pk}")
    record = {"ruleset": match.ruleset, "engine_version": match.engine_version, "seats": match.seat_count,
              "seed": match.seed, "deals": deals}
    if match.single_deal_seed is not None:
        record["single_deal"] = {"seed": match.single_deal_seed, "dealer": match.single_deal_dealer}
    return MatchSnapshot(match=copy, record=record)


def match_record(*, match: Match) -> dict:
    """The engine record of a stored match (ruleset, engine version, seeds, every ply), for ``replay``; one
    consistent snapshot (``match_snapshot``)."""
    return match_snapshot(match=match).record


#: the ``format`` of an exported match record (docs/match-record.schema.json); bump on an incompatible change
RECORD_FORMAT = "eights-match-record/1"


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


def match_export(*, match: Match) -> dict:
    """The public match record of a FINISHED match (docs/MATCH_RECORD.md, docs/match-record.schema.json): the one
    conversion of a stored match used by ``GET /api/matches/<id>/record/`` and ``manage.py export_matches``.

    Shape: ``format``, ``match`` (id), ``preset``, ``ruleset``, ``engine_version``, ``seats`` (count), ``seed``
    (the match seed), ``single_deal`` (only for a one-deal replay), ``players`` (per seat: ``seat``, ``name``,
    ``kind``, ``total``, ``place``, ``forfeited``), ``deals`` (per deal: ``number``, ``seed``, ``code``,
    ``dealer``, ``actions``; once it ended ``outcome``, ``winner``, ``hand_values``, ``points``), ``result``
    (``totals``, ``places``, ``forfeited`` seat or null), ``created_at`` and ``finished_at`` (ISO 8601 UTC).
    ``python -m games.engine replay`` checks it offline.

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
    record = snapshot.record
    rows = {d.number: d for d in Deal.objects.filter(match_id=match.pk)}
    deals = []
    for entry in record["deals"]:
        row = rows[entry["number"]]
        deal = {"number": entry["number"], "seed": entry["seed"], "code": row.code, "dealer": row.dealer,
                "actions": entry["actions"]}
        if row.points is not None:
            deal.update(outcome=row.outcome, winner=row.winner, hand_values=row.hand_values, points=row.points)
        deals.append(deal)
    seats = list(Seat.objects.filter(match_id=match.pk).select_related("player").order_by("index"))
    forfeited = next((s.index for s in seats if s.forfeited), None)
    finished_at = snapshot.match.finished_at
    out = {"format": RECORD_FORMAT, "match": match.pk, "preset": match.preset, "ruleset": record["ruleset"],
           "engine_version": record["engine_version"], "seats": record["seats"], "seed": record["seed"]}
    if "single_deal" in record:
        out["single_deal"] = record["single_deal"]
    out.update(
        players=[{"seat": s.index, "name": s.player.name, "kind": s.player.kind, "total": s.total, "place": s.place,
                  "forfeited": s.forfeited} for s in seats],
        deals=deals,
        result={"totals": list(snapshot.match.totals), "places": [s.place for s in seats], "forfeited": forfeited},
        created_at=_iso(match.created_at), finished_at=_iso(finished_at))
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
    return {"match": match, "seats": seats, "public": public,
            "deals": match_deal_table(match=match, deals=deals, seats=seats, public=public)}


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
