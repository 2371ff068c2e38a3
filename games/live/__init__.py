"""Live: what anyone may see of a match while it is played (the public view, the public plies), and the events that
push each stored ply to watchers (docs/LIVE.md).

The public view never holds a hand, the stock's order, or a seed, code or salt of an unfinished deal: it is built
from the engine state with only the facts every seat sees (top card, suit to follow, hand and pile sizes, the public
history, totals). A match of a duplicate set (``Match.reveal_group``) is refused until its set is public
(``selectors.match_is_public``): its plies tell the cards of the set's other matches.

Publishing: whoever stores plies calls ``ply_stored(match_id=..., ply_count=...)`` inside the storing transaction,
once per commit; it publishes after the commit (``transaction.on_commit``), on Redis pub/sub when ``LIVE_REDIS_URL``
is set (a wake-up only: the database stays the source of truth), and does nothing else without Redis (streams then
poll the match's ply count).
"""

from __future__ import annotations

import json
import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction

from eights_engine import PublicPly
from eights_engine.match import start_from_record
from games.models import Deal, Match, Move, Player, Seat
from games.matches.exports import match_is_public
from games.matches.snapshots import match_snapshot, match_state_snapshot, text_datetime

log = logging.getLogger(__name__)

#: the kinds of history entry that are plies (the others, penalty and reshuffle, ride along with a ply)
_PLY_KINDS = ("play", "draw", "pass", "declare", "announce")


class MatchHidden(Exception):
    """The match may not be watched (yet): a duplicate set's match before its whole set is public."""


def check_watchable(*, match: Match) -> None:
    """Raise ``MatchHidden`` when ``match`` (a row read now) belongs to a duplicate set (``reveal_group``) that is not
    public yet: its plies would tell the cards of the set's other matches (same seeds, seats rotated)."""
    if match.reveal_group and not match_is_public(match=match):
        raise MatchHidden(f"match {match.pk} is part of a duplicate set (the same cards dealt to other seats in other "
                          "matches): it can be watched as a replay once every match of the set is finished")


def etag(*, match_id: int, ply: int, status: str) -> str:
    """The public view's ETag: ``W/"<id>.<ply>.<status>"`` (a weak tag: equal views, not equal bytes)."""
    return f'W/"{match_id}.{ply}.{status}"'


def match_progress(*, match_id: int) -> tuple[int, str, str] | None:
    """``(ply_count, status, reveal_group)`` of a match in one small query (the ETag check and the stream's poll);
    None when there is no such match."""
    return Match.objects.filter(pk=match_id).values_list("ply_count", "status", "reveal_group").first()


def _iso(value) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _seats(match: Match) -> list[dict]:
    return [{"index": s.index, "name": s.player.name, "kind": s.player.kind, "guest": s.player.is_guest}
            for s in Seat.objects.filter(match_id=match.pk).select_related("player").order_by("index")]


def _ply_dict(ply: int, deal_number: int, seat: int, action: dict, entries: list[dict], meta: dict | None) -> dict:
    """A public ply (docs/LIVE.md): never which card was drawn, only how many."""
    out = {"ply": ply, "deal_number": deal_number, "seat": seat, "type": action.get("type")}
    if action.get("type") == "play":
        out["card"] = action["card"]
    if "suit" in action:
        out["suit"] = action["suit"]
    out["drew"] = sum(e.get("count", 1) if e["type"] == "draw" else e["count"] if e["type"] == "penalty" else 0
                      for e in entries)
    out["source"] = (meta or {}).get("source", "agent")
    out["fault_kind"] = (meta or {}).get("fault_kind", "")
    out["log"] = entries
    return out


class _Timeline:
    """The public views and plies of one snapshot of a match: ``public`` dresses the engine's public view
    (``MatchState.public_view``) with the service's facts (status, seats, the clock, the replay's address)."""

    def __init__(self, match: Match, seats: list[dict], moves: list[dict]):
        self.match, self.seats, self.moves = match, seats, moves
        self.kinds = [s["kind"] for s in seats]
        self.history: list[dict] = []  # the current deal's public plies as of the last ply walked

    def public(self, view: dict, ply: int, history: list[dict], since) -> dict:
        """The public view after ``ply`` plies from the engine's (``MatchState.public_view(history=False)`` as of
        then) and ``history``, that deal's public plies."""
        match = self.match
        last = ply == match.ply_count
        status = match.status if last else Match.Status.RUNNING
        to_play = view["to_play"] if status == Match.Status.RUNNING else None
        deadline = None
        if to_play is not None and self.kinds[to_play] == Player.Kind.HUMAN and since is not None:
            deadline = _iso(since + timedelta(seconds=match.move_clock_seconds))
        return {"match_id": match.pk, "status": status, "ply": ply, "deal_number": view["deal_number"],
                "dealer": view["dealer"], "to_play": to_play, "top_card": view["top_card"],
                "suit_to_follow": view["active_suit"], "hand_counts": view["hand_counts"],
                "stock_size": view["stock_count"], "discard_size": view["discard_count"], "totals": view["totals"],
                "seats": self.seats, "history": list(history),
                "clock": {"to_play_since": _iso(since), "move_deadline": deadline},
                "replay_url": (f"/matches/{match.pk}/replay/"
                               if last and match_is_public(match=match) else None)}

    def note(self, ply: int, deal_number: int, seat: int, action: dict, entries: list[dict],
             dealt_next: bool) -> dict:
        """The ply dict of ply ``ply`` (its deal, seat, action and the public entries it added), added to the current
        deal's ``history`` (emptied when it ended the deal and the next was dealt: ``dealt_next``)."""
        meta = self.moves[ply - 1] if ply - 1 < len(self.moves) else None
        out = _ply_dict(ply, deal_number, seat, action, entries, meta)
        self.history.append(out)
        if dealt_next:
            self.history = []
        return out

    def event(self, ply: PublicPly) -> tuple[dict, dict]:
        """``(ply dict, public view after it)`` of one ply as everyone saw it, after the plies walked before it."""
        out = self.note(ply.ply, ply.deal_number, ply.seat, ply.action, ply.entries,
                        ply.view["deal_number"] != ply.deal_number)
        meta = self.moves[ply.ply - 1] if ply.ply - 1 < len(self.moves) else None
        since = self.match.last_progress_at if ply.ply == self.match.ply_count else (meta or {}).get("at")
        return out, self.public(ply.view, ply.ply, self.history, since)

    def walk(self, record: dict, after: int):
        """Replay ``record`` (the snapshot's) and yield ``(ply dict, public view after it)`` for every ply after
        ``after`` (a ply count), in order; ``history`` ends as the current deal's public plies. The plies up to
        ``after`` are only noted (for the deal's history): no public view is built for them."""
        state = start_from_record(record)
        count = 0
        for stored in record["deals"]:
            for action in stored["actions"]:
                count += 1
                if count > after:
                    state.watch(1)  # from here on each ply's public view is wanted
                    state.apply(action)
                    yield self.event(state.watched[-1])
                    continue
                deal, seat, number, logged = state.deal, state.deal.to_play, state.deal_number, state.deal.history_length
                state.apply(action)
                self.note(count, number, seat, action, deal.history_since(logged), state.deal_number != number)

    def current(self, record: dict) -> dict:
        """The public view as of the snapshot (``record``: its log)."""
        view = None
        for _ply, view in self.walk(record, self.match.ply_count - 1):
            pass
        if view is None:  # no ply yet
            view = self.public(start_from_record(record).public_view(history=False), 0, [],
                               self.match.last_progress_at)
        return view


def _moves_meta(match_id: int, ply_count: int, first: int = 0, deal: tuple[int, int] = (1, 0)) -> list[dict]:
    """Source, fault kind and store time of the match's stored plies, in order (index = ply count - 1), as far as
    ``ply_count`` (a snapshot's: moves stored after it are left out). Moves never change once stored. ``first``:
    earlier entries are left as None-free placeholders (not read). ``deal``: ``(number, ply count before its first
    ply)`` of a deal at or before ply ``first`` + 1, so the read starts there (one raw SELECT: this runs for every
    watched ply)."""
    if ply_count <= first:
        return [{}] * first
    number, start = deal
    d, mv = (connection.ops.quote_name(model._meta.db_table) for model in (Deal, Move))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT mv.source, mv.fault_kind, CAST(mv.created_at AS TEXT) FROM {mv} mv "
                       f"JOIN {d} d ON d.id = mv.deal_id WHERE d.match_id = %s AND d.number >= %s "
                       f"ORDER BY d.number, mv.ply LIMIT %s OFFSET %s",
                       [match_id, number, ply_count - first, first - start])
        rows = cursor.fetchall()
    return [{}] * first + [{"source": s, "fault_kind": f, "at": text_datetime(at)} for s, f, at in rows]


def match_public_view(*, match: Match) -> dict:
    """The public view of ``match`` as of one consistent snapshot (docs/LIVE.md, "Public view"). Raises
    ``MatchHidden`` for a duplicate set's match before its set is public, ``Match.DoesNotExist`` when it is gone."""
    check_watchable(match=match)
    snapshot = match_snapshot(match=match)
    count = snapshot.match.ply_count
    moves = _moves_meta(match.pk, count, first=_current_deal_start(snapshot.record, count))
    return _Timeline(snapshot.match, _seats(match), moves).current(snapshot.record)


def _current_deal_start(record: dict, count: int) -> int:
    """The ply count before the first ply of the record's last deal: the plies whose facts (source, fault) the
    current deal's public history shows come after it."""
    return count - len(record["deals"][-1]["actions"]) if record["deals"] else 0


def match_public_events(*, match: Match, after: int, seats: list[dict] | None = None) -> tuple[list, dict | None, int]:
    """The events after ply count ``after`` as of one snapshot: ``(plies, end, ply_count)`` where ``plies`` is a list
    of ``(ply count, data dict)`` (``data``: ``{"ply", "public", "published_at_ms"}``, docs/LIVE.md), ``end`` the
    end event's data when the match is over (else None) and ``ply_count`` the snapshot's count."""
    events, end, count, _history = _replayed_events(match, after, seats or _seats(match))
    return events, end, count


def _replayed_events(match: Match, after: int, seats: list[dict]) -> tuple[list, dict | None, int, list[dict]]:
    """``match_public_events`` from one replay of a snapshot of the log, with the current deal's public plies as of
    the snapshot (where a ``MatchFeed`` goes on from)."""
    snapshot = match_snapshot(match=match)
    count = snapshot.match.ply_count
    moves = _moves_meta(match.pk, count, first=min(after, _current_deal_start(snapshot.record, count)))
    timeline = _Timeline(snapshot.match, seats, moves)
    events = [(ply["ply"], _event_data(ply, view, moves)) for ply, view in timeline.walk(snapshot.record, after)]
    return events, _end_event(snapshot.match), count, timeline.history


def _event_data(ply: dict, view: dict, moves: list[dict]) -> dict:
    at = moves[ply["ply"] - 1].get("at") if ply["ply"] - 1 < len(moves) else None
    return {"ply": ply, "public": view, "published_at_ms": int(at.timestamp() * 1000) if at else None}


def _end_event(row: Match) -> dict | None:
    """The end event's data once the match (``row``, as read) is over, else None."""
    if row.status == Match.Status.RUNNING:
        return None
    places = list(Seat.objects.filter(match_id=row.pk).order_by("index").values_list("place", flat=True))
    return {"status": row.status, "totals": list(row.totals), "places": places,
            "replay_url": f"/matches/{row.pk}/replay/" if match_is_public(match=row) else None}


# ---- publishing ----------------------------------------------------------------------------------------------------
_redis = None


def channel_prefix() -> str:
    """The pub/sub channel prefix: ``<cache key prefix>.live.``; a match's channel adds its id."""
    return f"{settings.CACHES['default'].get('KEY_PREFIX') or 'eights'}.live."


def _client():
    global _redis
    if _redis is None:
        import redis

        _redis = redis.Redis.from_url(settings.LIVE_REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    return _redis


def ply_stored(*, match_id: int, ply_count: int | None = None) -> None:
    """Call inside the transaction that stored plies of ``match_id`` (up to ``ply_count``), or ended it: once it
    commits, watchers are woken (Redis pub/sub, ``LIVE_REDIS_URL``); nothing without Redis (streams poll). Never
    raises for a failed publish: a stream also checks the database on its own."""
    if not settings.LIVE_REDIS_URL:
        return
    transaction.on_commit(lambda: _publish(match_id, ply_count))


#: After a failed publish, seconds this process stores plies without trying Redis again (while Redis is away every
#: store would otherwise wait for a refused or timed-out connection; the streams poll meanwhile).
PUBLISH_PAUSE_SECONDS = 2.0
_publish_paused_until = 0.0


def _publish(match_id: int, ply_count: int | None) -> None:
    global _publish_paused_until
    if time.monotonic() < _publish_paused_until:
        return
    try:
        _client().publish(f"{channel_prefix()}{match_id}",
                          json.dumps({"ply": ply_count, "at": int(time.time() * 1000)}))
    except Exception as exc:  # a lost wake-up only delays watchers until their next database check
        _publish_paused_until = time.monotonic() + PUBLISH_PAUSE_SECONDS
        log.warning("live: publishing match %s ply %s failed: %s (no wake-ups for %.0f s: streams poll)", match_id,
                    ply_count, type(exc).__name__, PUBLISH_PAUSE_SECONDS)


class MatchFeed:
    """A match's public plies kept up to date in a process, from the match's one engine state in this process
    (``games.state_cache``, read through ``match_state_snapshot``): the feed has that state watched
    (``MatchState.watch``), so whoever advances it (a seat view, a person's move, this feed) keeps each ply as
    everyone saw it, and the feed turns the plies after its ``count`` into events, going on with the current deal's
    public plies (``history``). A watched match costs one small read per wake-up and no engine state of its own.

    It starts (and starts again when the state's kept plies do not reach back to ``count``: the state was built or
    advanced while nobody watched it) with one replay of a snapshot of the log. Each ``advance`` is one consistent
    read (``match_state_snapshot``)."""

    #: plies the watched state keeps (``MatchState.watch``): a wake-up that finds more stored since replays instead
    KEEP = 256

    def __init__(self, match: Match, seats: list[dict]):
        self.match, self.seats = match, seats
        self.count: int | None = None  # the ply count the feed's events reach (None: not started)
        self.history: list[dict] = []

    def advance(self, after: int = 0) -> tuple[list, dict | None]:
        """The events of the plies stored since the last call (on the first, those after ``after``), ``[(ply count,
        data)]``, and the end event's data once the match is over (else None). ``Match.DoesNotExist`` when it is gone
        or its id belongs to another match now; ``ValueError`` (``ReplayMismatch``) when its log does not replay."""
        if self.count is None:
            return self._restart(after)
        snapshot = match_state_snapshot(match=self.match, watch=self.KEEP, same_match=True)
        plies = snapshot.state.watched_after(self.count)
        row = snapshot.match
        if plies is None:
            snapshot.keep()
            return self._restart(self.count)
        first_deal = plies[0].deal_number if plies else row.deal_number
        moves = _moves_meta(row.pk, row.ply_count, first=self.count,
                            deal=(first_deal, snapshot.deal_start(first_deal)))
        snapshot.keep()
        timeline = _Timeline(row, self.seats, moves)
        timeline.history = self.history
        events = []
        for ply in plies:
            out, view = timeline.event(ply)
            events.append((ply.ply, _event_data(out, view, moves)))
        self.count, self.history = row.ply_count, timeline.history
        return events, _end_event(row)

    def _restart(self, after: int) -> tuple[list, dict | None]:
        """One replay of a snapshot of the log, for the events after ``after``; the match's state is watched from
        before it on (brought up to date first: the state stands at or before the replay's snapshot), so the next
        ``advance`` finds every ply since."""
        match_state_snapshot(match=self.match, watch=self.KEEP, same_match=True).keep()
        events, end, self.count, self.history = _replayed_events(self.match, after, self.seats)
        return events, end
