"""Games' routes: matches, the table, replays, deal codes, rules, accounts and the documents (pages), the match
API (included under /api/), and the operators' endpoints (``/healthz``, ``/metrics``)."""

from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.i18n import JavaScriptCatalog

from games import analysis_api, api, fairplay_views, local_replay, notice_views, read_api, views
from games.live import api as live_api
from games.operations import docs_pages, metrics
from games.people import account_api, accounts, languages

page_patterns = [
    path("rules/", views.rules_index, name="rules-index"),
    path("rules/<str:preset>/", views.rules_preset, name="rules-preset"),
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path("matches/<int:match_id>/rules/", views.match_rules, name="match-rules"),
    path("matches/<int:match_id>/play/", views.match_table, name="match-table"),
    path("matches/<int:match_id>/replay/", views.match_replay, name="match-replay"),
    path("matches/<int:match_id>/analysis/", views.match_analysis_ask, name="match-analysis-ask"),
    path("matches/<int:match_id>/watch/", views.match_watch, name="match-watch"),
    path("replay/open/", local_replay.record_open, name="record-open"),
    path("replay/open/analysis/<str:key>/", local_replay.record_analysis_status, name="record-analysis"),
    path("deals/<str:code>/", views.deal_code_page, name="deal-code"),
    path("deals/<str:code>/play/", views.deal_code_play, name="deal-code-play"),
    path("docs/", docs_pages.docs_index, name="docs-index"),
    path("docs/<str:name>/", docs_pages.docs_page, name="doc-page"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("language/", languages.language_choose, name="language"),
    path("players/<str:name>/report/", fairplay_views.report_page, name="player-report"),
    path("notifications/", notice_views.notices_page, name="notices"),
    path("notifications/email/", notice_views.notices_email, name="notices-email"),
    path("notifications/unsubscribe/<str:token>/", notice_views.notices_unsubscribe, name="notices-unsubscribe"),
    # the scripts' translations (Django's JavaScript catalogue); pages ask for it with ?v=<language>, so a browser's
    # cache never serves one language's catalogue to another
    path("jsi18n/", cache_control(max_age=24 * 3600)(JavaScriptCatalog.as_view(domain="djangojs")),
         name="js-catalog"),
    path("accounts/", include("django.contrib.auth.urls")),  # login / logout
]

api_patterns = [
    path("matches/", api.MatchListApi.as_view(), name="api-match-list"),
    path("matches/casual/", api.CasualMatchApi.as_view(), name="api-casual-match"),
    path("matches/<int:match_id>/", read_api.MatchReadApi.as_view(), name="api-match-detail"),
    path("matches/<int:match_id>/seats/<int:seat>/", api.SeatViewApi.as_view(), name="api-seat-view"),
    path("matches/<int:match_id>/seats/<int:seat>/actions/", api.SeatActionApi.as_view(), name="api-seat-action"),
    path("matches/<int:match_id>/seats/<int:seat>/presence/", api.PresenceApi.as_view(), name="api-seat-presence"),
    path("matches/<int:match_id>/seats/<int:seat>/talk/", api.TalkApi.as_view(), name="api-seat-talk"),
    path("matches/<int:match_id>/seats/<int:seat>/end-wait/", api.EndWaitApi.as_view(), name="api-seat-end-wait"),
    path("matches/<int:match_id>/deals/<int:number>/", api.DealResultApi.as_view(), name="api-deal-result"),
    path("matches/<int:match_id>/record/", api.MatchRecordApi.as_view(), name="api-match-record"),
    path("matches/<int:match_id>/analysis/", analysis_api.MatchAnalysisApi.as_view(), name="api-match-analysis"),
    path("matches/<int:match_id>/public/", live_api.MatchPublicApi.as_view(), name="api-match-public"),
    path("matches/<int:match_id>/events/", live_api.MatchEventsApi.as_view(), name="api-match-events"),
    path("records/signing-key/", api.RecordSigningKeyApi.as_view(), name="api-record-signing-key"),
    path("accounts/", account_api.AccountCreateApi.as_view(), name="api-accounts"),
    path("notifications/", notice_views.NoticesApi.as_view(), name="api-notices"),
    path("reports/", fairplay_views.ReportsApi.as_view(), name="api-reports"),
    path("notifications/read/", notice_views.NoticesReadApi.as_view(), name="api-notices-read"),
]

operations_patterns = [
    path("healthz", metrics.healthz, name="healthz"),
    path("metrics", metrics.metrics_view, name="metrics"),
]
