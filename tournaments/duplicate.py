"""Duplicate play, the pure part (no Django, no database): seatings, swings and the combined result of a set.

A *duplicate set* is n matches with one match seed, so deal k of every match deals seat s the same cards with the
same dealer (``eights_engine.match``: deal k's seed is ``derive_seed(match seed, k)`` and the dealer rotates from the
last seat whatever happens in play; ``engine/tests/test_duplicate_deals.py`` checks it for every preset). The n
matches seat the same n players in the n ``rotations``, so every player holds every seat's cards once.

Only the start of a deal is shared: after the first different choice the same stock feeds different seats, and a
match to 100 has no fixed length. So a deal is compared only where every match of the set played it to its end
(the *common deals*: deals 1..K, K the fewest finished deals of any match of the set), and on such a deal a
player's result from seat s is compared only with the other players who held seat s's cards.

**Swing.** On a common deal k, the player who held seat s in match r scored ``p[r][k][s]`` points. Their swing from
that seat is how much better they did than the mean of the others who held the same cards::

    swing = better(p_own, mean(p_others))   # p_own - mean(others) when higher points are better,
                                            # mean(others) - p_own under penalty scoring (lower is better)

A player's swing on a deal is the sum over the seats they held (one per match); their *duplicate score* is the sum
over the common deals. Two seats (the mirror: X, Y then Y, X): X's swing on deal k is (X's points from seat 0 in A
against Y's from seat 0 in B) plus (X's from seat 1 in B against Y's from seat 1 in A), each signed so that better
is positive. Swings are exact fractions (the mean of n - 1 others) and sum to zero over the players of a set.

**Combined result (what the rating uses).** Places by duplicate score, highest first; equal scores share a place
(a tie, which openskill rates as one: e.g. two equally good bots whose swings cancel exactly). A player who
forfeited any match of the set is placed below every player who forfeited none (ordered among themselves by score).
Under ``partnership`` (seats 0+2 against 1+3, which every rotation keeps together) a player's score is their side's:
their own swing plus their partner's, so partners share a place. We rank by swings and not by the match points
of the n matches added up because only the swings compare like with like: match points also count the deals that
only some matches of the set reached (one match ended after 5 deals, its mirror after 9: deals 6..9 were dealt to
one seating only, their luck is not cancelled), and a place in a match depends on every deal's luck. BENCHMARKS.md
("Duplicate play") measures both against plain matches.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction


def rotations(players: Sequence) -> list[list]:
    """The seatings of a duplicate set of ``players`` (in seat order of the first match): n seatings for n players,
    seating r putting ``players[i]`` in seat ``(i + r) % n``. Two players: ``[[X, Y], [Y, X]]`` (the mirror).
    Every player sits in every seat exactly once, and partners (seats 0+2, 1+3 of a 4-seat partnership) stay
    partners: players two seats apart stay two seats apart. ``ValueError`` for fewer than 2 players or a repeated player."""
    players = list(players)
    if len(players) < 2:
        raise ValueError(f"a duplicate set seats 2 or more players, not {len(players)}")
    if len(set(players)) != len(players):
        raise ValueError("a duplicate set seats each player once")
    n = len(players)
    return [[players[(s - r) % n] for s in range(n)] for r in range(n)]


@dataclass(frozen=True)
class SetMatch:
    """One match of a duplicate set as the scoring needs it: ``seating`` (a player key per seat, keys hashable),
    ``deal_points`` (per finished deal, in deal order, the points each seat scored on it: ``DealResult.points``)
    and ``forfeited`` (the key of the player who forfeited this match, or None)."""

    seating: tuple
    deal_points: tuple
    forfeited: Hashable | None = None

    @classmethod
    def of(cls, seating: Sequence, deal_points: Sequence[Sequence[int]], forfeited: Hashable | None = None) -> "SetMatch":
        """Build one from lists; ``ValueError`` when a deal's points do not have one entry per seat."""
        seating = tuple(seating)
        points = tuple(tuple(int(p) for p in deal) for deal in deal_points)
        for k, deal in enumerate(points, start=1):
            if len(deal) != len(seating):
                raise ValueError(f"deal {k} has points for {len(deal)} seats; the match seats {len(seating)}")
        return cls(seating, points, forfeited)


def check_set(matches: Sequence[SetMatch]) -> list:
    """The set's players (in seat order of its first match) after checking that the matches are exactly the
    ``rotations`` of them, in any order. ``ValueError`` says what is wrong."""
    if not matches:
        raise ValueError("a duplicate set has at least one match")
    players = list(matches[0].seating)
    expected = sorted(map(repr, (tuple(s) for s in rotations(players))))
    found = sorted(repr(tuple(m.seating)) for m in matches)
    if expected != found:
        raise ValueError(f"a duplicate set of {len(players)} players is their {len(players)} rotations, one match "
                         f"each; these seatings are not: {found}")
    return players


def common_deals(matches: Sequence[SetMatch]) -> int:
    """How many deals every match of the set finished (deals 1..K are compared; later ones are not)."""
    return min((len(m.deal_points) for m in matches), default=0)


def deal_swings(matches: Sequence[SetMatch], *, lower_is_better: bool) -> list[dict]:
    """Per common deal (deal order), each player's swing on it (a ``Fraction``; see the module docstring).
    ``lower_is_better``: penalty scoring. ``ValueError`` unless the matches are the rotations of one seating."""
    players = check_set(matches)
    n = len(players)
    sign = -1 if lower_is_better else 1
    out = []
    for k in range(common_deals(matches)):
        swings = {p: Fraction(0) for p in players}
        for s in range(n):
            held = [(m.seating[s], m.deal_points[k][s]) for m in matches]
            total = sum(points for _, points in held)
            for player, points in held:
                others = Fraction(total - points, n - 1)
                swings[player] += sign * (points - others)
        out.append(swings)
    return out


def swing_totals(matches: Sequence[SetMatch], *, lower_is_better: bool, partnership: bool = False) -> dict:
    """Each player's duplicate score: swings summed over the common deals (``Fraction``); under ``partnership`` the
    side's (own plus partner's, the partner sitting two seats on)."""
    players = check_set(matches)
    totals = {p: Fraction(0) for p in players}
    for swings in deal_swings(matches, lower_is_better=lower_is_better):
        for player, swing in swings.items():
            totals[player] += swing
    if partnership:
        if len(players) != 4:
            raise ValueError(f"a partnership seats 4 players, not {len(players)}")
        seating = matches[0].seating
        totals = {seating[s]: totals[seating[s]] + totals[seating[(s + 2) % 4]] for s in range(4)}
    return totals


def combined_places(matches: Sequence[SetMatch], *, lower_is_better: bool, partnership: bool = False) -> dict:
    """The set's result for the rating: each player's place (1 = first) by duplicate score, highest first; equal
    scores share the better place (1, 1, 3); players who forfeited a match of the set come after all others. A
    partnership's partners always share a place. See the module docstring for why swings and not match points."""
    totals = swing_totals(matches, lower_is_better=lower_is_better, partnership=partnership)
    forfeits = {m.forfeited for m in matches if m.forfeited is not None}
    key = {p: (p in forfeits, -score) for p, score in totals.items()}
    return {p: 1 + sum(1 for other in key.values() if other < mine) for p, mine in key.items()}


def common_deal_points(matches: Sequence[SetMatch]) -> dict:
    """Each player's card points summed over the common deals and the seats they held (what a standings table shows
    as card points for a set; equal duplicate scores have equal sums on two seats). ``ValueError`` as ``check_set``."""
    players = check_set(matches)
    totals = {p: 0 for p in players}
    for k in range(common_deals(matches)):
        for m in matches:
            for s, player in enumerate(m.seating):
                totals[player] += m.deal_points[k][s]
    return totals
