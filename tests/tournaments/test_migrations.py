"""Data migrations of tournaments: ladders of the presets issue 9 corrected move to the corrected rules."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from eights_engine import Ruleset

BEFORE = [("tournaments", "0004_ladder_move_seconds")]
AFTER = [("tournaments", "0005_ladder_rulesets_issue9")]


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_issue9_ladders_take_the_corrected_preset_fields_and_keep_their_overrides():
    apps = _migrate(BEFORE)
    Ladder = apps.get_model("tournaments", "Ladder")
    old_web = {k: v for k, v in Ruleset.preset("web-table").to_dict().items() if k != "explicit_pass"}
    old_holly = Ruleset.preset("hollywood").to_dict() | {"voluntary_draw": True, "empty_stock": "reshuffle",
                                                         "blocked": "each_own"}
    Ladder.objects.create(name="W", slug="w", preset="web-table", ruleset=old_web)
    Ladder.objects.create(name="H", slug="h", preset="hollywood", ruleset=old_holly | {"empty_stock": "pass"})
    Ladder.objects.create(name="P", slug="p", preset="pagat", ruleset=Ruleset.preset("pagat").to_dict())
    try:
        apps = _migrate(AFTER)
        Ladder = apps.get_model("tournaments", "Ladder")
        assert Ladder.objects.get(slug="w").ruleset == Ruleset.preset("web-table").to_dict()
        assert Ladder.objects.get(slug="h").ruleset == Ruleset.preset("hollywood").to_dict()
        assert Ladder.objects.get(slug="p").ruleset == Ruleset.preset("pagat").to_dict()
        Ruleset.from_dict(Ladder.objects.get(slug="w").ruleset)  # still a valid ruleset
    finally:
        Ladder.objects.all().delete()
        _migrate_to_latest()  # later migrations (e.g. 0006_duplicate) too: the tests after this one need them


def _migrate_to_latest():
    """Every app to its newest migration, as the test database was before this test (not to ``AFTER``, which is no
    longer the newest once a later migration exists)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
