from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """The match page says which table a match was played at, with its rematch (``games.hooks``)."""
        from games import hooks
        from tables.views import match_page_extras

        hooks.register_match_page_extra(match_page_extras)
