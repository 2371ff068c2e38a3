"""Cards as small integers, and their two-character codes.

A card is ``suit * 13 + rank`` with rank 0..12 for ``A23456789TJQK`` and suit 0..3 for ``CDHS``.
Codes are canonical on output (``"8H"``, ``"TS"``); parsing also accepts ``"10S"`` and lower case.
A double deck holds every card twice; two copies of a card are the same integer.
"""

from __future__ import annotations

from functools import lru_cache

from .errors import IllegalAction

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("\u2663", "\u2666", "\u2665", "\u2660")
RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")

ACE, TWO, EIGHT, JACK, QUEEN, KING = 0, 1, 7, 10, 11, 12
QUEEN_OF_SPADES = 3 * 13 + QUEEN  # the draw-five card of A3 E
CARD_CODES = tuple(r + s for s in SUITS for r in RANKS)
_CODE_TO_CARD = {code: i for i, code in enumerate(CARD_CODES)}

#: Standard card values (every system): eight 50; K, Q, J, ten 10; ace 1; others face value.
STANDARD_VALUES = tuple((50 if r == EIGHT else 10 if r >= 9 else r + 1) for _s in SUITS for r in range(13))
#: Hollywood values (system A1): eight 20, ace 15, K Q J 10, others face value.
HOLLYWOOD_VALUES = tuple(
    (20 if r == EIGHT else 15 if r == ACE else 10 if r >= 9 else r + 1) for _s in SUITS for r in range(13)
)


def rank_of(card: int) -> int:
    """Rank index 0..12 (``A``..``K``) of a card."""
    return card % 13


def suit_of(card: int) -> int:
    """Suit index 0..3 (``CDHS``) of a card."""
    return card // 13


def card_code(card: int) -> str:
    """Canonical code of a card, e.g. ``"8H"``."""
    return CARD_CODES[card]


def parse_card(text: object) -> int:
    """Card integer for a code such as ``"8H"``, ``"10s"`` or ``"th"``.

    Raises ``IllegalAction`` (a ``ValueError``) naming the expected form when ``text`` is not a card.
    """
    if isinstance(text, str):
        t = text.strip().upper()
        if t.startswith("10"):
            t = "T" + t[2:]
        card = _CODE_TO_CARD.get(t)
        if card is not None:
            return card
    raise IllegalAction(f"{text!r:.40} is not a card: use a rank from {RANKS} (or 10) and a suit from {SUITS}, e.g. '8H'")


def parse_suit(text: object) -> int:
    """Suit index for ``"C"``, ``"D"``, ``"H"``, ``"S"`` (any case, or the English name).

    Raises ``IllegalAction`` when ``text`` is not a suit.
    """
    if isinstance(text, str):
        t = text.strip().lower()
        for i, (letter, name) in enumerate(zip(SUITS, SUIT_NAMES)):
            if t in (letter.lower(), name, name[:-1]):
                return i
    raise IllegalAction(f"{text!r:.40} is not a suit: use one of C, D, H, S")


def describe_card(card: int) -> str:
    """Words for a card, e.g. ``"eight of hearts"``; used in messages."""
    rank = RANK_NAMES[rank_of(card)]
    return f"{'eight' if rank == '8' else rank} of {SUIT_NAMES[suit_of(card)]}"


def deck_cards(ranks: str = "52", decks: int = 1) -> list[int]:
    """The cards of a fresh deck in code order (clubs A..K, diamonds, hearts, spades), ``decks`` times.

    ``ranks`` is ``"52"`` (A..K) or ``"36"`` (6..A, as in system B's 36-card deck).
    """
    return list(_deck(ranks, decks))


@lru_cache(maxsize=8)
def _deck(ranks: str, decks: int) -> tuple:
    allowed = range(13) if ranks == "52" else [ACE] + list(range(5, 13))
    return tuple(s * 13 + r for s in range(4) for r in sorted(allowed)) * decks
