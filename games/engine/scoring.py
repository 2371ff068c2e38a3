"""Deal scoring: what a finished deal adds to each seat's match total.

* ``penalty`` (systems B, D): every seat writes its own hand value; the seat that went out writes 0.
  A blocked deal under ``blocked="each_own"`` is the same (D); under ``lowest_collects_difference`` each seat
  writes what its hand exceeds the lowest hand by.
* ``winner_collects`` (A, C, E): the seat that went out collects the others' hand values. A blocked deal
  under ``lowest_collects_difference`` (A, E): the lowest hand collects from each other seat the difference;
  when lowest hands tie, ``blocked_tie="split"`` (A) gives each tied seat the winnings divided by the number
  of tied seats, rounded down (our reading of "half each"), and ``"nobody"`` (E) scores nothing. Under
  ``each_own`` a blocked winner-collects deal scores nothing (our reading: nobody went out).
"""

from __future__ import annotations

from .rules import Ruleset


def deal_points(ruleset: Ruleset, outcome: str, winner: int | None, hand_values: list[int]) -> list[int]:
    """Points per seat for a finished deal; ``hand_values`` by seat in points."""
    seats = len(hand_values)
    if outcome == "out":
        if ruleset.scoring == "penalty":
            return list(hand_values)
        points = [0] * seats
        points[winner] = sum(v for s, v in enumerate(hand_values) if s != winner)
        return points
    low = min(hand_values)
    if ruleset.scoring == "penalty":
        if ruleset.blocked == "each_own":
            return list(hand_values)
        return [v - low for v in hand_values]
    points = [0] * seats
    if ruleset.blocked == "each_own":
        return points
    lowest = [s for s, v in enumerate(hand_values) if v == low]
    winnings = sum(v - low for v in hand_values)
    if len(lowest) == 1:
        points[lowest[0]] = winnings
    elif ruleset.blocked_tie == "split":
        for s in lowest:
            points[s] = winnings // len(lowest)
    return points
