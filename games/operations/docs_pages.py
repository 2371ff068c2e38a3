"""The project's documents (``docs/*.md``) as pages at ``/docs/`` and ``/docs/<NAME>/``, so that what the pages and
error messages name ("see docs/FAIRNESS.md") can be opened on the service itself.

Only files whose name is upper-case letters and underscores (``FAIRNESS.md``) are served, except ``README.md`` (the
folder's index for readers of the source; ``/docs/`` is the site's): the list is read from the folder, never from
the request. Markdown is rendered by Python-Markdown (tables, fenced code, heading anchors) from
our own files; links between documents (``MATCH_RECORD.md#seeds``) are rewritten to their pages, and links to other
files of the source tree (``../examples/go/README.md``) become their path in words."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe

_NAME = re.compile(r"[A-Z][A-Z_]{0,40}")
_SOURCE_LINK = re.compile(r'<a href="\.\./([^"#:]+)">(.*?)</a>')  # a file of the source tree, not a served document
_DOC_LINK = re.compile(r'href="(?:\.\./docs/|docs/|\./)?([A-Z][A-Z_]{0,40})\.md(#[^"]*)?"')


def _served(name: str) -> bool:
    return bool(_NAME.fullmatch(name)) and name != "README"


def _folder() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def documents() -> list[dict]:
    """The servable documents, by name: ``[{"name": "FAIRNESS", "title": "Provably fair deals"}]`` (the title is
    the file's first heading)."""
    found = []
    for path in sorted(_folder().glob("*.md")):
        if _served(path.stem):
            found.append({"name": path.stem, "title": _render(path.stem, path.stat().st_mtime_ns)[0]})
    return found


@lru_cache(maxsize=64)
def _render(name: str, mtime_ns: int) -> tuple[str, str]:
    """(title, HTML) of ``docs/<name>.md`` as it was at ``mtime_ns`` (the cache key: an edited file is read again)."""
    text = (_folder() / f"{name}.md").read_text(encoding="utf-8")
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("# ")), name)
    html = markdown.markdown(text, extensions=["tables", "fenced_code", "toc", "sane_lists"], output_format="html")
    html = _SOURCE_LINK.sub(lambda m: f"{m.group(2)} (<code>{m.group(1)}</code> in the source)", html)
    html = _DOC_LINK.sub(lambda m: f'href="/docs/{m.group(1)}/{m.group(2) or ""}"', html)
    return title, html


def docs_index(request):
    """``/docs/``: every document with its title."""
    return render(request, "games/docs_index.html", {"documents": documents()})


def docs_page(request, name: str):
    """``/docs/<name>/``: one document rendered. 404 for a name that is not a served document."""
    path = _folder() / f"{name}.md"
    if not _served(name) or not path.is_file():
        raise Http404(f"There is no document {name[:40]!r}: the list is at /docs/.")
    title, html = _render(name, path.stat().st_mtime_ns)
    return render(request, "games/doc_page.html", {"title": title, "body": mark_safe(html), "name": name})
