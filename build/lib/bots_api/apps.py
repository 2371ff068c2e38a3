from django.apps import AppConfig


class BotsApiConfig(AppConfig):
    name = "bots_api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import agents
        from games.signals import match_finished
        from bots_api import agent, services

        agents.register("bot", agent.bot_agent)
        match_finished.connect(services.on_match_finished, dispatch_uid="bots-match-end")
