"""What of a match is public and when (``match_is_public``), and the public match record (``match_export``,
docs/MATCH_RECORD.md) that the API, ``export_matches`` and ``verify_matches`` give."""

from __future__ import annotations

import json
from datetime import timezone as dt_timezone
from itertools import islice
from typing import Iterator

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet, TextField
from django.db.models.functions import Cast

from eights_engine.record import FORMAT_2
from games.matches.snapshots import _deal_entry, match_snapshot, record_head
from games.models import Deal, Match, Move, Player, Seat
from games.record_signing import sign_record


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
    ``python -m eights_engine replay`` checks it offline. Format 2 adds (docs/MATCH_RECORD.md) the ``seating``
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
