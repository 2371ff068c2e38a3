from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from bots_api.urls import api_patterns as bot_api_patterns
from bots_api.urls import page_patterns as bot_page_patterns
from games import accounts as game_accounts
from games import api as game_api
from games import docs_pages
from games import metrics as game_metrics
from games import live_api as game_live_api
from games import views as game_views
from tournaments import api as ladder_api
from tournaments import tournament_api
from tournaments import tournament_views
from tournaments import views as ladder_views

urlpatterns = [
    path("", ladder_views.home, name="home"),
    path("play/guest/", ladder_views.guest_deal_page, name="guest-deal"),
    path("ladders/<slug:slug>/", ladder_views.ladder_detail, name="ladder-detail"),
    path("ladders/<slug:slug>/rules/", ladder_views.ladder_rules, name="ladder-rules"),
    path("ladders/<slug:slug>/entries/<int:entry_id>/", ladder_views.ladder_entry, name="ladder-entry"),
    path("ladders/<slug:slug>/duplicates/<int:set_id>/", ladder_views.duplicate_set_detail, name="duplicate-set"),
    path("rules/", game_views.rules_index, name="rules-index"),
    path("rules/<str:preset>/", game_views.rules_preset, name="rules-preset"),
    path("matches/<int:match_id>/rules/", game_views.match_rules, name="match-rules"),
    path("matches/", game_views.match_list, name="match-list"),
    path("matches/<int:match_id>/", game_views.match_detail, name="match-detail"),
    path("healthz", game_metrics.healthz, name="healthz"),
    path("docs/", docs_pages.docs_index, name="docs-index"),
    path("docs/<str:name>/", docs_pages.docs_page, name="doc-page"),
    path("metrics", game_metrics.metrics_view, name="metrics"),
    path("", include(bot_page_patterns)),
    path("accounts/signup/", game_accounts.signup, name="signup"),
    path("accounts/", include("django.contrib.auth.urls")),  # login / logout
    path("admin/", admin.site.urls),
    path("api/", include(bot_api_patterns)),
    path("api/matches/", game_api.MatchListApi.as_view(), name="api-match-list"),
    path("api/matches/<int:match_id>/seats/<int:seat>/", game_api.SeatViewApi.as_view(), name="api-seat-view"),
    path("api/matches/<int:match_id>/seats/<int:seat>/actions/", game_api.SeatActionApi.as_view(),
         name="api-seat-action"),
    path("api/ladders/<slug:slug>/play/", ladder_api.PlayNowApi.as_view(), name="api-play-now"),
    path("api/matches/<int:match_id>/deals/<int:number>/", game_api.DealResultApi.as_view(), name="api-deal-result"),
    path("api/matches/<int:match_id>/record/", game_api.MatchRecordApi.as_view(), name="api-match-record"),
    path("api/records/signing-key/", game_api.RecordSigningKeyApi.as_view(), name="api-record-signing-key"),
    path("api/matches/casual/", game_api.CasualMatchApi.as_view(), name="api-casual-match"),
    path("matches/<int:match_id>/play/", game_views.match_table, name="match-table"),
    path("matches/<int:match_id>/replay/", game_views.match_replay, name="match-replay"),
    path("deals/<str:code>/", game_views.deal_code_page, name="deal-code"),
    path("deals/<str:code>/play/", game_views.deal_code_play, name="deal-code-play"),
    path("ladders/<slug:slug>/play/", ladder_views.ladder_play_now_page, name="ladder-play-now"),
    path("tournaments/", tournament_views.tournament_list, name="tournament-list"),
    path("tournaments/<int:tournament_id>/", tournament_views.tournament_detail, name="tournament-detail"),
    path("tournaments/<int:tournament_id>/rounds/<int:number>/", tournament_views.tournament_round,
         name="tournament-round"),
    path("tournaments/<int:tournament_id>/enter/", tournament_views.tournament_enter_page, name="tournament-enter"),
    path("tournaments/<int:tournament_id>/withdraw/", tournament_views.tournament_withdraw_page,
         name="tournament-withdraw"),
    path("tournaments/<int:tournament_id>/start/", tournament_views.tournament_start_page, name="tournament-start"),
    path("api/tournaments/", tournament_api.TournamentListApi.as_view(), name="api-tournament-list"),
    path("api/tournaments/<int:tournament_id>/", tournament_api.TournamentDetailApi.as_view(),
         name="api-tournament-detail"),
    path("api/tournaments/<int:tournament_id>/entries/", tournament_api.EntryApi.as_view(), name="api-tournament-entries"),
    path("api/tournaments/<int:tournament_id>/entries/<int:player_id>/", tournament_api.EntryDetailApi.as_view(),
         name="api-tournament-entry"),
    path("api/tournaments/<int:tournament_id>/start/", tournament_api.StartApi.as_view(), name="api-tournament-start"),
    path("api/matches/<int:match_id>/public/", game_live_api.MatchPublicApi.as_view(), name="api-match-public"),
    path("api/matches/<int:match_id>/events/", game_live_api.MatchEventsApi.as_view(), name="api-match-events"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # the split view serves its start-up script as a file, and templates/drf_spectacular/swagger_ui.html its
    # styles: the API docs keep the site's Content-Security-Policy (no inline script or style)
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    # issue 13 (live-pages): watch a match as it is played, and the featured match
    path("matches/<int:match_id>/watch/", game_views.match_watch, name="match-watch"),
    path("watch/", ladder_views.watch_featured, name="watch-featured"),
]


# ---- issue 14: read everything over the API (ladders, a match, sign-up) ----------------------------------------
from games import account_api, read_api  # noqa: E402
from tournaments import ladder_api as ladder_read_api  # noqa: E402

urlpatterns += [
    path("api/ladders/", ladder_read_api.LadderListApi.as_view(), name="api-ladder-list"),
    path("api/ladders/<slug:slug>/", ladder_read_api.LadderDetailApi.as_view(), name="api-ladder-detail"),
    path("api/matches/<int:match_id>/", read_api.MatchReadApi.as_view(), name="api-match-detail"),
    path("api/accounts/", account_api.AccountCreateApi.as_view(), name="api-accounts"),
]
