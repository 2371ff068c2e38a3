"""A crash under /api/ is JSON in the API's error shape, with DEBUG on as well as off (never Django's HTML debug page);
a page's crash keeps Django's page. A URL configuration of its own adds a view that fails to the real one."""

from __future__ import annotations

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import path
from rest_framework.views import APIView

from config.urls import urlpatterns as real_urlpatterns


class _FailingApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request):
        raise RuntimeError("a bug with a secret in its message: s3cret-in-trace")


def _failing_page(request):
    raise RuntimeError("a page's bug")


def _plain_failure(request):
    return HttpResponse("<html>oops s3cret-in-trace</html>", status=500)


urlpatterns = [path("api/test-failure/", _FailingApi.as_view()), path("api/test-plain-500/", _plain_failure),
               path("test-failure/", _failing_page), *real_urlpatterns]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_a_crash_under_the_api_answers_json_500(settings, debug):
    settings.DEBUG = debug
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)
    for url in ("/api/test-failure/", "/api/test-plain-500/"):
        response = client.get(url)
        assert response.status_code == 500, url
        assert response["Content-Type"].startswith("application/json"), (url, response["Content-Type"])
        body = response.json()
        assert set(body) == {"error", "detail"} and body["error"] == "server_error", body
        assert "s3cret-in-trace" not in response.content.decode() and "Traceback" not in response.content.decode()
    page = client.get("/test-failure/")
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_id_asked_for_by_a_browser_is_json_with_the_views_words(settings, debug):
    """The browsable API would render a view's 404 as an HTML page for a browser: it is JSON, and keeps the view's
    detail (which id is unknown), not the unknown-path words."""
    settings.DEBUG = debug
    for url, words in (("/api/matches/987654/", "no match 987654"), ("/api/ladders/nope/", "there is no ladder 'nope'"),
                       ("/api/players/Nobody/", "no player named 'Nobody'")):
        response = Client().get(url, HTTP_ACCEPT="text/html,application/xhtml+xml")
        assert response.status_code == 404 and response["Content-Type"].startswith("application/json"), url
        body = response.json()
        assert body["error"] == "not_found" and words in body["detail"], (url, body)
