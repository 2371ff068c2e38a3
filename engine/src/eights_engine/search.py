"""Search from one seat's information: flat Monte Carlo over determinized deals (perfect-information Monte Carlo).

``pimc_action(view, ruleset, legal, samples=..., seed=...)`` rates each legal action of the seat to play by playing
it in ``samples`` deals the seat cannot tell from the real one and finishing each deal with a playout policy in the
compiled fast path (``fast``), and returns the action whose deals scored best for the seat on average. It reads the
seat's view and the ruleset only (the view and ruleset of a bot's ``turn`` request will do):
``infosets.sample_deal`` deals the cards the seat cannot see once, then ``determinize`` deals them again for every
sample (so a starter buried under the pile keeps the card the first sample gave it). All actions of one sample are
played from the same deal with the same seed (common random numbers), so their difference is the actions'.

The score of a finished deal for the seat is its points against the others' average, signed so that more is better
(``Ruleset.lower_total_wins``). Under ``partnership`` it still scores the seat alone.

It is a stepping stone, not yet a house strategy: ``benchmarks/search_bench.py`` plays it against the house
strategies (BENCHMARKS.md, "Search from a seat's information"). Over 400 matches a table against the tactician
it wins 0.555 one on one at the web table (95 % interval 0.506-0.603) and 0.547 under pagat (0.499-0.596), but
only 0.304 at three seats, where a fair share is a third.
"""

from __future__ import annotations

from .fast import HEURISTIC, fast_deal
from .infosets import sample_deal
from .rng import SplitMix64
from .rules import Ruleset


def pimc_action(view: dict, ruleset: Ruleset, legal: list[int], *, samples: int = 256, seed: int = 0,
                policy: int = HEURISTIC) -> int:
    """The action id of ``legal`` (the seat to play's legal ids, canonical order) with the best average score over
    ``samples`` determinized deals played out by ``policy`` (``fast.UNIFORM``, ``EAGER`` or ``HEURISTIC``). A single
    legal action is returned at once. ``ValueError`` for an empty ``legal``, ``samples`` below 1, or a view that no
    deal of ``ruleset`` gives (``sample_deal``)."""
    if not legal:
        raise ValueError("no legal action: the deal is over or it is not this seat's turn")
    if samples < 1:
        raise ValueError(f"samples must be at least 1, not {samples!r}")
    if len(legal) == 1:
        return legal[0]
    seat = view["seat"]
    base = fast_deal(sample_deal(view, ruleset, seed))
    sign = -1 if ruleset.lower_total_wins else 1
    rng = SplitMix64(seed, 1)
    totals = [0.0] * len(legal)
    others = base.seats - 1
    for _ in range(samples):
        world_seed = rng.next()
        world = base.determinize(seat, world_seed)
        for i, action in enumerate(legal):
            deal = world.clone()
            deal.apply_id(action)
            deal.playout(world_seed, policy)
            points = deal.result()[3]
            totals[i] += sign * (points[seat] - (sum(points) - points[seat]) / others)
    best = max(range(len(legal)), key=totals.__getitem__)
    return legal[best]

