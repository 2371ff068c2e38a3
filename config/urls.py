"""The site's routes: each app's pages and API (its ``urls.py``), the admin and the API schema."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from bots_api import urls as bots_urls
from games import urls as games_urls
from tables import urls as tables_urls
from tournaments import urls as tournaments_urls

urlpatterns = [
    path("", include(tournaments_urls.page_patterns)),
    path("", include(games_urls.page_patterns)),
    path("", include(bots_urls.page_patterns)),
    path("", include(tables_urls.page_patterns)),
    path("", include(games_urls.operations_patterns)),
    path("admin/", admin.site.urls),
    path("api/", include(games_urls.api_patterns)),
    path("api/", include(tournaments_urls.api_patterns)),
    path("api/", include(bots_urls.api_patterns)),
    path("api/", include(tables_urls.api_patterns)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # the split view serves its start-up script as a file, and templates/drf_spectacular/swagger_ui.html its
    # styles: the API docs keep the site's Content-Security-Policy (no inline script or style)
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
