"""Player names that cannot pass for one another (Unicode TR39 in spirit: normalise, refuse invisibles, compare
confusable skeletons).

A name is NFKC-normalised (fullwidth and mathematical letters become plain ones) with every run of white space
made one space; it may not hold control, format, private-use, unassigned or invisible characters (zero-width
spaces, direction overrides, Hangul fillers, variation selectors); and its *skeleton* must differ from every other
player's. ``Player.name_skeleton`` stores each player's skeleton.

The skeleton (``name_skeleton``): accents and other combining marks are dropped (``Zoë`` and ``Zoe`` are one
name), then each character becomes the prototype it can be confused with (Unicode confusables data shipped by
``confusable-homoglyphs``, TR39's confusables.txt) *before* case-folding, as TR39 does (``CounseI`` with a capital
I is ``Counsel``: folding first would make the I an i), then the result is case-folded and mapped again until
nothing changes. TR39 keeps small capitals as letters of their own and maps Cyrillic к to ĸ (kra) and ғ to r̵;
``_CASE_LIKE`` makes those the plain letter (small capitals are a case of the letter, as names ignore case).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: invisible characters Unicode counts as letters or marks (not category C): Hangul fillers, the Braille blank,
#: the Mongolian vowel separator, combining grapheme joiner, variation selectors
_INVISIBLE = set("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f") | {chr(c) for c in range(0xFE00, 0xFE10)} | {
    chr(c) for c in range(0xE0100, 0xE01F0)}
_SPACES = re.compile(r"\s+")
_MARKS = "\u200e\u200f"  # the confusables data wraps right-to-left characters in direction marks
_SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
#: prototypes of TR39's that are a plain letter's look-alike in a name: kra (Cyrillic к, small capital K map to it),
#: Cyrillic ghe with stroke (TR39: r̵; in a name it is the small capital F, ꜰ), turned w (Cyrillic м, small capital M)
_CASE_LIKE = {"\u0138": "k", "\u0493": "f", "\u028d": "m"}


class NameRefused(ValueError):
    """A name that may not be used: ``code`` is ``invalid_name`` or ``name_taken``; ``detail`` says what is wrong
    and what would be right."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def name_normalize(name: str) -> str:
    """NFKC, every run of white space one space, no space at either end."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip()


def name_problem(name: str) -> str | None:
    """Why a name cannot be shown safely, or None: its first invisible or control character (white space is
    fine: ``name_normalize`` makes each run of it one space). Judge the name as given, before NFKC (which turns
    some invisibles into others)."""
    for index, ch in enumerate(name):
        if ch.isspace():
            continue
        category = unicodedata.category(ch)
        if category.startswith("C") or category in ("Zl", "Zp") or ch in _INVISIBLE:
            label = unicodedata.name(ch, "unnamed character")
            return (f"a name may not contain invisible or control characters: U+{ord(ch):04X} ({label}) at "
                    f"position {index + 1}; use letters, digits, spaces and punctuation")
    return None


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype. The package stores confusables.txt as a graph both ways: a
    character listing exactly one look-alike is a source whose prototype that is; where two characters list only
    each other, the lower code point stands for both."""
    from confusable_homoglyphs.confusables import confusables_data

    single = {}
    for char, homoglyphs in confusables_data.items():
        char = char.strip(_MARKS)
        if len(char) == 1 and len(homoglyphs) == 1:
            single[char] = homoglyphs[0]["c"].strip(_MARKS)
    result = {}
    for char, target in single.items():
        seen = {char}
        while target in single and target not in seen:  # follow to the end, a cycle ends at its lowest
            seen.add(target)
            target = single[target]
        result[char] = min(seen | {target}) if target in seen else target
    for code in range(0x250, 0xAB00):  # small capitals (IPA, phonetic extensions, Latin extended-D): their letter
        match = _SMALL_CAPITAL.fullmatch(unicodedata.name(chr(code), ""))
        if match:
            result[chr(code)] = match.group(1).lower()
    for char, target in list(result.items()):
        result[char] = _CASE_LIKE.get(target, target)
    result.update(_CASE_LIKE)
    return result


def _bare(text: str) -> str:
    """``text`` in NFKD without combining marks (categories Mn, Me): ``Zoë`` → ``Zoe``, ``ṙ`` → ``r``."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if unicodedata.category(ch) not in ("Mn", "Me"))


def name_skeleton(name: str) -> str:
    """The form two look-alike names share (see the module's docstring): normalised, without combining marks,
    each character its confusable prototype before case-folding, then case-folded and mapped again until nothing
    changes. ``Prοfessor`` (Greek omicron), ``Ｐｒｏｆｅｓｓｏｒ``, ``Pr0fessor``, ``Prᴏғessor`` (small capital,
    Cyrillic ghe with stroke) and ``Professör`` all give ``professor``; ``CounseI`` (capital I) gives ``counsel``."""
    prototypes = _prototypes()
    skeleton = _bare(name_normalize(name))
    for _ in range(6):
        mapped = _bare("".join(prototypes.get(ch, ch) for ch in skeleton))  # TR39: prototypes before folding
        mapped = _bare("".join(prototypes.get(ch, ch) for ch in mapped.casefold()))
        if mapped == skeleton:
            break
        skeleton = mapped
    return skeleton


@lru_cache(maxsize=1)
def _guest_pattern() -> re.Pattern:
    """Skeletons of the guests' naming scheme (``games.people.guests``: ``Guest <6 hex digits>``): ``guest`` alone, or
    followed by any run of spaces, ``_``, ``.`` or ``-`` and six characters whose skeletons are a hex digit's (``0``
    and ``O`` are both ``o``)."""
    hex_like = "".join(sorted({name_skeleton(ch) for ch in "0123456789abcdef"}))
    return re.compile(rf"{name_skeleton('Guest')}(?:[ _.\-]*[{re.escape(hex_like)}]{{6}})?")


def looks_like_a_guest(name: str) -> bool:
    """Whether ``name`` could pass for a guest's name (``Guest 0a0a0a``, ``Guest``, ``GUEST_0A0A0A``, ``Guеst``
    with a Cyrillic e, ...): compared by skeleton, like names among themselves."""
    return _guest_pattern().fullmatch(name_skeleton(name)) is not None
