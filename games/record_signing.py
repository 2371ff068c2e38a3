"""The service's Ed25519 key that signs every exported match record (docs/MATCH_RECORD.md, "Signature";
``eights_engine.proof`` checks it offline). The key is ``RECORD_SIGNING_KEY`` (its 32-byte private seed in hex), or,
when that is unset, one made on first use and kept in ``RECORD_SIGNING_KEY_FILE`` (mode 0600; two processes making it
at once agree on one). Its public half is published at ``GET /api/records/signing-key/``."""

from __future__ import annotations

import os
import secrets
import threading
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from eights_engine.proof import SIGNATURE_ALGORITHM, signed_bytes

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _key():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed = settings.RECORD_SIGNING_KEY.strip() or _seed_from_file(Path(settings.RECORD_SIGNING_KEY_FILE))
    try:
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
    except ValueError:
        raise ValueError("RECORD_SIGNING_KEY is 64 hex digits (an Ed25519 private seed of 32 bytes)") from None


def _seed_from_file(path: Path) -> str:
    """The seed kept in ``path``, made (32 random bytes, hex) when there is none: written to a temporary file and
    linked into place, so a reader never sees half a key and two makers end up with the first one's."""
    with _lock:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32) + "\n")
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass  # another process made it first: use its key
            finally:
                temporary.unlink()
        return path.read_text().strip()


def public_key_hex() -> str:
    """The public half of the signing key, 64 lowercase hex digits."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return _key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def sign_record(record: dict) -> dict:
    """``record`` with its ``signature`` (``{"algorithm": "ed25519", "public_key", "value"}``, hex) over
    ``eights_engine.proof.signed_bytes``: changed in place and returned."""
    record.pop("signature", None)
    value = _key().sign(signed_bytes(record)).hex()
    record["signature"] = {"algorithm": SIGNATURE_ALGORITHM, "public_key": public_key_hex(), "value": value}
    return record
