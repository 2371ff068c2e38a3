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
        # -- trials (bots_api.trials): the match page says a trial's match is an unrated test run
        from games.views import MATCH_PAGE_EXTRAS
        from bots_api.trial_views import trial_match_page_extras

        if trial_match_page_extras not in MATCH_PAGE_EXTRAS:
            MATCH_PAGE_EXTRAS.append(trial_match_page_extras)
        match_created.connect(versions.on_match_created, dispatch_uid="bots-match-versions")
        replay_tools.register_replay_tool(turnlog.replay_turn_tool)
