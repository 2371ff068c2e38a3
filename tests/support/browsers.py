"""A real Chromium for page tests (Playwright driving Debian's /usr/bin/chromium; it never downloads one)."""

from __future__ import annotations

import contextlib
import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium():
    """A launched browser, closed at the end.

    Playwright's sync API runs an event loop in this thread, and Django keeps a separate set of database
    connections for code running while an event loop runs (asgiref's context-local storage): the test's ORM
    calls inside this block open a second connection that ``connections.close_all()`` outside the block never
    sees. Left open, it kept the run from dropping its test database ("being accessed by other users"), so it
    is closed here, inside the block. Needs ``DJANGO_ALLOW_ASYNC_UNSAFE`` for those ORM calls."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            connections.close_all()
            browser.close()
