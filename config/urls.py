from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from bots_api.urls import api_patterns as bot_api_patterns
from bots_api.urls import page_patterns as bot_page_patterns
from games import views as game_views
from tournaments import views as ladder_views

urlpatterns = [
    path("", ladder_views.home, name="home"),
    path("ladders/<slug:slug>/", ladder_views.ladder_detail, name="ladder-detail"),
    path("matches/", game_views.match_list, name="match-list"),
    path("matches/<int:match_id>/", game_views.match_detail, name="match-detail"),
    path("healthz", game_views.healthz, name="healthz"),
    path("", include(bot_page_patterns)),
    path("accounts/", include("django.contrib.auth.urls")),  # login / logout (sign-up is elsewhere)
    path("admin/", admin.site.urls),
    path("api/", include(bot_api_patterns)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
