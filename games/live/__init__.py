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
from django.db import transaction

from games.engine.actions import entry_dict
from games.engine.match import MatchState, start_from_record
from games.models import Match, Move, Player, Seat
from games.matches.exports import match_is_public
from games.matches.snapshots import MatchSnapshot, match_snapshot, record_head

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
    """The public views and plies of one snapshot, built by one replay of its record."""

    def __init__(self, snapshot: MatchSnapshot, seats: list[dict], moves: list[dict]):
        self.snapshot, self.seats, self.moves = snapshot, seats, moves
        self.kinds = [s["kind"] for s in seats]

    def public(self, state: MatchState, ply: int, history: list[dict], since) -> dict:
        """The public view after ``ply`` plies (``state`` as of then, ``history`` its deal's public plies)."""
        match = self.snapshot.match
        last = ply == match.ply_count
        status = match.status if last else Match.Status.RUNNING
        deal = state.deal
        to_play = None if (state.is_over or status != Match.Status.RUNNING or deal.result is not None) \
            else deal.to_play
        deadline = None
        if to_play is not None and self.kinds[to_play] == Player.Kind.HUMAN and since is not None:
            deadline = _iso(since + timedelta(seconds=match.move_clock_seconds))
        return {"match_id": match.pk, "status": status, "ply": ply, "deal_number": state.deal_number,
                "dealer": deal.dealer, "to_play": to_play, "top_card": deal.top_card,
                "suit_to_follow": deal.active_suit, "hand_counts": list(deal.sizes), "stock_size": len(deal.stock),
                "discard_size": len(deal.discard), "totals": list(state.totals), "seats": self.seats,
                "history": list(history), "clock": {"to_play_since": _iso(since), "move_deadline": deadline},
                "replay_url": (f"/matches/{match.pk}/replay/"
                               if last and match_is_public(match=match) else None)}

    def walk(self, after: int):
        """Yield ``(ply dict, public view after it)`` for every ply after ``after`` (a ply count), in order; with
        ``after`` equal to the snapshot's count, nothing (use ``current``)."""
        yield from self._run(after, want_plies=True)

    def current(self) -> dict:
        """The public view as of the snapshot."""
        for view in self._run(self.snapshot.match.ply_count - 1, want_plies=False):
            return view
        raise AssertionError("unreachable")

    def _run(self, after: int, *, want_plies: bool):
        record = self.snapshot.record
        match = self.snapshot.match
        state = start_from_record(record)
        count, history = 0, []
        if not want_plies and match.ply_count == 0:
            yield self.public(state, 0, history, match.last_progress_at)
            return
        for number, stored in enumerate(record["deals"], start=1):
            if state.is_over or state.deal_number != number:
                break
            history = []
            for action in stored["actions"]:
                deal = state.deal
                seat, logged = deal.to_play, len(deal._log)
                state.apply(action)
                entries = [entry_dict(e) for e in deal._log[logged:]]
                meta = self.moves[count] if count < len(self.moves) else None
                count += 1
                ply = _ply_dict(count, number, seat, action, entries, meta)
                history.append(ply)
                if state.deal is not deal:  # the deal ended and the next one is dealt: its history starts empty
                    history = []
                if count <= after:
                    continue
                since = match.last_progress_at if count == match.ply_count else (meta or {}).get("at")
                view = self.public(state, count, history, since)
                if want_plies:
                    yield ply, view
                else:
                    yield view
                    return


def _moves_meta(match_id: int, ply_count: int, first: int = 0) -> list[dict]:
    """Source, fault kind and store time of the match's stored plies, in order (index = ply count - 1), as far as
    ``ply_count`` (a snapshot's: moves stored after it are left out). Moves never change once stored. ``first``:
    earlier entries are left as None-free placeholders (not read)."""
    rows = (Move.objects.filter(deal__match_id=match_id).order_by("deal__number", "ply")
            .values_list("source", "fault_kind", "created_at")[first:ply_count])
    return [{}] * first + [{"source": s, "fault_kind": f, "at": at} for s, f, at in rows]


def match_public_view(*, match: Match) -> dict:
    """The public view of ``match`` as of one consistent snapshot (docs/LIVE.md, "Public view"). Raises
    ``MatchHidden`` for a duplicate set's match before its set is public, ``Match.DoesNotExist`` when it is gone."""
    check_watchable(match=match)
    snapshot = match_snapshot(match=match)
    moves = _moves_meta(match.pk, snapshot.match.ply_count, first=max(0, snapshot.match.ply_count - 1))
    return _Timeline(snapshot, _seats(match), moves).current()


def match_public_events(*, match: Match, after: int, seats: list[dict] | None = None) -> tuple[list, dict | None, int]:
    """The events after ply count ``after`` as of one snapshot: ``(plies, end, ply_count)`` where ``plies`` is a list
    of ``(ply count, data dict)`` (``data``: ``{"ply", "public", "published_at_ms"}``, docs/LIVE.md), ``end`` the
    end event's data when the match is over (else None) and ``ply_count`` the snapshot's count."""
    snapshot = match_snapshot(match=match)
    count = snapshot.match.ply_count
    moves = _moves_meta(match.pk, count, first=min(after, count))
    events = []
    if count > after:
        for ply, view in _Timeline(snapshot, seats or _seats(match), moves).walk(after):
            at = moves[ply["ply"] - 1].get("at")
            events.append((ply["ply"], {"ply": ply, "public": view,
                                        "published_at_ms": int(at.timestamp() * 1000) if at else None}))
    end = None
    if snapshot.match.status != Match.Status.RUNNING:
        places = list(Seat.objects.filter(match_id=match.pk).order_by("index").values_list("place", flat=True))
        end = {"status": snapshot.match.status, "totals": list(snapshot.match.totals), "places": places,
               "replay_url": (f"/matches/{match.pk}/replay/" if match_is_public(match=snapshot.match) else None)}
    return events, end, count


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
    """A match's public plies kept up to date in a process: the engine state after ``count`` plies and its deal's
    public history, advanced by reading only the plies stored since (``advance``), so a watched match costs one
    small read and one engine step per ply instead of a replay of its whole log.

    Each ``advance`` is one consistent read: the match row first (its ply count, status, totals), then its plies up
    to that count; stored plies never change and every ply up to a committed count is committed with it."""

    def __init__(self, match: Match, seats: list[dict]):
        self.match, self.seats = match, seats
        self.state = start_from_record({**record_head(match), "deals": []})
        self.count, self.history = 0, []

    def advance(self) -> tuple[list, dict | None]:
        """The events of the plies stored since the last call, ``[(ply count, data)]``, and the end event's data once
        the match is over (else None). ``Match.DoesNotExist`` when it is gone."""
        row = Match.objects.get(pk=self.match.pk)
        if (row.commitment, row.seed, row.created_at) != (self.match.commitment, self.match.seed, self.match.created_at):
            raise Match.DoesNotExist(f"match {row.pk} is another match now (its id was handed out again)")
        rows = list(Move.objects.filter(deal__match_id=row.pk).order_by("deal__number", "ply")
                    .values_list("deal__number", "action", "source", "fault_kind", "created_at", "contribution")
                    [self.count:row.ply_count])
        timeline = _Timeline(MatchSnapshot(match=row, record={}), self.seats, [])
        events = []
        for number, action, source, fault_kind, at, contribution in rows:
            state, deal = self.state, self.state.deal
            if state.deal_number != number:
                raise ValueError(f"match {row.pk}: ply {self.count + 1} is stored in deal {number}, the engine is in "
                                 f"deal {state.deal_number}")
            seat, logged = deal.to_play, len(deal._log)
            if contribution:  # taken for the next deal's key: the feed deals it as the match did
                state.offer(seat, bytes.fromhex(contribution))
            state.apply(action)
            self.count += 1
            entries = [entry_dict(e) for e in deal._log[logged:]]
            ply = _ply_dict(self.count, number, seat, action, entries, {"source": source, "fault_kind": fault_kind})
            self.history.append(ply)
            if state.deal is not deal:
                self.history = []
            since = row.last_progress_at if self.count == row.ply_count else at
            events.append((self.count, {"ply": ply, "public": timeline.public(state, self.count, self.history, since),
                                        "published_at_ms": int(at.timestamp() * 1000)}))
        end = None
        if row.status != Match.Status.RUNNING:
            places = list(Seat.objects.filter(match_id=row.pk).order_by("index").values_list("place", flat=True))
            end = {"status": row.status, "totals": list(row.totals), "places": places,
                   "replay_url": f"/matches/{row.pk}/replay/" if match_is_public(match=row) else None}
        return events, end
