"""One watcher's event stream of a match (``Stream``): the server-sent events of each stored ply and of the end, built
once per process for all the match's watchers (``SHARED``), with the stream's lifetime and keep-alive
(``StreamClock``). The servers' loops around it are ``games.live.serving``; docs/LIVE.md."""

from __future__ import annotations

import json
import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections, connection

from games import live, state_cache
from games.models import Match

log = logging.getLogger(__name__)


#: the ``id`` of the ``end`` event: a client that reconnects with it as ``Last-Event-ID`` saw the end, and is answered
#: 204 No Content, which tells an ``EventSource`` to stop reconnecting (a client that missed the end still has the last
#: ply's number as its id, and gets the end again)
END_ID = "end"


def sse(event: str, data: dict, event_id: int | str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Stream:
    """One watcher's stream: what it has sent (``last``, a ply count) and the database reads (sync; call them in a
    thread under ASGI)."""

    def __init__(self, match: Match, last: int):
        self.match, self.last, self.seats = match, last, None
        self.done = False
        self.published: dict[int, int] = {}  # ply count -> epoch ms its commit was published (Redis messages)

    def note(self, data: bytes | str) -> None:
        """A wake-up message ``{"ply", "at"}``: remember when the commit of plies up to ``ply`` was published."""
        try:
            message = json.loads(data)
            if isinstance(message.get("ply"), int) and isinstance(message.get("at"), int):
                self.published[message["ply"]] = message["at"]
        except (ValueError, TypeError, AttributeError):
            pass

    def _published_at(self, ply: int, stored_ms: int | None) -> int | None:
        """When ``ply``'s commit was published: the first publish at or after it (a commit may store several plies),
        else the ply's store time (a resume from the database, or a lost message)."""
        covering = [p for p in self.published if p >= ply]
        at = self.published[min(covering)] if covering else None
        return at if at is not None and (stored_ms is None or at >= stored_ms) else stored_ms

    def changed(self) -> bool:
        """Whether the match moved past ``last`` or ended (one small query)."""
        progress = live.match_progress(match_id=self.match.pk)
        self.progress = progress
        return progress is None or progress[0] > self.last or progress[1] != Match.Status.RUNNING

    def read(self) -> list[str]:
        """The SSE messages of every ply after ``last`` as of one snapshot, then the end event when it is over. The
        watchers of a match in this process share the work (``SHARED``): one of them reads and replays, the others
        take its events."""
        if self.seats is None:
            self.seats = live._seats(self.match)
        try:
            events, end = SHARED.events(self)
        except Match.DoesNotExist:
            self.done = True
            return [sse("end", {"status": "gone", "totals": None, "places": None, "replay_url": None},
                         event_id=END_ID)]
        return self._messages(events, end)

    def _messages(self, events: list, end: dict | None) -> list[str]:
        out = []
        for ply, data in events:
            at = self._published_at(ply, data["published_at_ms"])
            # the ply and the view are the same for every watcher: serialised once (kept with the shared event)
            body = data.get("_json") or json.dumps({"ply": data["ply"], "public": data["public"]},
                                                    separators=(",", ":"))
            out.append(f'id: {ply}\nevent: ply\ndata: {{"published_at_ms":{json.dumps(at)},{body[1:]}\n\n')
            self.last = ply
        self.published = {p: at for p, at in self.published.items() if p > self.last}
        if end is not None:
            out.append(sse("end", end, event_id=END_ID))  # a reconnect with this id is told to stop (204)
            self.done = True
        return out

    def read_if_changed(self) -> list[str]:
        """New messages, if any: from the process's shared events without any query when a wake-up message named a
        ply they hold already (another watcher read it); read at once when a wake-up named a ply after ``last``;
        else after ``changed``'s small query."""
        shared = SHARED.peek(self)
        if shared is not None:
            return self._messages(*shared)
        if max(self.published, default=0) > self.last:  # a wake-up named a newer ply: it moved, no need to ask
            self.progress = None  # (an older answer must not cut the read short)
            return self.read()
        return self.read() if self.changed() else []

    def read_released(self) -> list[str]:
        """``read_if_changed`` for a worker thread: the connection is closed again after it (so an idle stream holds
        none), unless persistent connections are configured (then it stays with the thread, one per pool thread)."""
        close_old_connections()
        try:
            return self.read_if_changed()
        finally:
            if not settings.DATABASES["default"].get("CONN_MAX_AGE"):
                connection.close()


class SharedEvents:
    """The events this process built lately, per match (the last ``KEEP`` plies, and the end), so that many watchers
    of one match cost one snapshot and one replay per stored ply, not one each. Events never change once built: a
    stored ply and the public view after it are fixed (only ``published_at_ms`` is per stream, set on a copy)."""

    KEEP, MATCHES = 50, 200  # at most ~30 MB of events per process (a public view is a few KB)

    def __init__(self):
        self.lock = threading.Lock()
        # state_cache.key_of(match) (id, seed, created_at) -> {"plies": {ply: data}, "end": data | None, "lock": Lock}:
        # keyed like the state cache, so that a match id handed out again (a restored backup, a flush with sequences
        # reset) never meets the events of the match that had it before
        self.matches: dict[tuple, dict] = {}

    def _entry(self, key: tuple) -> dict:
        with self.lock:
            entry = self.matches.pop(key, None) or {"plies": {}, "end": None, "lock": threading.Lock()}
            self.matches[key] = entry  # most recently used last
            while len(self.matches) > self.MATCHES:
                self.matches.pop(next(iter(self.matches)))
            return entry

    @staticmethod
    def _cached(entry: dict, after: int, progress) -> tuple[list, dict | None] | None:
        if progress is None:
            return None
        count, status = progress[0], progress[1]
        plies = entry["plies"]
        if any(p not in plies for p in range(after + 1, count + 1)):
            return None
        end = entry["end"]
        if status != Match.Status.RUNNING and end is None:
            return None
        return [(p, plies[p]) for p in range(after + 1, count + 1)], (end if status != Match.Status.RUNNING else None)

    def peek(self, stream: "Stream") -> tuple[list, dict | None] | None:
        """The events after ``stream.last`` up to the newest ply a wake-up message named, when this process holds
        them all already (with the end event once the match's last ply is among them); else None."""
        upto = max(stream.published, default=0)
        if upto <= stream.last:
            return None
        with self.lock:
            entry = self.matches.get(state_cache.key_of(stream.match))
        if entry is None or entry.get("feed") is None:
            return None
        plies, feed = entry["plies"], entry["feed"]
        try:  # (read without the match's lock: a ply trimmed meanwhile sends this watcher the slow way)
            events = [(p, plies[p]) for p in range(stream.last + 1, upto + 1)]
        except KeyError:
            return None
        end = entry["end"] if entry["end"] is not None and upto >= feed.count else None
        return events, end

    def events(self, stream: "Stream") -> tuple[list, dict | None]:
        entry = self._entry(state_cache.key_of(stream.match))
        progress = getattr(stream, "progress", None)
        found = self._cached(entry, stream.last, progress)
        if found is not None:
            return found
        with entry["lock"]:  # one reader per match at a time; the others find its events
            found = self._cached(entry, stream.last, progress)
            if found is not None:
                return found
            feed = entry.get("feed")
            if feed is None:  # the first watcher here: one replay to catch up, then one engine step per ply
                entry["feed"] = feed = live.MatchFeed(stream.match, stream.seats)
            try:
                new, end = feed.advance()
            except ValueError as exc:  # the log does not replay: say so once, and serve snapshots
                log.error("live: match %s: %s", stream.match.pk, exc)
                entry["feed"] = None
                events, end, _count = live.match_public_events(match=stream.match, after=stream.last,
                                                               seats=stream.seats)
                return events, end
            plies = entry["plies"]
            for ply, data in new:
                data["_json"] = json.dumps({"ply": data["ply"], "public": data["public"]}, separators=(",", ":"))
                plies[ply] = data
            events = [(p, plies[p]) for p in range(stream.last + 1, feed.count + 1) if p in plies]
            if len(events) != feed.count - stream.last:  # not all kept: read this stream's plies from a snapshot
                events, end, _count = live.match_public_events(match=stream.match, after=stream.last,
                                                               seats=stream.seats)
                return events, end
            for old in sorted(plies)[:-self.KEEP]:
                del plies[old]
            if end is not None:
                entry["end"] = end
            return events, end


SHARED = SharedEvents()


#: the reconnection delay a client is told (ms): after a stream's end of life (LIVE_STREAM_MAX_SECONDS) or a
#: dropped connection, EventSource comes back this soon with Last-Event-ID and misses nothing
RETRY_MS = 1000


def keepalive_seconds() -> float:
    return float(settings.LIVE_KEEPALIVE_SECONDS)


def poll_seconds() -> float:
    return float(settings.LIVE_POLL_SECONDS)


class StreamClock:
    """A stream's lifetime and keep-alive, for both servers' loops: ``open()`` while the stream is not done and younger
    than ``LIVE_STREAM_MAX_SECONDS``; ``send(messages)`` gives what to write now: the messages, or a ``: ping``
    comment when nothing was written for ``LIVE_KEEPALIVE_SECONDS``, or nothing."""

    def __init__(self, stream: Stream):
        self.stream = stream
        self.started = self.quiet_since = time.monotonic()

    def open(self) -> bool:
        return not self.stream.done and time.monotonic() - self.started < settings.LIVE_STREAM_MAX_SECONDS

    def send(self, messages: list[str]) -> list[str]:
        now = time.monotonic()
        if messages:
            self.quiet_since = now
            return messages
        if now - self.quiet_since >= keepalive_seconds():
            self.quiet_since = now
            return [": ping\n\n"]
        return []


def _first_read(stream: Stream) -> list[str]:
    close_old_connections()
    try:
        return stream.read()
    finally:
        if not settings.DATABASES["default"].get("CONN_MAX_AGE"):
            connection.close()
