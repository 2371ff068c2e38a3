"""Bots' routes: the owners' API (included under /api/) and the bot, player and trial pages."""

from django.urls import path

from bots_api import api, trial_api, trial_views, views

api_patterns = [
    path("auth/token/", api.TokenCreateApi.as_view(), name="api-token"),
    path("bots/", api.BotListCreateApi.as_view(), name="api-bot-list"),
    path("bots/<int:bot_id>/", api.BotDetailApi.as_view(), name="api-bot-detail"),
    path("bots/<int:bot_id>/rotate-secret/", api.BotRotateSecretApi.as_view(), name="api-bot-rotate-secret"),
    path("bots/<int:bot_id>/verify/", api.BotVerifyApi.as_view(), name="api-bot-verify"),
    path("bots/<int:bot_id>/checks/<int:check_id>/", api.BotCheckApi.as_view(), name="api-bot-check"),
    path("bots/<int:bot_id>/ladders/<slug:slug>/", api.BotLadderApi.as_view(), name="api-bot-ladder"),
    path("bots/<int:bot_id>/matches/", api.BotMatchListApi.as_view(), name="api-bot-matches"),
    path("bots/<int:bot_id>/health/", api.BotHealthApi.as_view(), name="api-bot-health"),
    path("bots/<int:bot_id>/turns/", api.BotTurnListApi.as_view(), name="api-bot-turns"),
    path("bots/<int:bot_id>/turns.ndjson", api.BotTurnExportApi.as_view(), name="api-bot-turns-export"),
    path("bots/<int:bot_id>/versions/", api.BotVersionsApi.as_view(), name="api-bot-versions"),
    path("bots/<int:bot_id>/trials/", trial_api.BotTrialListApi.as_view(), name="api-bot-trials"),
    path("trials/<int:trial_id>/", trial_api.TrialDetailApi.as_view(), name="api-trial"),
    path("players/<path:a>/vs/<path:b>/", api.HeadToHeadApi.as_view(), name="api-head-to-head"),
    path("players/<path:name>/", api.PlayerProfileApi.as_view(), name="api-player"),
]

page_patterns = [
    path("bots/", views.bot_list, name="bot-list"),
    path("bots/<int:bot_id>/", views.bot_detail, name="bot-detail"),
    path("bots/<int:bot_id>/turns/", views.bot_turns, name="bot-turns"),
    path("trials/<int:trial_id>/", trial_views.trial_detail, name="trial-detail"),
    path("players/<path:a>/vs/<path:b>/", views.head_to_head_page, name="head-to-head"),
    path("players/<path:name>/", views.player_profile, name="player-profile"),
]
