from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _create_cache_table(using: str = "default", **kwargs) -> None:
    """Every `migrate` also creates the database cache's table when CACHES uses one (CACHE_URL=db, the default with
    PostgreSQL and no Redis: settings, "Limits"), so no deployment needs an extra step; otherwise a no-op."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)


def _on_user_logged_in(sender, request=None, user=None, **kwargs) -> None:
    """A log-in or sign-up keeps the session's guest matches (``games.people.guests.on_user_logged_in``; imported when
    called, so loading the app imports no services)."""
    from games.people.guests import on_user_logged_in

    on_user_logged_in(sender, request=request, user=user, **kwargs)


def _on_user_logged_in_language(sender, request=None, user=None, **kwargs) -> None:
    """A log-in brings the account's language back (``games.people.languages.on_user_logged_in``)."""
    from games.people.languages import on_user_logged_in

    on_user_logged_in(sender, request=request, user=user, **kwargs)


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from games import agents, hooks
        from sitekit import tokens
        from games.people import tasks as people_tasks  # noqa: F401 (registers the guest housekeeping task)

        hooks.register_agent("house", agents.house_agent)
        hooks.register_agent("human", agents.human_agent)
        from games.matches import analysis

        hooks.match_finished.connect(analysis.on_match_finished, dispatch_uid="games-analysis")
        post_migrate.connect(_create_cache_table, sender=self)
        tokens.connect()  # a deleted token or a changed account reaches every process's token cache
        user_logged_in.connect(_on_user_logged_in, dispatch_uid="games.people.guests.on_user_logged_in")
        user_logged_in.connect(_on_user_logged_in_language, dispatch_uid="games.people.languages.on_user_logged_in")
