from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import agents

        agents.register("house", agents.house_agent)
        agents.register("human", agents.human_agent)
