"""What an exported record must prove beyond its cards (docs/MATCH_RECORD.md, format 2): a forfeit follows from the
plies under the fault policy, and the record is the one the service signed.

* **Forfeits** (``FaultBook``): a format 2 record lists each deal's faulted plies (``faults``: ``[[ply, kind], ...]``,
  ply 1-based) and each seat's ``max_faults`` (the consecutive faults that forfeit it; null: never, a house seat).
  A faulted ply must be the fallback action (``strategies.fallback_action``: draw, else pass, else the first legal
  action); a ply that stood resets the seat's count; the seat that reaches its limit forfeits at once, so that ply
  is the record's last and the result names that seat. A fault of kind ``abandoned`` (``referee.FORFEIT_AT_ONCE``:
  a person who left a rated table, the others ended the wait) forfeits a seat with a limit at once. A forfeit the plies do not prove is refused, and so is a
  record that goes on after one.
* **Signatures** (``check_signature``): the service signs an exported record with Ed25519 (RFC 8032) over its
  canonical JSON (``signed_bytes``: the record without ``signature``, keys sorted, no spaces, UTF-8) and adds
  ``signature: {"algorithm": "ed25519", "public_key": hex, "value": hex}``. The check needs the ``cryptography``
  package, imported only when a record is checked.
"""

from __future__ import annotations

import json
import re

from .match import ReplayMismatch
from .referee import FORFEIT_AT_ONCE
from .strategies import fallback_action

SIGNATURE_ALGORITHM = "ed25519"
_HEX64, _HEX128 = re.compile(r"[0-9a-f]{64}"), re.compile(r"[0-9a-f]{128}")


class FaultBook:
    """The seats' consecutive faults while a record is replayed. ``faults``: per deal number, ``{ply: kind}``;
    ``limits``: per seat, its forfeit limit or None. ``ply(state, number, ply, action)`` before each action is
    applied; ``forfeit`` the seat that forfeited (None) once it happened, with ``at`` its (deal, ply)."""

    def __init__(self, record: dict, seats: int) -> None:
        self.faults: dict[int, dict[int, str]] = {}
        for i, deal in enumerate(record["deals"]):
            entries = deal.get("faults") or []
            try:
                self.faults[i + 1] = {_ply(ply): str(kind) for ply, kind in entries}
            except (TypeError, ValueError, OverflowError):
                raise ReplayMismatch(f"deal {i + 1}: faults are [ply, kind] pairs, not {entries!r:.80}") from None
        players = record.get("players") or []
        self.limits = [p.get("max_faults") if isinstance(p, dict) else None for p in players] + [None] * seats
        for seat, player in enumerate(players):
            limit = player.get("max_faults") if isinstance(player, dict) else None
            if isinstance(player, dict) and player.get("kind") == "house" and limit is not None:
                raise ReplayMismatch(f"match: seat {seat}'s max_faults expected null (a house seat never forfeits), "
                                     f"found {limit!r:.20}", what="max_faults", expected=None, found=limit)
            if limit is not None and not (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1):
                raise ReplayMismatch(f"match: seat {seat}'s max_faults is a whole number from 1, or null, not "
                                     f"{limit!r:.20}", what="max_faults", found=limit)
        self.streak = [0] * seats
        self.forfeit: int | None = None
        self.at: tuple[int, int] | None = None

    def ply(self, state, number: int, ply: int, action: object) -> None:
        """Count the ply ``ply`` (1-based) of deal ``number`` about to be applied to ``state``; ``ReplayMismatch``
        when a ply follows a forfeit, or a faulted ply is not the fallback."""
        if self.forfeit is not None:
            raise ReplayMismatch(f"deal {number} ply {ply}: expected the match to have ended with seat "
                                 f"{self.forfeit}'s forfeit at deal {self.at[0]} ply {self.at[1]}, found another ply",
                                 deal=number, ply=ply, what="forfeit", expected="the match's end", found=action)
        seat = state.to_play
        kind = self.faults.get(number, {}).get(ply)
        if kind is None:
            self.streak[seat] = 0
            return
        fallback = fallback_action(state.legal_actions())
        if action != fallback:
            raise ReplayMismatch(f"deal {number} ply {ply}: a faulted ply ({kind}) plays the fallback "
                                 f"{json.dumps(fallback)}, found {json.dumps(action)[:120]}", deal=number, ply=ply,
                                 what="fault", expected=fallback, found=action)
        self.streak[seat] += 1
        limit = self.limits[seat]
        if isinstance(limit, int) and not isinstance(limit, bool) and (self.streak[seat] >= limit
                                                                       or kind in FORFEIT_AT_ONCE):
            self.forfeit, self.at = seat, (number, ply)

    def check_result(self, claimed: object) -> None:
        """The result's ``forfeited`` seat against the forfeit the plies prove (``ReplayMismatch`` when they
        differ)."""
        if claimed != self.forfeit:
            proved = ("no seat forfeited" if self.forfeit is None else
                      f"seat {self.forfeit} forfeited at deal {self.at[0]} ply {self.at[1]}")
            raise ReplayMismatch(f"match: forfeited expected {self.forfeit!r} (the plies and the fault policy: "
                                 f"{proved}), found {claimed!r:.40}", what="forfeited", expected=self.forfeit,
                                 found=claimed)


def _ply(value: object) -> int:
    """A fault's ply: a whole number from 1 (a JSON integer; ``ValueError`` otherwise)."""
    if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
        raise ValueError(f"a ply is a whole number from 1, not {value!r:.20}")
    return value


def signed_bytes(record: dict) -> bytes:
    """The bytes a record's signature is over: the record without ``signature``, as JSON with sorted keys, no
    spaces, UTF-8 (non-ASCII characters as they are)."""
    body = {k: v for k, v in record.items() if k != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def check_signature(record: dict, public_key: str | None = None) -> str:
    """Check the record's ``signature`` (Ed25519 over ``signed_bytes``); with ``public_key`` (64 hex digits) the
    record must be signed by that key. Returns the signing key (hex). ``ReplayMismatch`` when the signature is
    missing, malformed, by another key, or does not verify (the record was changed after it was signed)."""
    signature = record.get("signature")
    if not isinstance(signature, dict):
        raise ReplayMismatch("match: expected the service's signature (an object with algorithm, public_key and "
                             "value), found none", what="signature")
    if signature.get("algorithm") != SIGNATURE_ALGORITHM:
        raise ReplayMismatch(f"match: signature algorithm expected {SIGNATURE_ALGORITHM}, found "
                             f"{signature.get('algorithm')!r:.40}", what="signature")
    key, value = signature.get("public_key"), signature.get("value")
    if not (isinstance(key, str) and _HEX64.fullmatch(key) and isinstance(value, str) and _HEX128.fullmatch(value)):
        raise ReplayMismatch("match: a signature's public_key is 64 and its value 128 lowercase hex digits",
                             what="signature")
    if public_key is not None and key != public_key.lower():
        raise ReplayMismatch(f"match: signed by key {key!r:.70}, expected the service's {public_key.lower()}",
                             what="signature", expected=public_key.lower(), found=key)
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:  # pragma: no cover - a dependency of the service; an author's machine may lack it
        raise ReplayMismatch("match: checking a signature needs the 'cryptography' package (pip install "
                             "cryptography)", what="signature") from None
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(bytes.fromhex(value), signed_bytes(record))
    except (InvalidSignature, ValueError, TypeError):
        raise ReplayMismatch("match: the signature does not verify: the record was changed after the service "
                             "signed it (or the signature is not the service's)", what="signature") from None
    return key
