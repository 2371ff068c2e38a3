from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _create_cache_table(using: str = "default", **kwargs) -> None:
    """Every `migrate` also creates the database cache's table when CACHES uses one (CACHE_URL=db, the default with
    PostgreSQL and no Redis: settings, "Limits"), so no deployment needs an extra step; otherwise a no-op."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import agents

        agents.register("house", agents.house_agent)
        agents.register("human", agents.human_agent)
        post_migrate.connect(_create_cache_table, sender=self)
