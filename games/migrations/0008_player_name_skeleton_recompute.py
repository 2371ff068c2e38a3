from django.db import migrations


def recompute_skeletons(apps, schema_editor):
    """Every player's ``name_skeleton`` again, with the key that maps before case-folding and drops combining marks
    (sitekit.names.name_skeleton). Look-alike pairs already in the database stay; new ones cannot be made."""
    from sitekit.names import name_skeleton

    Player = apps.get_model("games", "Player")
    for pk, name in Player.objects.values_list("pk", "name").iterator():
        Player.objects.filter(pk=pk).update(name_skeleton=name_skeleton(name))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0007_player_name_skeleton"),
    ]

    operations = [
        migrations.RunPython(recompute_skeletons, migrations.RunPython.noop),
    ]
