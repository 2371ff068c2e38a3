"""Ladders of the presets whose rules issue 9 corrected play the corrected rules from now on.

Each match keeps the ruleset it was created with (``Match.ruleset``), so stored matches replay exactly as they were
played: a ruleset without the new fields takes their defaults, which are the old behaviour. Only a ladder's own
ruleset, used for its next matches, moves to the corrected preset: a field changes only where the ladder still has
the old preset's value (a ladder that overrode the field keeps its override).
"""

from django.db import migrations

# preset -> {field: (value before issue 9, value after)}
CHANGES = {
    "web-table": {"explicit_pass": (False, True)},
    "russian-36": {"explicit_pass": (False, True)},
    "crazy-eights": {"stock_out_ends_turn": (False, True)},
    "hollywood": {"voluntary_draw": (True, False), "empty_stock": ("reshuffle", "pass"),
                  "blocked": ("each_own", "lowest_collects_difference")},
}


def forward(apps, schema_editor):
    Ladder = apps.get_model("tournaments", "Ladder")
    for ladder in Ladder.objects.filter(preset__in=list(CHANGES)):
        ruleset = dict(ladder.ruleset)
        for field, (old, new) in CHANGES[ladder.preset].items():
            if ruleset.get(field, old) == old:
                ruleset[field] = new
        if ruleset != ladder.ruleset:
            ladder.ruleset = ruleset
            ladder.save(update_fields=["ruleset"])


def backward(apps, schema_editor):
    Ladder = apps.get_model("tournaments", "Ladder")
    for ladder in Ladder.objects.filter(preset__in=list(CHANGES)):
        ruleset = dict(ladder.ruleset)
        for field, (old, new) in CHANGES[ladder.preset].items():
            if ruleset.get(field) == new:
                ruleset[field] = old
        ladder.ruleset = ruleset
        ladder.save(update_fields=["ruleset"])


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0004_ladder_move_seconds"),
    ]

    operations = [migrations.RunPython(forward, backward)]
