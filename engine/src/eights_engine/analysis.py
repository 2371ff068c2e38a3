"""Analysis of a finished match: every decision weighed from its seat's information, and each deal's luck.

``analyse(record)`` replays a match record (``replay``: the service's download, an ``export_matches`` line or a
``localrun --record`` line) and gives, JSON-ready:

- **Every decision** with more than one legal action: the values of its legal actions from the seat's view alone
  (``search.pimc_values``: the ``expert`` house strategy's search, with its playouts and its scoring), the action the
  expert prefers, and the expected points the chosen action gave up (the preferred action's value less the chosen
  one's, 0 when they are the same; the value is the seat's own deal points, signed so that more is better). It reads the view a seat had, so it knows no more than the seat knew.
- **Every deal's luck**: its *par*, the points each seat would have scored had the expert played every seat from the
  deal's first ply (one play-through of the real deal, the expert drawing from ``strategy_rng`` as a house seat
  does), and the split of each seat's result into the cards' part (par) and the decisions' part (points less par).
  A deal ended by the ruleset's ply limit (``ply_limit``, a safeguard no rule source has: RULES.md) is flagged.

The record holds every deal's seed, so an analysis belongs to a finished match whose cards may be shown; the
service runs it only then.

Shape::

    {"version": 1, "samples": 256, "lower_is_better": true, "seats": 2,
     "deals": [{"number": 1, "plies": 31, "ply_limit": false, "points": [0, 14], "par": [3, 9],
                "decisions_part": [-3, 5], "given_up": [0.0, 6.2],
                "decisions": [{"ply": 4, "seat": 1, "chosen": {...}, "best": {...}, "loss": 4.1, "options": 3}, ...]},
               ...],
     "totals": {"given_up": [1.5, 20.3], "decisions": [40, 38], "best_share": [0.85, 0.7]}}

Points are the scoring's (``Ruleset.lower_total_wins``: under penalty scoring fewer is better, and a positive
``decisions_part`` is points lost to the decisions); ``loss`` and ``given_up`` are always 0 or more. The cost is
some 10-40 ms of one core per decision, and as much again per decision of par, on the compiled path: about 10 s
for a two-seat match to 100 points (BENCHMARKS.md, "Analysis of a finished match"). docs/ANALYSIS.md explains it
for readers.
"""

from __future__ import annotations

from typing import Callable

from .actions import ACTIONS
from .deal import Deal
from .match import MatchState
from .options import options_for
from .replaying import replay
from .search import EXPERT_OTHERS_WEIGHT, EXPERT_POLICY, EXPERT_SAMPLES, pimc_values
from .strategies import strategy_rng

#: Determinized deals per decision of an analysis: the expert's own, so its preferred action is the one it would play.
ANALYSIS_SAMPLES = EXPERT_SAMPLES
ANALYSIS_VERSION = 1


def _values(view: dict, ruleset, legal: list[int], seed: int, samples: int) -> list[float]:
    return pimc_values(view, ruleset, legal, samples=samples, seed=seed, policy=EXPERT_POLICY,
                       others_weight=EXPERT_OTHERS_WEIGHT)


def par(deal: Deal, *, samples: int = ANALYSIS_SAMPLES) -> list[int]:
    """The points each seat scores when the expert (with ``samples`` deals a decision) plays every seat of ``deal``
    from where it stands (a copy: ``deal`` is not changed) to its end. Deterministic."""
    deal = deal.clone()
    ruleset = deal.ruleset
    while deal.result is None:
        seat, legal = deal.to_play, list(deal.legal_ids())
        if len(legal) == 1:
            deal.apply_id(legal[0])
            continue
        seed = strategy_rng(deal.seed, deal.ply, seat).next()
        values = _values(deal.view(seat), ruleset, legal, seed, samples)
        deal.apply_id(legal[max(range(len(legal)), key=values.__getitem__)])
    return list(deal.result.points)


def _fallback_plies(record: dict) -> set[tuple[int, int]]:
    """``(deal number, ply from 0)`` of every ply the record's ``faults`` name (``[ply from 1, kind]`` per deal: a
    clock that ran out, a bot's error): the referee's fallback played them, so they were no seat's decision."""
    found = set()
    for number, deal in enumerate(record.get("deals") or [], start=1):
        for fault in (deal.get("faults") or []) if isinstance(deal, dict) else []:
            if isinstance(fault, list) and fault and isinstance(fault[0], int):
                found.add((number, fault[0] - 1))
    return found


def analyse(record: dict, *, samples: int = ANALYSIS_SAMPLES,
            progress: Callable[[int, int], None] | None = None) -> dict:
    """The analysis of a finished match's ``record`` (module docstring for the shape). ``progress(done, total)`` is
    called after each deal (deals done, deals in the record). A match that ended by a forfeit (the record's
    ``result.forfeited``) is analysed up to it: the deal it cut off has its decisions and no points or par. A ply
    the record's ``faults`` name (a fallback: the clock ran out, a bot erred) is no decision and is not weighed.
    ``ReplayMismatch`` (a ``ValueError``) when the record does not replay; ``ValueError`` for a record of an
    unfinished match or ``samples`` below 1."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, not {samples!r}")
    deals_out: list[dict] = []
    total = len(record.get("deals") or [])
    fallbacks = _fallback_plies(record)

    def observe(state: MatchState, action: dict) -> None:
        deal = state.deal
        if not deals_out or deals_out[-1]["number"] != state.deal_number:
            deals_out.append({"number": state.deal_number, "start": deal.clone(), "decisions": []})
        legal = list(deal.legal_ids())
        if len(legal) < 2 or (state.deal_number, deal.ply) in fallbacks:
            return
        seat = deal.to_play
        chosen = deal.action_id(action)
        seed = strategy_rng(deal.seed, deal.ply, seat).next()
        values = _values(state.view(seat), state.ruleset, legal, seed, samples)
        best = max(range(len(legal)), key=values.__getitem__)
        loss = max(0.0, values[best] - values[legal.index(chosen)])
        deals_out[-1]["decisions"].append({
            "ply": deal.ply, "seat": seat, "chosen": dict(ACTIONS[chosen]), "best": dict(ACTIONS[legal[best]]),
            "loss": round(loss, 2), "options": len(legal)})

    state = replay(record, observe)
    result = record.get("result")
    forfeited = result.get("forfeited") if isinstance(result, dict) else None
    if not state.is_over and forfeited is None:
        raise ValueError("the match is not over: an analysis is of a finished match (its last deal played out, or "
                         "a forfeit in its result)")
    seats, limit = state.seats, options_for(state.ruleset).ply_limit
    out_deals = []
    for i, entry in enumerate(deals_out):
        start = entry.pop("start")
        given_up = [0.0] * seats
        for decision in entry["decisions"]:
            given_up[decision["seat"]] += decision["loss"]
        entry["given_up"] = [round(g, 2) for g in given_up]
        if entry["number"] > len(state.results):  # ended by a forfeit: no points, no par
            out_deals.append({**entry, "plies": None, "ply_limit": False, "points": None, "par": None,
                              "decisions_part": None})
            continue
        result = state.results[entry["number"] - 1]
        par_points = par(start, samples=samples)
        out_deals.append({
            **entry, "plies": result.plies, "ply_limit": result.outcome == "blocked" and result.plies >= limit,
            "points": list(result.points), "par": par_points,
            "decisions_part": [p - q for p, q in zip(result.points, par_points)]})
        if progress is not None:
            progress(i + 1, total)
    counted = [[d for deal in out_deals for d in deal["decisions"] if d["seat"] == s] for s in range(seats)]
    return {
        "version": ANALYSIS_VERSION, "samples": samples, "lower_is_better": bool(state.ruleset.lower_total_wins),
        "seats": seats, "deals": out_deals,
        "totals": {"given_up": [round(sum(d["loss"] for d in mine), 2) for mine in counted],
                   "decisions": [len(mine) for mine in counted],
                   "best_share": [round(sum(1 for d in mine if d["chosen"] == d["best"]) / len(mine), 3)
                                  if mine else None for mine in counted]}}
