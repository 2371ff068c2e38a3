"""Deterministic shuffles keyed by a deal seed.

The algorithm is fixed and documented so that any implementation, on any machine and Python version, deals
the same cards from the same seed:

* the generator is SplitMix64 (Steele, Lea and Flood 2014): ``state += 0x9E3779B97F4A7C15``, then
  ``z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB; z ^ z>>31``,
  all modulo 2**64;
* a stream is keyed by ``(seed, purpose)``: its starting state is ``mix(seed * 0x100000001B3 + purpose)``
  where purpose 0 deals, and purpose k >= 1 is the k-th reshuffle of the discard pile in that deal;
* a shuffle is Fisher-Yates from the last index down: for ``i = n-1 .. 1`` pick ``j`` uniform in ``0..i``
  by rejection sampling (draw ``x``; reject while ``x >= 2**64 - (2**64 % (i+1))``; ``j = x % (i+1)``) and
  swap items ``i`` and ``j``.

``tests/engine/test_rng.py`` pins a test vector.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's output function: a 64-bit integer to a well-mixed 64-bit integer."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


_LIMITS = [0] + [(1 << 64) - ((1 << 64) % b) for b in range(1, 128)]


class SplitMix64:
    """The SplitMix64 generator; ``next()`` gives the next 64-bit output."""

    __slots__ = ("state",)

    def __init__(self, seed: int, purpose: int = 0) -> None:
        self.state = mix64((seed * 0x100000001B3 + purpose) & MASK64)

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, bound: int) -> int:
        """Uniform integer in ``0..bound-1`` by rejection sampling (``bound`` >= 1)."""
        limit = (1 << 64) - ((1 << 64) % bound)
        while True:
            x = self.next()
            if x < limit:
                return x % bound

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
    seed = 0
    for ch in code.strip().upper().replace("-", ""):
        if ch not in _DECODE:
            raise ValueError(f"{code!r} is not a deal code: {ch!r} is not one of {_CROCKFORD}")
        seed = seed * 32 + _DECODE[ch]
    if seed > MASK64:
        raise ValueError(f"{code!r} is not a deal code: too long")
    return seed
