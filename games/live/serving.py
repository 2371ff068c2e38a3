"""The two ways an event stream is served from one core (``games.live.streams.Stream``): under ASGI (``config.asgi``,
the production server) as an async iterator that holds no thread and no database connection while it waits (each
read runs in a worker thread through ``sync_to_async`` and gives its connection back), woken by one Redis pub/sub
subscription per event loop (``Hub``); under WSGI (``runserver`` in the zero-setup demo) as a plain generator on the
request's thread. Without ``LIVE_REDIS_URL`` (or while Redis is away) both poll the match's ply count every
``LIVE_POLL_SECONDS``."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from contextlib import aclosing

from asgiref.sync import sync_to_async
from django.conf import settings

from games import live
from games.live.stream_slots import StreamSlot
from games.live.streams import (RETRY_MS, SHARED, Stream, StreamClock, _first_read, keepalive_seconds,
                                poll_seconds)

log = logging.getLogger(__name__)


def sync_events(stream: Stream, slot: StreamSlot | None = None):
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


def _sync_events_body(stream: Stream):
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
        clock = StreamClock(stream)
        while clock.open():
            if pubsub is not None:
                try:
                    message = pubsub.get_message(timeout=min(keepalive_seconds(), settings.LIVE_RECHECK_SECONDS))
                    while message is not None:
                        stream.note(message.get("data"))
                        message = pubsub.get_message(timeout=0)
                except Exception:
                    time.sleep(poll_seconds())
            else:
                time.sleep(poll_seconds())
            yield from clock.send(stream.read_if_changed())
    finally:
        if pubsub is not None:
            pubsub.close()


class Hub:
    """One Redis pub/sub subscription per event loop (a uvicorn worker), fanned out to the streams waiting there."""

    _hubs: dict[int, "Hub"] = {}
    _lock = threading.Lock()

    def __init__(self):
        self.waiters: dict[int, dict[asyncio.Event, Stream]] = {}
        self.task = None
        self.subscribed = False  # while False (Redis away) the streams poll the database every LIVE_POLL_SECONDS

    @classmethod
    def get(cls) -> "Hub":
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

    def register(self, stream: Stream) -> asyncio.Event:
        event = asyncio.Event()
        self.waiters.setdefault(stream.match.pk, {})[event] = stream
        return event

    def unregister(self, match_id: int, event: asyncio.Event) -> None:
        waiting = self.waiters.get(match_id)
        if waiting is not None:
            waiting.pop(event, None)
            if not waiting:
                del self.waiters[match_id]


async def async_events(stream: Stream, slot: StreamSlot | None = None):
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


async def _async_events_body(stream: Stream):
    """The ASGI stream: waits on the event loop (a Redis wake-up or a timer), reads in a worker thread."""
    read = sync_to_async(stream.read_released, thread_sensitive=False)
    yield f"retry: {RETRY_MS}\n: connected\n\n"
    hub = event = None
    if settings.LIVE_REDIS_URL:
        hub = Hub.get()
        event = hub.register(stream)
    try:
        # the first read always runs (changed() is true when behind, and cheap when not)
        for message in await sync_to_async(_first_read, thread_sensitive=False)(stream):
            yield message
        clock = StreamClock(stream)
        while clock.open():
            if event is not None:
                wait = min(keepalive_seconds(), settings.LIVE_RECHECK_SECONDS) if hub.subscribed else poll_seconds()
                try:
                    await asyncio.wait_for(event.wait(), timeout=wait)
                except asyncio.TimeoutError:
                    pass
                event.clear()
            else:
                await asyncio.sleep(poll_seconds())
            shared = SHARED.peek(stream)  # plies another watcher read already: no thread, no query
            messages = stream._messages(*shared) if shared is not None else await read()
            for message in clock.send(messages):
                yield message
    finally:
        if hub is not None:
            hub.unregister(stream.match.pk, event)
