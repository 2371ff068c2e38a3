"""Engine version 2's keys: how a match's secret and its seats' contributions become each deal's 256-bit key.

Every hash is SHA-256 over a label (ASCII, ending in a zero byte) followed by fixed-width fields, so the inputs
never run into one another and anyone can compute them in another language (docs/FAIRNESS.md, "Version 2"):

* ``secret`` (32 bytes): the service's part of a match, drawn from the operating system's generator when the
  match is created (``games.services.new_match_secret``; the engine itself draws nothing); or, for a match dealt from a chosen seed (fixed-seed trials, golden
  playthroughs, tests), ``secret_from_seed(seed) = SHA-256("eights-ladder/v2/seed\\0" || seed as 8 bytes
  big-endian)``: reproducible, and only as secret as the seed.
* ``secret_commitment(secret, seating) = SHA-256("eights-ladder/v2/secret-commitment\\0" || secret || seating)``,
  published when the match is created, before any seat has sent anything; the secret itself once the match is
  public. ``seating`` binds who sat where: one byte with the number of seats, then each seat's player id as 8 bytes
  big-endian, seat order; no seating (a match of the engine alone) is the single byte 0.
* ``contributions``: what each seat sent for a deal (0 to 32 bytes each; empty: nothing), encoded as one byte
  with the number of seats followed, per seat in seat order, by one byte with its length and its bytes; when no
  seat contributed anything the encoding is the single byte 0.
* ``deal_key(secret, number, contributions) = SHA-256("eights-ladder/v2/deal\\0" || secret || number as 4 bytes
  big-endian || contributions)``: the key of deal ``number`` (1-based). Keys of one match share only the secret,
  which no key reveals (SHA-256 is one-way), so one deal's cards tell nothing of another's.
* ``deal_key_commitment(key) = SHA-256("eights-ladder/v2/deal-commitment\\0" || key)``, published when the deal
  starts (seat views, bot turns).
* ``key_code(key)``: a short code naming a deal (``U`` and 12 Crockford base32 digits: the first 60 bits of
  ``SHA-256("eights-ladder/v2/deal-code\\0" || key)``). It names a stored deal and reveals nothing of its key: the
  cards can be dealt again only from the key, published with the record once the deal's match is public.

Hex in records and on the wire is lowercase. ``engine/tests/test_keys.py`` pins a vector for each function.
"""

from __future__ import annotations

import hashlib

from .rng import _CROCKFORD

SECRET_BYTES = 32
KEY_BYTES = 32
CONTRIBUTION_MAX_BYTES = 32
#: A contribution on the wire (a bot's reply, a person's move): 1 to 32 bytes as lowercase hex
CONTRIBUTION_PATTERN = r"(?:[0-9a-f]{2}){1,32}"
KEY_CODE_PREFIX = "U"  # not a Crockford digit, so a version 2 code never reads as a version 1 seed's code


def _sha256(label: str, *parts: bytes) -> bytes:
    h = hashlib.sha256(f"eights-ladder/v2/{label}".encode("ascii") + b"\0")
    for part in parts:
        h.update(part)
    return h.digest()


def parse_hex(value: object, what: str, size: int) -> bytes:
    """``value`` as ``size`` bytes: the bytes themselves or ``2 * size`` hex digits (either case). ``ValueError``
    naming ``what`` otherwise."""
    if isinstance(value, bytes) and len(value) == size:
        return value
    if isinstance(value, str) and len(value) == 2 * size:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raise ValueError(f"{what} is {2 * size} hex digits ({size} bytes), not {value!r:.80}")


def secret_from_seed(seed: int) -> bytes:
    """The match secret of a match dealt from a chosen ``seed`` (0..2**64-1): reproducible from the seed alone, so
    as secret as the seed is (fixed-seed trials, playthroughs, tests). ``ValueError`` for another seed."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << 64:
        raise ValueError(f"a match seed is an integer from 0 to 2**64-1, not {seed!r:.40}")
    return _sha256("seed", seed.to_bytes(8, "big"))


def encode_seating(seating: list[int] | None) -> bytes:
    """The seating's bytes as ``secret_commitment`` hashes them: the seat count, then each player id (8 bytes
    big-endian). ``ValueError`` for more than 255 seats or an id that is not an int from 0 to 2**64-1."""
    ids = list(seating or [])
    if len(ids) > 255 or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 1 << 64 for i in ids):
        raise ValueError(f"a seating is a list of up to 255 player ids (ints), not {seating!r:.80}")
    return bytes([len(ids)]) + b"".join(i.to_bytes(8, "big") for i in ids)


def secret_commitment(secret: bytes, seating: list[int] | None = None) -> str:
    """The commitment to a match secret and its seating (player ids by seat; None: the engine alone), 64 lowercase
    hex digits, published when the match is created, before any seat's contribution."""
    return _sha256("secret-commitment", parse_hex(secret, "a match secret", SECRET_BYTES),
                   encode_seating(seating)).hex()


def encode_contributions(contributions: list[bytes | None] | None) -> bytes:
    """The contributions' bytes as ``deal_key`` hashes them (see the module text). ``ValueError`` for more than 255
    seats or a contribution over ``CONTRIBUTION_MAX_BYTES``."""
    parts = [c or b"" for c in (contributions or [])]
    if not any(parts):
        return b"\0"
    if len(parts) > 255:
        raise ValueError("at most 255 seats contribute")
    out = bytearray([len(parts)])
    for part in parts:
        if not isinstance(part, bytes) or len(part) > CONTRIBUTION_MAX_BYTES:
            raise ValueError(f"a contribution is 0 to {CONTRIBUTION_MAX_BYTES} bytes, not {part!r:.80}")
        out.append(len(part))
        out += part
    return bytes(out)


def deal_key(secret: bytes, number: int, contributions: list[bytes | None] | None = None) -> bytes:
    """The 32-byte key of deal ``number`` (1-based) of the match with ``secret``, given the seats' contributions to
    that deal (a list by seat; None or empty entries: nothing). ``ValueError`` for a bad secret or number."""
    secret = parse_hex(secret, "a match secret", SECRET_BYTES)
    if not (isinstance(number, int) and 1 <= number < 1 << 32):
        raise ValueError(f"a deal number is an integer from 1 to 2**32-1, not {number!r}")
    return _sha256("deal", secret, number.to_bytes(4, "big"), encode_contributions(contributions))


def deal_key_commitment(key: bytes) -> str:
    """The commitment to a deal key (64 lowercase hex digits), public from the deal's start."""
    return _sha256("deal-commitment", parse_hex(key, "a deal key", KEY_BYTES)).hex()


def key_code(key: bytes) -> str:
    """The short code of a version 2 deal: ``U`` and 12 Crockford base32 digits (60 bits of a hash of the key)."""
    bits = int.from_bytes(_sha256("deal-code", parse_hex(key, "a deal key", KEY_BYTES))[:8], "big") >> 4
    digits = []
    for _ in range(12):
        bits, d = divmod(bits, 32)
        digits.append(_CROCKFORD[d])
    return KEY_CODE_PREFIX + "".join(reversed(digits))


def strategy_seed(key: bytes) -> int:
    """A 64-bit number for a house strategy's random choices in a version 2 deal: a hash of the key (a house seat's
    choices, seen by everyone, must tell nothing of the key)."""
    return int.from_bytes(_sha256("house", key)[:8], "big")
