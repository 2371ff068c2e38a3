"""The documents the pages name (docs/*.md) are served at /docs/: every one renders, links between them point at
their pages, and nothing outside the list (other files, paths) is served."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

DOCS = sorted(p.stem for p in (Path(settings.BASE_DIR) / "docs").glob("*.md")
              if re.fullmatch(r"[A-Z][A-Z_]*", p.stem) and p.stem != "README")  # README: the folder's own index


def test_every_document_is_listed_and_renders(client):
    index = client.get(reverse("docs-index")).content.decode()
    assert len(DOCS) >= 6
    for name in DOCS:
        assert f'href="/docs/{name}/"' in index
        page = client.get(f"/docs/{name}/")
        assert page.status_code == 200, name
        body = page.content.decode()
        first_heading = next(line[2:].strip() for line in (Path(settings.BASE_DIR) / "docs" / f"{name}.md")
                             .read_text().splitlines() if line.startswith("# "))
        assert f"<title>{first_heading}" in body.replace("&#x27;", "'") or first_heading.split()[0] in body
        assert "<h1" in body and "Content-Security-Policy" in page.headers


def test_tables_and_code_render_and_doc_links_are_rewritten(client):
    body = client.get("/docs/BOT_PROTOCOL/").content.decode()
    assert "<table>" in body and "<pre><code" in body
    assert not re.search(r'href="[^"]*\.md["#]', body), "a link to a .md file was left as it is"


@pytest.mark.parametrize("name", ["measurements", "..%2FREADME", "README", "NOPE", "RULES.md", "x" * 300])
def test_other_names_are_404(client, name):
    assert client.get(f"/docs/{name}/").status_code == 404


def test_every_page_links_the_documents(client):
    assert 'href="/docs/"' in client.get(reverse("rules-index")).content.decode()
