"""How sure a ladder's order is, and the rating history chart: pure functions over openskill ratings (mu, sigma).

Ratings are openskill Plackett-Luce beliefs about a skill: normal with mean ``mu`` and deviation ``sigma``; the
leaderboard ranks by the conservative ordinal ``mu - 3 sigma`` (``tournaments.services.ladder_rate_match``).

**How sure the order is** (``order_confidence``). For two entries A and B, the probability that A's skill is
really above B's, treating the two beliefs as independent normals:

    P(A > B) = Phi((mu_A - mu_B) / sqrt(sigma_A**2 + sigma_B**2))

where Phi is the standard normal CDF. We leave openskill's ``beta`` (the per-match performance noise, 25/6) out
on purpose: with it, the formula gives the chance that A *finishes ahead of B in one match*, a question about
the cards as much as about skill; the leaderboard's question is who is stronger, and that is the skills' gap
over their uncertainty alone. The statements (``trust_statement``): at least ``CONFIDENT`` (95 %) "A is ahead of
B with NN % confidence", at least ``PROBABLE`` (75 %) "A is probably ahead of B", below it "A and B cannot yet
be told apart". Percentages are rounded down and never shown as 100.
"""

from __future__ import annotations

from math import floor, sqrt
from statistics import NormalDist

from django.utils.translation import gettext

CONFIDENT = 0.95
PROBABLE = 0.75
_PHI = NormalDist().cdf


def order_confidence(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """The probability (0..1) that A's skill is above B's, from their ratings (see the module docstring)."""
    spread = sqrt(sigma_a ** 2 + sigma_b ** 2)
    if spread == 0:
        return 0.5 if mu_a == mu_b else float(mu_a > mu_b)
    return _PHI((mu_a - mu_b) / spread)


def percent(p: float) -> int:
    """``p`` (0..1) as a whole percentage, rounded down and at most 99 (no rating is ever certain)."""
    return min(99, max(0, floor(p * 100 + 1e-9)))


def trust_statement(a: str, b: str, p: float) -> str:
    """A plain sentence about A listed above B, ``p`` being ``order_confidence`` of A over B."""
    facts = {"a": a, "b": b, "percent": percent(p)}
    if p >= CONFIDENT:
        return gettext("%(a)s is ahead of %(b)s with %(percent)s %% confidence.") % facts
    if p >= PROBABLE:
        return gettext("%(a)s is probably ahead of %(b)s (%(percent)s %% confidence).") % facts
    return gettext("%(a)s and %(b)s cannot yet be told apart (%(percent)s %%).") % facts


def rating_chart(points: list[dict], width: int = 640, height: int = 200, pad: int = 24) -> dict | None:
    """Coordinates for the inline SVG chart of an entry's rating history (oldest left).

    ``points``: dicts with ``mu``, ``sigma`` and ``ordinal`` after each match, oldest first, the start rating
    first. Returns ``width``, ``height``, ``count`` (matches), ``low`` and ``high`` (the vertical scale, rating
    points), ``band`` (an SVG polygon's points: mu +- 3 sigma), ``mu`` and ``ordinal`` (polylines' points),
    ``grid`` (horizontal lines: ``y`` and ``label``), or None without points."""
    if not points:
        return None
    high = max(p["mu"] + 3 * p["sigma"] for p in points)
    low = min(p["mu"] - 3 * p["sigma"] for p in points)
    high, low = floor(high / 5 + 1) * 5, floor(low / 5) * 5
    step = (width - 2 * pad) / max(len(points) - 1, 1)

    def x(i: int) -> float:
        return round(pad + i * step, 1)

    def y(value: float) -> float:
        return round(height - pad - (value - low) / (high - low) * (height - 2 * pad), 1)

    upper = [f"{x(i)},{y(p['mu'] + 3 * p['sigma'])}" for i, p in enumerate(points)]
    lower = [f"{x(i)},{y(p['mu'] - 3 * p['sigma'])}" for i, p in reversed(list(enumerate(points)))]
    ticks = range(low, high + 1, max(5, (high - low) // 4 // 5 * 5 or 5))
    return {
        "width": width, "height": height, "count": len(points) - 1, "low": low, "high": high,
        "band": " ".join(upper + lower),
        "mu": " ".join(f"{x(i)},{y(p['mu'])}" for i, p in enumerate(points)),
        "ordinal": " ".join(f"{x(i)},{y(p['ordinal'])}" for i, p in enumerate(points)),
        "grid": [{"y": y(t), "label": t} for t in ticks],
        "left": pad, "right": width - pad,
    }
