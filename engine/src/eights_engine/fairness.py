"""Provably fair deals: a deal's commitment (docs/FAIRNESS.md). No Django, no I/O, no randomness of its own.

Before a deal starts the service draws a secret per-deal salt (16 random bytes, ``SALT_BYTES``; drawn by
``games.services``, never here) and publishes only the **commitment**::

    commitment = SHA-256( ASCII bytes of f"{seed}:{salt}" ), as 64 lowercase hex digits

where ``seed`` is the deal seed in decimal (no sign, no leading zeros: Python's ``str(int)``) and ``salt`` the salt
as 32 lowercase hex digits. Every seat view and every bot's turn request of the deal carries the commitment; the
seed and salt are published in the match record once the match is finished, and ``verify_commitment`` (run by
``eights_engine.record.verify_record`` for every deal) checks that they open it. The salt keeps the commitment from
revealing the seed (a 40-bit seed alone could be found from its hash by trying them all).
"""

from __future__ import annotations

import hashlib
import re

#: bytes of randomness in a salt (written as twice as many lowercase hex digits)
SALT_BYTES = 16
SALT_RE = re.compile(r"[0-9a-f]{32}")
COMMITMENT_RE = re.compile(r"[0-9a-f]{64}")
#: what ``verify_record`` and the match page say about a deal stored before commitments existed
UNCOMMITTED = "no commitment (dealt before commitments)"


def commitment_message(seed: int, salt: str) -> bytes:
    """The bytes that are hashed: ``f"{seed}:{salt}"`` in ASCII. ``ValueError`` for a seed that is not a
    non-negative int or a salt that is not 32 lowercase hex digits."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"a deal seed is a non-negative integer, not {seed!r:.40}")
    if not isinstance(salt, str) or not SALT_RE.fullmatch(salt):
        raise ValueError(f"a salt is {SALT_BYTES * 2} lowercase hex digits, not {salt!r:.80}")
    return f"{seed}:{salt}".encode("ascii")


def deal_commitment(seed: int, salt: str) -> str:
    """The commitment to deal seed ``seed`` with ``salt``: SHA-256 of ``commitment_message``, lowercase hex."""
    return hashlib.sha256(commitment_message(seed, salt)).hexdigest()


def verify_commitment(seed: int, salt: str, commitment: str) -> str | None:
    """None when ``commitment`` is SHA-256 of ``f"{seed}:{salt}"``; else what differs, in words (a salt or a
    commitment that is not lowercase hex of the right length, or the digest the seed and salt give)."""
    if not isinstance(commitment, str) or not COMMITMENT_RE.fullmatch(commitment):
        return f"the commitment must be 64 lowercase hex digits, found {commitment!r:.80}"
    try:
        expected = deal_commitment(seed, salt)
    except ValueError as exc:
        return str(exc)
    if expected != commitment:
        return (f"SHA-256 of {seed}:{salt} is {expected}, the commitment published before the deal is {commitment} "
                "(the seed, the salt or the commitment was changed)")
    return None
