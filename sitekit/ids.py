"""Ids in URLs, forms and filters: ASCII digits only (``"²".isdigit()`` is true and ``int("²")`` fails)."""

from __future__ import annotations

import re

_ID = re.compile(r"[0-9]{1,18}")


def parse_id(text: object) -> int | None:
    """The row id ``text`` spells (1 to 18 ASCII digits, so it fits a 64-bit key), else None. An ``int`` passes
    through when it is not negative; anything else (superscripts, signs, spaces, other types) gives None."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text if text >= 0 else None
    return int(text) if isinstance(text, str) and _ID.fullmatch(text) else None
