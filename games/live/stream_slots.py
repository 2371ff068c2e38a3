"""The cap on open event streams per client address (``LIVE_STREAMS_PER_ADDRESS``): each open stream holds a lease
in the shared cache (``StreamSlot``); past the cap a new stream is refused with ``TooManyStreams`` (429)."""

from __future__ import annotations

import logging
import time
import uuid

from django.conf import settings
from django.core.cache import cache
from rest_framework.exceptions import Throttled

from games.live.streams import keepalive_seconds

log = logging.getLogger(__name__)


class TooManyStreams(Throttled):
    """429: the client address holds ``LIVE_STREAMS_PER_ADDRESS`` open event streams already (``Retry-After``)."""

    default_code = "too_many_streams"
    says_which_limit = True  # config.api.exception_handler keeps these words


class StreamSlot:
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
                    "(a watch page or table holds one each) or retry later"), wait=max(1, int(keepalive_seconds())))
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
