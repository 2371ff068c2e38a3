"""Watching a match: ``GET /api/matches/<id>/public/`` (the public view, ETag and 304) and
``GET /api/matches/<id>/events/`` (server-sent events, one per stored ply), for anyone. docs/LIVE.md.

The events stream runs two ways from one core (``_Stream``): under ASGI (``config.asgi``, the production server) as
an async iterator that holds no thread and no database connection while it waits (each read runs in a worker thread
through ``sync_to_async`` and gives its connection back); under WSGI (``runserver`` in the zero-setup demo) as a
plain generator on the request's thread. It wakes on Redis pub/sub when ``LIVE_REDIS_URL`` is set, and polls the
match's ply count every ``LIVE_POLL_SECONDS`` otherwise.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from contextlib import aclosing

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections, connection
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, Throttled
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from games import live, state_cache
from sitekit.errors import error_response as _err
from sitekit.ids import parse_id
from sitekit.limits import ScopedRateThrottle, client_address
from games.models import Match

log = logging.getLogger(__name__)


def _watchable(match_id: int) -> Match:
    """The match row, when it may be watched: 404 for an unknown match, 403 for a hidden duplicate set's match."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    try:
        live.check_watchable(match=match)
    except live.MatchHidden as exc:
        raise PermissionDenied(str(exc)) from None
    return match


def _not_modified(request, tag: str) -> bool:
    given = request.headers.get("If-None-Match", "")
    return any(part.strip() in (tag, tag[2:], "*") for part in given.split(",")) if given else False


class MatchPublicApi(APIView):
    """The public view of a match (anyone; docs/LIVE.md): one consistent snapshot, with ``ETag`` on (ply, status):
    ``If-None-Match`` with the tag answers 304 after one small query."""

    permission_classes = [AllowAny]
    authentication_classes = []  # anyone: no session or token is read (nor needed)
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "live_public"

    @extend_schema(summary="A match's public view (anyone may watch)", responses={
        200: OpenApiResponse(description="the public view (docs/LIVE.md)"),
        304: OpenApiResponse(description="not modified since the ETag given in If-None-Match"),
        403: _err("a duplicate set's match: watchable as a replay once its whole set is finished"),
        404: _err("no such match"), 429: _err("too many requests: see Retry-After")})
    def get(self, request, match_id: int):
        progress = live.match_progress(match_id=match_id)
        if progress is None:
            raise NotFound(f"no match {match_id}")
        ply, status, _group = progress
        tag = live.etag(match_id=match_id, ply=ply, status=status)
        match = _watchable(match_id)
        if _not_modified(request, tag):
            return HttpResponse(status=304, headers={"ETag": tag})
        view = live.match_public_view(match=match)
        return Response(view, headers={"ETag": live.etag(match_id=match_id, ply=view["ply"], status=view["status"]),
                                       "Cache-Control": "no-cache"})


# ---- the events stream ---------------------------------------------------------------------------------------------
#: the ``id`` of the ``end`` event: a client that reconnects with it as ``Last-Event-ID`` saw the end, and is answered
#: 204 No Content, which tells an ``EventSource`` to stop reconnecting (a client that missed the end still has the last
#: ply's number as its id, and gets the end again)
END_ID = "end"


def _sse(event: str, data: dict, event_id: int | str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class _Stream:
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
        watchers of a match in this process share the work (``_SHARED``): one of them reads and replays, the others
        take its events."""
        if self.seats is None:
            self.seats = live._seats(self.match)
        try:
            events, end = _SHARED.events(self)
        except Match.DoesNotExist:
            self.done = True
            return [_sse("end", {"status": "gone", "totals": None, "places": None, "replay_url": None},
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
            out.append(_sse("end", end, event_id=END_ID))  # a reconnect with this id is told to stop (204)
            self.done = True
        return out

    def read_if_changed(self) -> list[str]:
        """New messages, if any: from the process's shared events without any query when a wake-up message named a
        ply they hold already (another watcher read it); read at once when a wake-up named a ply after ``last``;
        else after ``changed``'s small query."""
        shared = _SHARED.peek(self)
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


class _SharedEvents:
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

    def peek(self, stream: "_Stream") -> tuple[list, dict | None] | None:
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

    def events(self, stream: "_Stream") -> tuple[list, dict | None]:
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


_SHARED = _SharedEvents()


#: the reconnection delay a client is told (ms): after a stream's end of life (LIVE_STREAM_MAX_SECONDS) or a
#: dropped connection, EventSource comes back this soon with Last-Event-ID and misses nothing
RETRY_MS = 1000


def _keepalive() -> float:
    return float(settings.LIVE_KEEPALIVE_SECONDS)


def _poll() -> float:
    return float(settings.LIVE_POLL_SECONDS)


class TooManyStreams(Throttled):
    """429: the client address holds ``LIVE_STREAMS_PER_ADDRESS`` open event streams already (``Retry-After``)."""

    default_code = "too_many_streams"
    says_which_limit = True  # config.api.exception_handler keeps these words


class _StreamSlot:
    """One open event stream counted against its client address (``LIVE_STREAMS_PER_ADDRESS``) as a lease in the
    shared cache: ``take`` at open (raises ``TooManyStreams`` past the cap), ``renew`` while the stream lives (every
    ``renew_every()`` s, from both servers' loops), ``release`` when it ends (idempotent: both the stream's
    ``finally`` and the response's close call it).

    The address's cache value is ``{slot id: expiry (Unix s)}``; the count is its unexpired entries. A lease lasts
    ``LIVE_STREAM_LEASE_SECONDS``, so the slots of a web process that was killed or stopped (every deploy) free
    themselves within a lease, and a refused attempt writes nothing: it never extends anyone's lease (the
    old +1/-1 count kept an address locked out for 11 minutes, for good while it kept retrying). Every cache backend
    works (Redis, the database's, the zero-setup files); two writes racing for one address may lose one update,
    which heals within a lease (a lost renewal is written again by the next; a lost release expires), so the cap
    can be passed briefly by streams opened in the same instant, never for long."""

    def __init__(self, address: str):
        self.key = f"live:streams:{address}"
        self.slot_id = uuid.uuid4().hex[:16]
        self.taken = False

    @staticmethod
    def _lease() -> float:
        return float(settings.LIVE_STREAM_LEASE_SECONDS)

    @classmethod
    def renew_every(cls) -> float:
        """Seconds between a living stream's renewals: a third of a lease (two may be missed)."""
        return cls._lease() / 3

    def _live(self, now: float) -> dict[str, float]:
        held = cache.get(self.key)
        if not isinstance(held, dict):
            return {}
        return {slot: until for slot, until in held.items() if isinstance(until, (int, float)) and until > now}

    def _write(self, held: dict[str, float]) -> None:
        if held:
            cache.set(self.key, held, int(self._lease()) + 5)
        else:
            cache.delete(self.key)

    def take(self) -> None:
        cap = settings.LIVE_STREAMS_PER_ADDRESS
        if not cap:
            return
        now = time.time()
        try:
            held = self._live(now)
            if len(held) >= cap:
                refused = TooManyStreams(detail=(
                    f"this address holds {cap} open event streams already (LIVE_STREAMS_PER_ADDRESS): close one "
                    "(a watch page or table holds one each) or retry later"), wait=max(1, int(_keepalive())))
                raise refused
            held[self.slot_id] = now + self._lease()
            self._write(held)
        except TooManyStreams:
            raise
        except Exception as exc:  # the cache is down: the openings' throttle still counts
            log.warning("live: stream count unavailable: %s", exc)
            return
        self.taken = True

    def renew(self) -> None:
        """Extend this stream's lease by ``LIVE_STREAM_LEASE_SECONDS`` from now (written again if it was lost)."""
        if not self.taken:
            return
        now = time.time()
        try:
            held = self._live(now)
            held[self.slot_id] = now + self._lease()
            self._write(held)
        except Exception as exc:
            log.warning("live: stream count unavailable: %s", exc)

    def release(self) -> None:
        if not self.taken:
            return
        self.taken = False
        try:
            held = self._live(time.time())
            held.pop(self.slot_id, None)
            self._write(held)
        except Exception as exc:
            log.warning("live: stream count unavailable: %s", exc)


def _sync_events(stream: _Stream, slot: _StreamSlot | None = None):
    """The WSGI stream: a generator on the request's thread, renewing its address's ``slot`` while it lives."""
    renewed = time.monotonic()
    try:
        for message in _sync_events_body(stream):
            if slot is not None and time.monotonic() - renewed >= slot.renew_every():
                slot.renew()
                renewed = time.monotonic()
            yield message
    finally:
        if slot is not None:
            slot.release()


class _StreamClock:
    """A stream's lifetime and keep-alive, for both servers' loops: ``open()`` while the stream is not done and younger
    than ``LIVE_STREAM_MAX_SECONDS``; ``send(messages)`` gives what to write now: the messages, or a ``: ping``
    comment when nothing was written for ``LIVE_KEEPALIVE_SECONDS``, or nothing."""

    def __init__(self, stream: _Stream):
        self.stream = stream
        self.started = self.quiet_since = time.monotonic()

    def open(self) -> bool:
        return not self.stream.done and time.monotonic() - self.started < settings.LIVE_STREAM_MAX_SECONDS

    def send(self, messages: list[str]) -> list[str]:
        now = time.monotonic()
        if messages:
            self.quiet_since = now
            return messages
        if now - self.quiet_since >= _keepalive():
            self.quiet_since = now
            return [": ping\n\n"]
        return []


def _sync_events_body(stream: _Stream):
    yield f"retry: {RETRY_MS}\n: connected\n\n"
    for message in stream.read():
        yield message
    pubsub = None
    if settings.LIVE_REDIS_URL:
        try:
            pubsub = live._client().pubsub(ignore_subscribe_messages=True)
            pubsub.subscribe(f"{live.channel_prefix()}{stream.match.pk}")
        except Exception as exc:
            log.warning("live: no Redis wake-ups (polling instead): %s", exc)
            pubsub = None
    try:
        clock = _StreamClock(stream)
        while clock.open():
            if pubsub is not None:
                try:
                    message = pubsub.get_message(timeout=min(_keepalive(), settings.LIVE_RECHECK_SECONDS))
                    while message is not None:
                        stream.note(message.get("data"))
                        message = pubsub.get_message(timeout=0)
                except Exception:
                    time.sleep(_poll())
            else:
                time.sleep(_poll())
            yield from clock.send(stream.read_if_changed())
    finally:
        if pubsub is not None:
            pubsub.close()


class _Hub:
    """One Redis pub/sub subscription per event loop (a uvicorn worker), fanned out to the streams waiting there."""

    _hubs: dict[int, "_Hub"] = {}
    _lock = threading.Lock()

    def __init__(self):
        self.waiters: dict[int, dict[asyncio.Event, _Stream]] = {}
        self.task = None
        self.subscribed = False  # while False (Redis away) the streams poll the database every LIVE_POLL_SECONDS

    @classmethod
    def get(cls) -> "_Hub":
        loop = asyncio.get_running_loop()
        with cls._lock:
            hub = cls._hubs.get(id(loop))
            if hub is None or hub.task is None or hub.task.done():
                hub = cls._hubs[id(loop)] = cls()
                hub.task = loop.create_task(hub._listen())
        return hub

    async def _listen(self):
        import redis.asyncio as aioredis

        prefix = live.channel_prefix()
        while True:
            client = aioredis.Redis.from_url(settings.LIVE_REDIS_URL)
            try:
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                await pubsub.psubscribe(f"{prefix}*")
                self.subscribed = True
                for waiting in list(self.waiters.values()):  # plies stored while Redis was away: read them now
                    for event in list(waiting):
                        event.set()
                async for message in pubsub.listen():
                    if message.get("type") != "pmessage":
                        continue
                    try:
                        match_id = int(message["channel"].decode().rsplit(".", 1)[1])
                    except (ValueError, IndexError):
                        continue
                    for event, stream in list(self.waiters.get(match_id, {}).items()):
                        stream.note(message.get("data"))
                        event.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis went away: the streams poll the database meanwhile; retry
                if self.subscribed:
                    log.warning("live: Redis subscription lost (%s); streams poll until it is back", exc)
                self.subscribed = False
                await asyncio.sleep(1)
            finally:
                try:
                    await client.aclose()
                except Exception:
                    pass

    def register(self, stream: _Stream) -> asyncio.Event:
        event = asyncio.Event()
        self.waiters.setdefault(stream.match.pk, {})[event] = stream
        return event

    def unregister(self, match_id: int, event: asyncio.Event) -> None:
        waiting = self.waiters.get(match_id)
        if waiting is not None:
            waiting.pop(event, None)
            if not waiting:
                del self.waiters[match_id]


async def _async_events(stream: _Stream, slot: _StreamSlot | None = None):
    """The ASGI stream (``_async_events_body``), renewing its address's ``slot`` while it lives (in a worker thread:
    an unanswering cache never holds the event loop) and releasing it when it ends."""
    renewed = time.monotonic()
    try:
        async with aclosing(_async_events_body(stream)) as body:  # closing this closes the body (its finally)
            async for message in body:
                if slot is not None and time.monotonic() - renewed >= slot.renew_every():
                    await sync_to_async(slot.renew, thread_sensitive=False)()
                    renewed = time.monotonic()
                yield message
    finally:
        if slot is not None:
            slot.release()  # one quick cache call


async def _async_events_body(stream: _Stream):
    """The ASGI stream: waits on the event loop (a Redis wake-up or a timer), reads in a worker thread."""
    read = sync_to_async(stream.read_released, thread_sensitive=False)
    yield f"retry: {RETRY_MS}\n: connected\n\n"
    hub = event = None
    if settings.LIVE_REDIS_URL:
        hub = _Hub.get()
        event = hub.register(stream)
    try:
        # the first read always runs (changed() is true when behind, and cheap when not)
        for message in await sync_to_async(_first_read, thread_sensitive=False)(stream):
            yield message
        clock = _StreamClock(stream)
        while clock.open():
            if event is not None:
                wait = min(_keepalive(), settings.LIVE_RECHECK_SECONDS) if hub.subscribed else _poll()
                try:
                    await asyncio.wait_for(event.wait(), timeout=wait)
                except asyncio.TimeoutError:
                    pass
                event.clear()
            else:
                await asyncio.sleep(_poll())
            shared = _SHARED.peek(stream)  # plies another watcher read already: no thread, no query
            messages = stream._messages(*shared) if shared is not None else await read()
            for message in clock.send(messages):
                yield message
    finally:
        if hub is not None:
            hub.unregister(stream.match.pk, event)


def _first_read(stream: _Stream) -> list[str]:
    close_old_connections()
    try:
        return stream.read()
    finally:
        if not settings.DATABASES["default"].get("CONN_MAX_AGE"):
            connection.close()


class _AnyAccept(DefaultContentNegotiation):
    """A browser's ``EventSource`` sends ``Accept: text/event-stream``, which no DRF renderer offers (406 before the
    view ran): the stream is not rendered by DRF, and its refusals (400/403/404/429) answer JSON whatever the Accept."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class UnknownEventId(APIException):
    status_code = 400
    default_code = "unknown_event_id"


class MatchEventsApi(APIView):
    """Server-sent events of a match (anyone; docs/LIVE.md): ``event: ply`` per stored ply (``id``: the ply count
    after it), ``event: end`` when it is over, ``: ping`` every ``LIVE_KEEPALIVE_SECONDS``. ``Last-Event-ID`` (or
    ``?last_event_id=``) resumes after that ply from the database, with no gap; without one the stream starts at the
    current ply (fetch the public view first and pass its ``ply``). The end event's id is ``end``: a reconnect with
    it is answered 204 No Content (an ``EventSource`` stops)."""

    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "live_events"
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _AnyAccept

    @extend_schema(summary="A match's stored plies as server-sent events (anyone may watch)", parameters=[
        OpenApiParameter("last_event_id", {"type": "string", "pattern": "^([0-9]+|end)$"}, description=(
            "resume after this ply count (as the Last-Event-ID header); default: the current ply count. `end` (the "
            "end event's id): the client saw the end, answered 204"))],
        responses={200: OpenApiResponse(description="text/event-stream (docs/LIVE.md)"),
                   204: OpenApiResponse(description="the match is over and last_event_id is `end`: nothing more "
                                                    "will come (an EventSource stops reconnecting)"),
                   400: _err("unknown_event_id: a last_event_id (or Last-Event-ID) that is not a ply count of this "
                             "match (0 to its ply count)"),
                   403: _err("a duplicate set's match: watchable as a replay once its whole set is finished"),
                   404: _err("no such match"), 429: _err("too many requests (stream openings per minute, or "
                                                         "too_many_streams: LIVE_STREAMS_PER_ADDRESS open streams "
                                                         "of this address): see Retry-After")})
    def get(self, request, match_id: int):
        match = _watchable(match_id)
        given = request.headers.get("Last-Event-ID") or request.query_params.get("last_event_id")
        current = match.ply_count
        if given == END_ID and match.status != Match.Status.RUNNING:
            return HttpResponse(status=204)  # it saw the end: nothing more will come, and EventSource stops on 204
        if given is None or given == "":
            last = current
        else:
            last = parse_id(given)  # ASCII digits only (int() would take "٣" or " 3 ")
            if last is None or not 0 <= last <= current:
                raise UnknownEventId(f"last_event_id {given!r:.30} is not a ply count of match {match_id}: give a "
                                     f"number from 0 to {current} (the id of the last event you received, or the "
                                     "public view's ply), or end once the match is over")
        stream = _Stream(match, last)
        slot = _StreamSlot(client_address(request))
        slot.take()  # 429 past LIVE_STREAMS_PER_ADDRESS open streams of this address
        is_async = isinstance(request._request, ASGIRequest)
        if is_async and not settings.DATABASES["default"].get("CONN_MAX_AGE"):
            connection.close()  # the request's thread ends with the view: hold no connection for the stream's life
        content = _async_events(stream, slot) if is_async else _sync_events(stream, slot)
        response = StreamingHttpResponse(content, content_type="text/event-stream")
        response._resource_closers.append(slot.release)  # also when the stream never started
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy (nginx) must pass each event on at once
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, StreamingHttpResponse):
            return response  # not a DRF Response: no renderer, no content negotiation
        return super().finalize_response(request, response, *args, **kwargs)
