"""Search from one seat's information: flat Monte Carlo over determinized deals (perfect-information Monte Carlo),
and the ``expert`` house strategy built on it.

``pimc_values(view, ruleset, legal, samples=..., seed=...)`` rates each legal action of the seat to play by playing
it in ``samples`` deals the seat cannot tell from the real one and finishing each deal with a playout policy in the
compiled fast path (``fast``); ``pimc_action`` returns the action whose deals scored best for the seat on average.
They read the seat's view and the ruleset only (the view and ruleset of a bot's ``turn`` request will do):
``infosets.sample_deal`` deals the cards the seat cannot see once, then ``determinize`` deals them again for every
sample (so a starter buried under the pile keeps the card the first sample gave it). All actions of one sample are
played from the same deal with the same seed (common random numbers), so their difference is the actions'.

The score of a finished deal for the seat is its points less ``others_weight`` times the others' average, signed so
that more is better (``Ruleset.lower_total_wins``). Under ``partnership`` it still scores the seat alone.

``expert_strategy`` is the ``expert`` house strategy (``strategies.SEARCH_STRATEGIES``): 512 samples, tactical
playouts (``fast.TACTICAL``) and the seat's own points alone (``others_weight`` 0). Counting the others' points
too lost matches: against the tactician over the same 100 seeds it won 0.54 under pagat and 0.30 at three seats
with them, 0.65 and 0.37 without. Under rules where a turn may draw several cards by choice (``draw="up_to"``, the
web table) it keeps the tactician's own choice unless the search rates another action ``EXPERT_MARGIN_UP_TO``
points better: the search alone lost to the tactician there (43.8 % at two seats, 28.2 % at three), with it 59.0 %
and 34.5 % over 400 matches. Its rows against the tactician are in BENCHMARKS.md ("The expert house strategy"); ``analysis``
uses the same search (without the margin) to weigh every decision of a finished match.
"""

from __future__ import annotations

from .actions import ACTIONS
from .fast import HEURISTIC, TACTICAL, fast_deal
from .infosets import sample_deal
from .rng import SplitMix64
from .rules import Ruleset
from .tactics import tactician_strategy

#: The ``expert`` house strategy's search (BENCHMARKS.md, "The expert"): determinized deals a decision, the playout
#: policy, and the weight of the others' average points in a deal's score.
EXPERT_SAMPLES = 512
EXPERT_POLICY = TACTICAL
EXPERT_OTHERS_WEIGHT = 0.0
#: Under rules where a turn may draw up to several cards by choice (``draw="up_to"``: the web table) the expert keeps
#: the tactician's choice unless the search rates another action at least this many points better on average: there
#: the search's own preferences were wrong too often (BENCHMARKS.md, "The expert house strategy"). Elsewhere 0.
EXPERT_MARGIN_UP_TO = 1.0


def pimc_values(view: dict, ruleset: Ruleset, legal: list[int], *, samples: int = 256, seed: int = 0,
                policy: int = HEURISTIC, others_weight: float = 1.0) -> list[float]:
    """The average score, for the seat of ``view``, of each action id of ``legal`` (the seat to play's legal ids,
    canonical order) over ``samples`` determinized deals played out by ``policy`` (``fast.UNIFORM``, ``EAGER``,
    ``HEURISTIC`` or ``TACTICAL``), in the same order as ``legal``. A deal's score is the seat's points less
    ``others_weight`` times the others' average, signed so that more is better (module docstring), in points.
    ``ValueError`` for an empty ``legal``, ``samples`` below 1, or a view that no deal of ``ruleset`` gives
    (``sample_deal``)."""
    if not legal:
        raise ValueError("no legal action: the deal is over or it is not this seat's turn")
    if samples < 1:
        raise ValueError(f"samples must be at least 1, not {samples!r}")
    seat = view["seat"]
    base = fast_deal(sample_deal(view, ruleset, seed))
    sign = -1 if ruleset.lower_total_wins else 1
    rng = SplitMix64(seed, 1)
    totals = [0.0] * len(legal)
    others = max(1, base.seats - 1)
    for _ in range(samples):
        world_seed = rng.next()
        world = base.determinize(seat, world_seed)
        for i, action in enumerate(legal):
            deal = world.clone()
            deal.apply_id(action)
            deal.playout(world_seed, policy)
            points = deal.result()[3]
            totals[i] += sign * (points[seat] - others_weight * (sum(points) - points[seat]) / others)
    return [total / samples for total in totals]


def pimc_action(view: dict, ruleset: Ruleset, legal: list[int], *, samples: int = 256, seed: int = 0,
                policy: int = HEURISTIC, others_weight: float = 1.0) -> int:
    """The action id of ``legal`` with the best average score (``pimc_values``; ties to the first in canonical
    order). A single legal action is returned at once. ``ValueError`` as ``pimc_values``."""
    if len(legal) == 1:
        return legal[0]
    values = pimc_values(view, ruleset, legal, samples=samples, seed=seed, policy=policy, others_weight=others_weight)
    return legal[max(range(len(legal)), key=values.__getitem__)]


def _action_key(action: dict) -> tuple:
    return action["type"], action.get("card"), action.get("suit")


_ID_OF = {_action_key(action): i for i, action in enumerate(ACTIONS)}


def expert_strategy(view: dict, legal: list[dict], rng: SplitMix64, ruleset: Ruleset) -> dict:
    """The ``expert`` house strategy: the best of ``pimc_values`` from the seat's view and the match's ``ruleset``
    with ``EXPERT_SAMPLES`` determinized deals and tactical playouts (``fast.TACTICAL``), seeded from ``rng`` (so a
    replay or a resumed match makes the same choice); under ``draw="up_to"`` the tactician's choice unless the best
    is ``EXPERT_MARGIN_UP_TO`` points better (module docstring). Returns one of ``legal`` (dicts, canonical order). About
    10-40 ms a decision on the compiled path (BENCHMARKS.md); on the pure path (no compiler) about fifty times
    that. ``ValueError`` as ``pimc_action``."""
    if len(legal) == 1:
        return legal[0]
    ids = [_ID_OF[_action_key(action)] for action in legal]
    values = pimc_values(view, ruleset, ids, samples=EXPERT_SAMPLES, seed=rng.next(), policy=EXPERT_POLICY,
                         others_weight=EXPERT_OTHERS_WEIGHT)
    best = max(range(len(ids)), key=values.__getitem__)
    if ruleset.draw == "up_to":
        announce = next((a for a in legal if a["type"] == "announce"), None)
        prior = announce or tactician_strategy(view, legal, rng)
        k = legal.index(prior)
        if values[best] - values[k] < EXPERT_MARGIN_UP_TO:
            return prior
    return legal[best]
