"""Deal scoring: what a finished deal adds to each seat's match total.

* ``penalty`` (systems B, D): every seat writes its own hand value; the seat that went out writes 0.
  A blocked deal under ``blocked="each_own"`` is the same (D); under ``lowest_collects_difference`` each seat
  writes what its hand exceeds the lowest hand by.
* ``winner_collects`` (A, C, E) and ``hollywood`` (A1, per deal): the seat that went out collects the others'
  hand values. A blocked deal under ``lowest_collects_difference`` (A, E): the lowest hand collects from each
  other seat the difference; when lowest hands tie, ``blocked_tie="split"`` (A) gives each tied seat the
  winnings divided by the number of tied seats, rounded down (our reading of "half each"), and ``"nobody"`` (E)
  scores nothing. Under ``each_own`` a blocked winner-collects deal scores nothing (our reading: nobody went out).
* ``partnership`` (A, C; seats 0+2 against 1+3): the same rules between the two sides, a side's hand value being
  the sum of its members'. Penalty points stay with each seat (a side's total is the sum of its members');
  points a side collects are written to one member: the seat whose going out completed the side, or for a
  blocked deal the side's lower seat (our reading; only the side total matters).
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Ruleset


@dataclass(frozen=True)
class DealResult:
    """How a deal ended.

    ``outcome`` is ``"out"`` (``winner`` emptied the hand; under ``partnership``, the seat whose going out
    completed its side) or ``"blocked"`` (nobody could play or draw, or the ruleset's ``ply_limit`` was reached;
    ``winner`` is None). ``hand_values`` lists each seat's remaining cards in the ruleset's card values (points);
    ``points`` what the deal adds to each seat's match total under the scoring mode.
    """

    outcome: str
    winner: int | None
    hand_values: list[int]
    points: list[int]
    plies: int

    def to_dict(self) -> dict:
        return {"outcome": self.outcome, "winner": self.winner, "hand_values": list(self.hand_values),
                "points": list(self.points), "plies": self.plies}


def deal_points(ruleset: Ruleset, outcome: str, winner: int | None, hand_values: list[int]) -> list[int]:
    """Points per seat for a finished deal; ``hand_values`` by seat in points."""
    if ruleset.partnership and not ruleset.lower_total_wins:
        sides = [hand_values[0] + hand_values[2], hand_values[1] + hand_values[3]]
        side_points = _points(ruleset, outcome, None if winner is None else winner % 2, sides)
        points = [0, 0, 0, 0]
        for side, p in enumerate(side_points):
            points[winner if winner is not None and winner % 2 == side else side] = p
        return points
    return _points(ruleset, outcome, winner, hand_values)


def _points(ruleset: Ruleset, outcome: str, winner: int | None, values: list[int]) -> list[int]:
    seats = len(values)
    if outcome == "out" and ruleset.lower_total_wins:
        return list(values)
    if outcome == "out":
        points = [0] * seats
        points[winner] = sum(v for s, v in enumerate(values) if s != winner)
        return points
    low = min(values)
    if ruleset.lower_total_wins:
        return list(values) if ruleset.blocked == "each_own" else [v - low for v in values]
    points = [0] * seats
    if ruleset.blocked == "each_own":
        return points
    lowest = [s for s, v in enumerate(values) if v == low]
    winnings = sum(v - low for v in values)
    if len(lowest) == 1:
        points[lowest[0]] = winnings
    elif ruleset.blocked_tie == "split":
        for s in lowest:
            points[s] = winnings // len(lowest)
    return points
