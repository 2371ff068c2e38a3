from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """The match page says which table a match was played at, with its rematch; a guest who signs up keeps their
        tables, and a banned account's waiting rated tables are cancelled (``games.hooks``)."""
        from games import hooks
        from tables.services import on_account_banned, on_guest_adopted
        from tables.views import match_page_extras

        hooks.register_match_page_extra(match_page_extras)
        hooks.guest_adopted.connect(on_guest_adopted, dispatch_uid="tables.guest_adopted")
        hooks.account_banned.connect(on_account_banned, dispatch_uid="tables.account_banned")
