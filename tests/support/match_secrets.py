"""What must never show while a match runs (docs/FAIRNESS.md): every string that would deal or name its cards."""

from __future__ import annotations


def match_secrets(match) -> list[str]:
    """The match's secret (engine version 2) or chosen seed, and per deal its key, code, seed and salt: the ones of
    8 characters or more, as text, for a test to look for in a response that must not carry them (a test's chosen
    seed such as 7 is too short to look for: any page holds a 7)."""
    from games.models import Deal

    found = [match.secret, "" if match.seed is None else str(match.seed)]
    for deal in Deal.objects.filter(match=match):
        found += [deal.key, deal.code, "" if deal.seed is None else str(deal.seed), deal.salt]
    return [s for s in found if len(s) >= 8]
