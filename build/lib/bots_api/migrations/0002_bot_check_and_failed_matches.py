from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):

    dependencies = [
        ("bots_api", "0001_initial"),
    ]

    operations = [
        migrations.RenameField(model_name="bot", old_name="consecutive_forfeits",
                               new_name="consecutive_failed_matches"),
        migrations.AlterField(
            model_name="bot", name="consecutive_failed_matches",
            field=models.PositiveIntegerField(
                default=0, help_text="matches in a row the bot forfeited or faulted on more than half of its turns"),
        ),
        migrations.AlterField(
            model_name="bot", name="reported_name",
            field=models.CharField(blank=True, help_text="name the bot gave in its last check", max_length=100),
        ),
        migrations.CreateModel(
            name="BotCheck",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("state", models.CharField(choices=[("queued", "Queued"), ("running", "Running"),
                                                    ("passed", "Passed"), ("failed", "Failed")],
                                           default="queued", max_length=10)),
                ("requested_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("detail", models.CharField(blank=True, max_length=500)),
                ("checks", models.JSONField(blank=True, default=list)),
                ("latency_ms", models.PositiveIntegerField(blank=True, null=True)),
                ("bot", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="checks",
                                          to="bots_api.bot")),
            ],
            options={"ordering": ["-requested_at", "-id"],
                     "indexes": [models.Index(fields=["bot", "state"], name="bots_check_bot_state")]},
        ),
    ]
