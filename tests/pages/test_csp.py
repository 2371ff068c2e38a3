"""The Content-Security-Policy header (django-csp; issue 8, finding 3) on pages, the API docs and the admin, and
templates and static scripts that never need inline script or style nor build HTML from strings."""

import re
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
POLICY = {"default-src": "'self'", "script-src": "'self'", "style-src": "'self'", "img-src": "'self' data:",
          "object-src": "'none'", "base-uri": "'none'", "frame-ancestors": "'none'", "form-action": "'self'"}


def _directives(header: str) -> dict[str, str]:
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] if " " in d else "" for d in
            (part.strip() for part in header.split(";")) if d}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/matches/", "/accounts/login/", "/accounts/signup/", "/api/docs/",
                                  "/api/docs/?script=", "/admin/login/", "/ladders/test/", "/players/Rando/"])
def test_every_page_sends_the_policy(client, ladder, path):
    response = client.get(path)
    assert response.status_code == 200, path
    directives = _directives(response["Content-Security-Policy"])
    for name, value in POLICY.items():
        assert directives.get(name) == value, (path, name, directives.get(name))


@pytest.mark.django_db
def test_the_api_docs_load_their_script_from_this_site(client):
    page = client.get("/api/docs/").content.decode()
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts and all(re.search(r'\bsrc="/(static/|api/docs/\?)', s) for s in scripts), scripts
    assert "<style" not in page
    start = client.get("/api/docs/?script=")
    assert start["Content-Type"].startswith("application/javascript") and b"SwaggerUIBundle" in start.content


def _sources():
    for pattern in ("templates/**/*.html", "static/**/*.js"):
        yield from sorted(ROOT.glob(pattern))


@pytest.mark.parametrize("path", list(_sources()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_inline_script_or_style_and_no_html_from_strings(path):
    """The policy would refuse these anyway; this says where, before a browser does."""
    text = path.read_text()
    if path.suffix == ".html":
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", text), "inline <script>"
        assert not re.search(r"<style\b", text), "inline <style>: add the rules to static/css"
        assert not re.search(r"\sstyle=", text), "a style attribute: use a class from static/css"
        assert not re.search(r"\son[a-z]+=", text), "an inline event handler: listen from static/js"
        assert not re.search(r"\|\s*safe\b|{%\s*autoescape\s+off", text.replace("field.help_text|safe", "")), (
            "unescaped output (Django's own password help is the one exception)")
    else:
        assert not re.search(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(", text), (
            "HTML built from strings: build elements and set textContent")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/no-such-page/", "/matches/999999/", "/api/no-such-endpoint/"])
def test_not_found_answers_send_the_policy_also_with_debug_on(client, settings, path):
    """Zero-setup runs with DEBUG on, where django-csp skips 404s and 500s: they get the policy too (inline styles
    allowed, for Django's debug pages; no inline script)."""
    settings.DEBUG = True
    response = client.get(path)
    assert response.status_code == 404, path
    directives = _directives(response["Content-Security-Policy"])
    for name, value in POLICY.items():
        expected = "'self' 'unsafe-inline'" if name == "style-src" else value
        assert directives.get(name) == expected, (path, name, directives.get(name))
