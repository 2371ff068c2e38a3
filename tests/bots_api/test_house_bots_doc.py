"""docs/BOT_PROTOCOL.md's house bot table cannot drift from the demo roster or the engine's strategies."""

from __future__ import annotations

import re
from pathlib import Path

from eights_engine.strategies import HOUSE_STRATEGIES
from tournaments.management.commands.demo_setup import HOUSE_BOTS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "BOT_PROTOCOL.md").read_text()


def _table() -> dict[str, str]:
    """player name -> strategy, from the table between the house-bots markers."""
    block = DOC.split("<!-- house-bots -->", 1)[1].split("<!-- /house-bots -->", 1)[0]
    names: dict[str, str] = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`(\w+)`", cells[1]) if len(cells) > 2 else None
        if match:
            for name in cells[0].split(","):
                names[name.strip()] = match.group(1)
    return names


def test_every_demo_house_bot_is_named_with_its_strategy():
    assert _table() == {name: strategy for name, strategy, _words in HOUSE_BOTS}


def test_every_strategy_is_documented_and_house_heuristic_is_the_professor():
    assert set(_table().values()) == set(HOUSE_STRATEGIES)
    assert _table()["Professor"] == "heuristic"
