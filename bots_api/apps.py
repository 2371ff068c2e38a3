from django.apps import AppConfig


class BotsApiConfig(AppConfig):
    name = "bots_api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import agents, replay_tools
        from games.signals import match_created, match_finished
        from bots_api import agent, services, turnlog, versions

        agents.register("bot", agent.bot_agent)
        match_finished.connect(services.on_match_finished, dispatch_uid="bots-match-end")
        match_created.connect(versions.on_match_created, dispatch_uid="bots-match-versions")
        replay_tools.register_replay_tool(turnlog.replay_turn_tool)
