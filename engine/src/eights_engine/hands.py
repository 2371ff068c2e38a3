"""Hands and other sets of cards as bitmasks: bit ``c`` stands for card ``c`` (``suit * 13 + rank``, ``cards.py``).

A seat's hand is two masks: ``mask`` holds every card the seat has, ``dup`` the second copies of a double deck (a
bit is set in ``dup`` only while it is set in ``mask``). The fit rule is one AND of these masks with the suit and
rank masks below, which is what makes the engine's fast path fast.
"""

from __future__ import annotations

from .cards import EIGHT, TWO

CARD_BITS = [1 << c for c in range(52)]
SUIT_MASKS = [sum(1 << (s * 13 + r) for r in range(13)) for s in range(4)]
RANK_MASKS = [sum(1 << (s * 13 + r) for s in range(4)) for r in range(13)]
EIGHTS_MASK = RANK_MASKS[EIGHT]
TWOS_MASK = RANK_MASKS[TWO]
ALL_MASK = (1 << 52) - 1


def bits(mask: int) -> list[int]:
    """Card integers of the set bits of ``mask``, ascending (code order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def hand_masks(cards: list[int]) -> tuple[int, int]:
    """``(mask, dup)`` of a list of card ints (a card listed twice sets its bit in both)."""
    mask = dup = 0
    for card in cards:
        bit = CARD_BITS[card]
        if mask & bit:
            dup |= bit
        else:
            mask |= bit
    return mask, dup


def hand_cards(mask: int, dup: int) -> list[int]:
    """The cards of a hand, sorted, second copies listed twice."""
    return sorted(bits(mask) + bits(dup))
