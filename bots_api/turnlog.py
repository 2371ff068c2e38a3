"""The turn log: every turn call of a bot, as the bot saw it, for its owner only.

Written by the bot agent (``bots_api.agent.bot_agent``) right after each call, outside any transaction, one INSERT
per turn (BENCHMARKS.md, "Turn log"). A row holds what went over the wire: the exact request body (the seat's own
view: nothing the bot was not sent), the raw reply (cut at ``TURN_LOG_REPLY_MAX_BYTES``), the HTTP status, the round
trip (ms) and the bot's optional ``debug`` note with a warning when it was bad (``protocol.reply_debug``).

The fault and the action played are read from the stored move at the same match, deal and ply
(``turns_with_moves``), not copied: the referee decides an illegal action after the call, and the move is the
match record's own truth, so the log cannot disagree with a replay. One query joins a whole page.

Reads go through ``bots_api.selectors.access_bot`` first (another owner's bot is a 404 like a missing one); the
``debug`` string and the request are never shown anywhere else, and a match's turns only once the match is public
(finished, with its duplicate set): while it runs, the bot's cards are the bot's alone, its owner's included. Rows older than ``TURN_LOG_DAYS`` are deleted by
``turn_log_prune`` (Celery beat ``bots_api.tasks.prune_turn_logs``, and ``manage.py prune_turn_logs``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Iterator

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination

from bots_api.models import Bot, BotTurn
from eights_engine.bots.protocol import FAULT_KINDS, reply_contribution, reply_debug
from games.browse import BadFilter
from games.models import Match, Move
from games.matches.exports import public_matches

#: ``fault=`` also takes ``any`` (a turn with any fault) and ``none`` (a turn whose answer stood).
FAULT_FILTERS = FAULT_KINDS + ("any", "none")
#: Rows the NDJSON download reads per query (its memory stays bounded whatever the log's size).
EXPORT_BATCH = 500


def _text(data: bytes | str) -> str:
    """Bytes as text for a PostgreSQL text column: UTF-8 (invalid bytes replaced), NUL (which text cannot hold)
    replaced by U+FFFD."""
    text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
    return text.replace("\x00", "\ufffd")


def turn_log_record(*, bot: Bot, turn, trace: dict, think_ms: int, warning: str = "") -> BotTurn | None:
    """Store one turn call of ``bot``: ``turn`` the referee's ``Turn`` it answered (match, deal, ply, seat),
    ``trace`` what ``bot_calls.post_signed`` saw (``request``, and ``status``, ``reply``, ``json`` once an answer
    came), ``think_ms`` the round trip (ms), ``warning`` one more warning for the owner (the service's: e.g. a
    contribution it did not take). Returns the row, or None when no request was sent (nothing to log)."""
    raw = trace.get("request")
    if raw is None or turn.match_id is None:
        return None
    reply = trace.get("reply") or b""
    cap = settings.TURN_LOG_REPLY_MAX_BYTES
    debug, debug_warning = reply_debug(trace.get("json"))
    _contribution, contribution_warning = reply_contribution(trace.get("json"))
    warning = "; ".join(w for w in (debug_warning, contribution_warning, warning) if w)
    row = BotTurn(bot=bot, match_id=turn.match_id, deal_number=turn.deal_number, ply=turn.ply, seat=turn.seat,
                  request=_text(raw), reply=_text(reply[:cap]), reply_bytes=len(reply), status=trace.get("status"),
                  latency_ms=max(0, int(think_ms or 0)), debug=_text(debug), warning=warning[:200])
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # The commit does not wait for the WAL flush (~4 ms a turn on this machine, BENCHMARKS.md): a crash may
            # lose the last few logged turns, never a move (the match's own transactions keep synchronous commit).
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        row.save(force_insert=True)
    return row


class BadTurnFilter(BadFilter):
    """A filter of the turn log that is malformed: 400 ``invalid_filter``, saying which parameter and what it takes
    (the match list's ``BadFilter``, the same error shape)."""


@dataclass(frozen=True)
class TurnFilters:
    """A checked turn log query: ``match`` (id), ``deal`` (number, 1-based), ``ply`` (0-based), ``fault`` (a fault
    kind, ``any`` or ``none``); None where not given."""

    match: int | None = None
    deal: int | None = None
    ply: int | None = None
    fault: str | None = None


def _whole(params, name: str, minimum: int, what: str) -> int | None:
    value = params.get(name) or ""
    value = value.strip() if isinstance(value, str) else ""
    if not value:
        return None
    if not re.fullmatch(r"[0-9]{1,18}", value) or int(value) < minimum:
        raise BadTurnFilter(name, f"{value[:40]!r} is not {what}: give a whole number, {minimum} or more")
    return int(value)


def check_turn_filters(params) -> TurnFilters:
    """The filters of a turn log query (a QueryDict or dict of strings): ``match`` (a match id), ``deal`` (a deal
    number, 1 or more), ``ply`` (0 or more; with ``deal``), ``fault`` (one of ``FAULT_FILTERS``). Empty values
    count as absent. Raises ``BadTurnFilter`` naming the first bad parameter."""
    match = _whole(params, "match", 1, "a match id")
    deal = _whole(params, "deal", 1, "a deal number")
    ply = _whole(params, "ply", 0, "a ply number")
    if deal is not None and match is None:
        raise BadTurnFilter("deal", "a deal number is within a match: give match too, e.g. ?match=12&deal=2")
    if ply is not None and deal is None:
        raise BadTurnFilter("ply", "a ply number is within a deal: give match and deal too, e.g. "
                                   "?match=12&deal=2&ply=5")
    fault = params.get("fault") or ""
    fault = fault.strip() if isinstance(fault, str) else ""
    if fault and fault not in FAULT_FILTERS:
        raise BadTurnFilter("fault", f"{fault[:40]!r} is not a fault kind: use one of {', '.join(FAULT_FILTERS)}")
    return TurnFilters(match=match, deal=deal, ply=ply, fault=fault or None)


def _moves_at(**where) -> QuerySet[Move]:
    return Move.objects.filter(deal__match_id=OuterRef("match_id"), deal__number=OuterRef("deal_number"),
                               ply=OuterRef("ply"), **where)


def bot_turns(*, bot: Bot, filters: TurnFilters = TurnFilters()) -> QuerySet[BotTurn]:
    """``bot``'s logged turns that ``filters`` select (a bot the caller may see: ``selectors.access_bot``), in no
    order yet (``TurnCursorPagination`` orders and cuts them). Only turns of matches that are public
    (``games.matches.exports.match_is_public``: finished, and no match dealt the same seeds still running): the owner sees
    no more of a running match than anyone else. The fault filter reads the stored move (an ``EXISTS`` on the
    move's unique (deal, ply) index)."""
    # only turns of public matches: while a match runs (or a match dealt the same seeds does) the bot's hand is the
    # bot's alone, its owner included (DESIGN.md); a correlated EXISTS, so a page still reads ~page_size rows
    qs = BotTurn.objects.filter(bot=bot).filter(Exists(public_matches(Match.objects.filter(pk=OuterRef("match_id")))))
    if filters.match is not None:
        qs = qs.filter(match_id=filters.match)
    if filters.deal is not None:
        qs = qs.filter(deal_number=filters.deal)
    if filters.ply is not None:
        qs = qs.filter(ply=filters.ply)
    if filters.fault == "any":
        qs = qs.filter(Exists(_moves_at().exclude(fault_kind="")))
    elif filters.fault == "none":
        qs = qs.filter(Exists(_moves_at(fault_kind="")))
    elif filters.fault:
        qs = qs.filter(Exists(_moves_at(fault_kind=filters.fault)))
    return qs


def turns_with_moves(turns: list[BotTurn]) -> list[BotTurn]:
    """``turns`` with ``move`` set on each (the stored ``Move`` at its match, deal and ply: the action played, its
    source, fault and fault kind; None when the ply was not stored from this call). One query for them all."""
    if not turns:
        return turns
    moves = {}
    wanted = {(t.match_id, t.deal_number, t.ply) for t in turns}
    rows = (Move.objects.filter(deal__match_id__in={m for m, _d, _p in wanted},
                                ply__in={p for _m, _d, p in wanted})
            .values_list("deal__match_id", "deal__number", "ply", "seat", "action", "source", "fault", "fault_kind"))
    for match_id, number, ply, seat, action, source, fault, kind in rows:
        if (match_id, number, ply) in wanted:
            moves[(match_id, number, ply, seat)] = {"action": action, "source": source, "fault": fault,
                                                    "fault_kind": kind}
    for turn in turns:
        turn.move = moves.get((turn.match_id, turn.deal_number, turn.ply, turn.seat))
    return turns


def turn_as_dict(turn: BotTurn) -> dict:
    """One turn as the API, the page and the download show it to the bot's owner (``request`` and ``reply`` parsed
    when they are JSON, else the text as stored)."""
    move = getattr(turn, "move", None)
    return {"id": turn.pk, "match": turn.match_id, "deal": turn.deal_number, "ply": turn.ply, "seat": turn.seat,
            "at": turn.created_at.isoformat().replace("+00:00", "Z"), "latency_ms": turn.latency_ms,
            "status": turn.status, "request": _json_or_text(turn.request), "reply": _json_or_text(turn.reply),
            "reply_bytes": turn.reply_bytes, "reply_cut": turn.reply_bytes > len(turn.reply.encode()),
            "debug": turn.debug, "debug_warning": turn.warning, "played": move["action"] if move else None,
            "source": move["source"] if move else None, "fault_kind": move["fault_kind"] if move else None,
            "fault": move["fault"] if move else None}


def _json_or_text(text: str):
    if not text:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


class TurnCursorPagination(CursorPagination):
    """Keyset pages of a bot's turn log, newest first by id: ``page_size`` 1 to 100 (25 by default); ``cursor`` from a
    page's ``next``/``previous`` link. A cursor that is not one of ours is a 400 ``invalid_filter``."""

    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 100
    ordering = "-id"
    page_size_query_description = "turns per page, 1 to 100 (default 25)"
    cursor_query_description = "the position in the log: take it from a page's next or previous link"

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            cursor = None
        else:
            if cursor is None or cursor.position is None or re.fullmatch(r"[0-9]{1,18}", cursor.position):
                return cursor
        raise BadTurnFilter("cursor", "this is not a cursor of the turn log: follow a page's next or previous link "
                                      "(or leave cursor out for the first page)")


def turns_ndjson(*, bot: Bot, filters: TurnFilters = TurnFilters()) -> Iterator[bytes]:
    """The selected turns of ``bot``, oldest first, one JSON object a line (``turn_as_dict``), read ``EXPORT_BATCH``
    rows at a time by keyset (memory stays bounded: a streaming response sends each batch as it is read)."""
    last = 0
    while True:
        batch = list(bot_turns(bot=bot, filters=filters).filter(id__gt=last).order_by("id")[:EXPORT_BATCH])
        if not batch:
            return
        turns_with_moves(batch)
        yield b"".join(json.dumps(turn_as_dict(t), separators=(",", ":")).encode() + b"\n" for t in batch)
        last = batch[-1].pk


#: Rows one DELETE of the pruning removes: short transactions, whatever the backlog.
PRUNE_BATCH = 5000


def turn_log_prune(*, now=None) -> int:
    """Delete logged turns older than ``TURN_LOG_DAYS`` days (from ``now``, default the present), ``PRUNE_BATCH``
    rows per statement (by the ``created_at`` index); returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.TURN_LOG_DAYS)
    total = 0
    while True:
        ids = list(BotTurn.objects.filter(created_at__lt=cutoff).values_list("id", flat=True)[:PRUNE_BATCH])
        if not ids:
            return total
        total += BotTurn.objects.filter(id__in=ids).delete()[0]


def replay_turn_tool(*, match, user) -> list[dict]:
    """The replay viewer's "what my bot saw here" (``games.hooks.replay_tools``): for each seat of ``match`` played by one
    of ``user``'s bots, the turn log URL the page's script fetches with ``match``, ``deal`` and ``ply`` (one query)."""
    from django.urls import reverse

    from games.models import Seat

    rows = (Seat.objects.filter(match=match, player__bot__owner=user)
            .values_list("index", "player__bot__id", "player__name"))
    return [{"seat": index, "url": reverse("api-bot-turns", kwargs={"bot_id": bot_id}),
             "page": reverse("bot-turns", kwargs={"bot_id": bot_id}), "label": f"What {name} saw here"}
            for index, bot_id, name in rows]
