"""axe-core (Deque's accessibility engine, MPL-2.0) run in a Playwright page, for the browser tests.

The engine comes from the PyPI package ``axe-playwright-python`` (a test dependency in pyproject.toml), which ships
``axe.min.js``; only that file is used here. It is evaluated into the page through the DevTools protocol, which the
page's Content-Security-Policy does not govern, so the page is scanned exactly as it is served."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

SERIOUS = ("serious", "critical")


@lru_cache(maxsize=1)
def axe_source() -> str:
    """The text of ``axe.min.js`` from the installed ``axe_playwright_python`` package."""
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_version(page) -> str:
    """The version of axe-core loaded in ``page`` (loads it if needed)."""
    _load(page)
    return page.evaluate("() => window.axe.version")


def _load(page) -> None:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source())


def axe_violations(page, impacts: tuple[str, ...] = SERIOUS, context: str | None = None) -> list[dict]:
    """axe-core's violations on ``page`` (WCAG 2.x A and AA rules and axe's best practices) whose impact is in
    ``impacts``; each a dict with ``id``, ``impact``, ``help`` and ``nodes`` (the failing elements' selectors and
    summaries). ``context``: a CSS selector to scan only part of the page."""
    _load(page)
    results = page.evaluate("([context]) => window.axe.run(context || document, {resultTypes: ['violations']})",
                            [context])
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [{"target": n["target"], "summary": n.get("failureSummary", "")} for n in v["nodes"]]}
            for v in results["violations"] if v["impact"] in impacts]


def describe(violations: list[dict]) -> str:
    """Violations as readable lines for an assertion message."""
    return "\n".join(f"{v['impact']}: {v['id']} ({v['help']}): "
                     + "; ".join(f"{n['target']} {n['summary'][:200]}" for n in v["nodes"][:5]) for v in violations)
