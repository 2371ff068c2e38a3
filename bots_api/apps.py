from django.apps import AppConfig


class BotsApiConfig(AppConfig):
    name = "bots_api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Plug into games (``games.hooks``): the bot agent, match-end calls and bots' versions, a trial's note on
        the match page, and the replay viewer's "what my bot saw here"."""
        from bots_api import agent, services, turnlog, versions, webhooks
        from bots_api.trial_views import trial_match_page_extras
        from games import hooks

        hooks.register_agent("bot", agent.bot_agent)
        hooks.match_finished.connect(services.on_match_finished, dispatch_uid="bots-match-end")
        hooks.match_created.connect(versions.on_match_created, dispatch_uid="bots-match-versions")
        hooks.bot_notice.connect(webhooks.on_bot_notice, dispatch_uid="bots-webhooks")
        hooks.register_match_page_extra(trial_match_page_extras)
        hooks.register_replay_tool(turnlog.replay_turn_tool)
