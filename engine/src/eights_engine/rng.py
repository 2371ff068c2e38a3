"""Deterministic shuffles: engine version 1 keyed by a deal seed (SplitMix64), version 2 by a 256-bit deal key
(SHA-256 in counter mode, ``KeyStream``; the keys themselves come from ``keys``).

The algorithms are fixed and documented (docs/FAIRNESS.md) so that any implementation, on any machine and Python
version, deals the same cards from the same seed or key. Version 1 (every match created before engine version 2,
replayed so forever):

* the generator is SplitMix64 (Steele, Lea and Flood 2014): ``state += 0x9E3779B97F4A7C15``, then
  ``z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB; z ^ z>>31``,
  all modulo 2**64;
* a stream is keyed by ``(seed, purpose)``: its starting state is ``mix(seed * 0x100000001B3 + purpose)``
  where purpose 0 deals, and purpose k >= 1 is the k-th reshuffle of the discard pile in that deal;
* a shuffle is Fisher-Yates from the last index down: for ``i = n-1 .. 1`` pick ``j`` uniform in ``0..i``
  by rejection sampling (draw ``x``; reject while ``x >= 2**64 - (2**64 % (i+1))``; ``j = x % (i+1)``) and
  swap items ``i`` and ``j``.

Version 2 (``KeyStream``): the same Fisher-Yates with the same rejection sampling, drawing its 64-bit numbers
from SHA-256 in counter mode: block ``b`` (0, 1, 2, ...) of the stream for ``(key, purpose)`` is
``SHA-256(key || purpose as 4 bytes big-endian || b as 8 bytes big-endian)``, read as four 64-bit big-endian
integers, first to last. ``key`` is the deal's 32-byte key; purpose 0 deals, k >= 1 is the k-th reshuffle.

``engine/tests/test_rng.py`` and ``engine/tests/test_keys.py`` pin test vectors.
"""

from __future__ import annotations

import hashlib
import struct

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's output function: a 64-bit integer to a well-mixed 64-bit integer."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


_LIMITS = [0] + [(1 << 64) - ((1 << 64) % b) for b in range(1, 128)]


class _Stream:
    """What both generators share: ``below`` from their ``next`` (64-bit outputs)."""

    __slots__ = ()

    def next(self) -> int:  # pragma: no cover - each generator has its own
        raise NotImplementedError

    def below(self, bound: int) -> int:
        """Uniform integer in ``0..bound-1`` by rejection sampling (``bound`` >= 1)."""
        limit = (1 << 64) - ((1 << 64) % bound)
        while True:
            x = self.next()
            if x < limit:
                return x % bound


class SplitMix64(_Stream):
    """The SplitMix64 generator; ``next()`` gives the next 64-bit output."""

    __slots__ = ("state",)

    def __init__(self, seed: int, purpose: int = 0) -> None:
        self.state = mix64((seed * 0x100000001B3 + purpose) & MASK64)

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place, from the last index down (``below`` and ``next`` inlined: the same outputs)."""
        state = self.state
        golden, mask, limits = GOLDEN, MASK64, _LIMITS  # locals: this loop is a tenth of a random deal's time
        for i in range(len(items) - 1, 0, -1):
            bound = i + 1
            limit = limits[bound] if bound < 128 else (1 << 64) - ((1 << 64) % bound)
            while True:
                state = (state + golden) & mask
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
                x = z ^ (z >> 31)
                if x < limit:
                    break
            j = x % bound
            items[i], items[j] = items[j], items[i]
        self.state = state


class KeyStream(_Stream):
    """Engine version 2's generator: 64-bit outputs from SHA-256 in counter mode keyed by a 32-byte deal key and a
    purpose (0 deals, k >= 1 is the k-th reshuffle of the discard pile); ``next``, ``below`` and ``shuffle`` as
    ``SplitMix64``'s, so a shuffle is the same Fisher-Yates fed by another stream. ``ValueError`` for a key that is
    not 32 bytes or a purpose outside 0..2**32-1."""

    __slots__ = ("_prefix", "_block", "_words")

    def __init__(self, key: bytes, purpose: int = 0) -> None:
        if not isinstance(key, bytes) or len(key) != 32:
            raise ValueError(f"a deal key is 32 bytes, not {key!r:.80}")
        if not (isinstance(purpose, int) and 0 <= purpose < 1 << 32):
            raise ValueError(f"a stream purpose is an integer from 0 to 2**32-1, not {purpose!r}")
        self._prefix = hashlib.sha256(key + purpose.to_bytes(4, "big"))
        self._block = 0
        self._words: list[int] = []  # the current block's words not yet used, last first

    def _refill(self) -> None:
        h = self._prefix.copy()
        h.update(self._block.to_bytes(8, "big"))
        self._block += 1
        self._words = list(_UNPACK4(h.digest()))[::-1]

    def next(self) -> int:
        if not self._words:
            self._refill()
        return self._words.pop()

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place, from the last index down, as ``SplitMix64.shuffle``."""
        limits, nxt = _LIMITS, self.next
        for i in range(len(items) - 1, 0, -1):
            bound = i + 1
            limit = limits[bound] if bound < 128 else (1 << 64) - ((1 << 64) % bound)
            while True:
                x = nxt()
                if x < limit:
                    break
            j = x % bound
            items[i], items[j] = items[j], items[i]


_UNPACK4 = struct.Struct(">4Q").unpack


def shuffler(source: int | bytes | None, purpose: int) -> "SplitMix64 | KeyStream":
    """The generator of a deal's shuffle number ``purpose`` (0 deals, k the k-th reshuffle): a 32-byte key (engine
    version 2) gives a ``KeyStream``, an int seed (version 1; None for a position built by hand: 0) a ``SplitMix64``."""
    if isinstance(source, bytes):
        return KeyStream(source, purpose)
    return SplitMix64(source or 0, purpose)


def derive_seed(seed: int, index: int, bits: int = 40) -> int:
    """A child seed (``bits`` wide) for item ``index`` of a parent seed, e.g. deal k of a match."""
    return mix64((seed * 0x100000001B3 + 0x5EED + index) & MASK64) >> (64 - bits)


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DECODE = {c: i for i, c in enumerate(_CROCKFORD)}
_DECODE.update({"O": 0, "I": 1, "L": 1})


def deal_code(seed: int) -> str:
    """A short URL-safe code for a deal seed: Crockford base32, at least 8 characters (40-bit seeds).

    Raises ``ValueError`` for a negative or non-integer seed.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed > MASK64:
        raise ValueError(f"a deal seed is an integer from 0 to 2**64-1, not {seed!r}")
    out = []
    while seed:
        seed, d = divmod(seed, 32)
        out.append(_CROCKFORD[d])
    return "".join(reversed(out)).rjust(8, "0")


def seed_from_code(code: str) -> int:
    """The seed behind a deal code (case-insensitive, hyphens ignored); ``ValueError`` if it is not one."""
    if not isinstance(code, str) or not code.strip():
        raise ValueError(f"{code!r} is not a deal code: use the 8 or more letters and digits shown with the deal")
    if code.strip().upper().startswith("U"):
        raise ValueError(f"{code!r:.40} names a version 2 deal: its cards come from its 256-bit key, published with "
                         "the record of its match once the match has ended (a code alone cannot deal them)")
    seed = 0
    for ch in code.strip().upper().replace("-", ""):
        if ch not in _DECODE:
            raise ValueError(f"{code!r} is not a deal code: {ch!r} is not one of {_CROCKFORD}")
        seed = seed * 32 + _DECODE[ch]
    if seed > MASK64:
        raise ValueError(f"{code!r} is not a deal code: too long")
    return seed
