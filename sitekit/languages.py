"""The page's language (docs/TRANSLATING.md): the account's choice (kept in the session at log-in and when the
switcher is used), else the switcher's cookie (``LANGUAGE_COOKIE_NAME``), else the browser's ``Accept-Language``,
else ``LANGUAGE_CODE``. URLs carry no language. The site kit imports no app: the account's side is
``games.people.languages``."""

from __future__ import annotations

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

#: the session key holding a signed-in person's language (a code of ``settings.LANGUAGES``)
SESSION_LANGUAGE = "language"


def language_supported(code: str | None) -> str | None:
    """``code`` when it is one of ``settings.LANGUAGES`` (``"en"``, ``"ru"``, ``"bg"``), else None."""
    return code if code and code in dict(settings.LANGUAGES) else None


class LanguageMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` (cookie, then ``Accept-Language``; ``Vary: Accept-Language``), with the
    account's language first when the session holds one. Needs ``SessionMiddleware`` before it."""

    def process_request(self, request) -> None:
        session = getattr(request, "session", None)
        try:
            chosen = language_supported(session.get(SESSION_LANGUAGE)) if session is not None else None
        except Exception:  # the session store away (an outage) or a malformed session cookie: not the page's end
            chosen = None  # the language then comes from the cookie or the browser; the page decides the rest
        if chosen is None:
            super().process_request(request)
            return
        translation.activate(chosen)
        request.LANGUAGE_CODE = translation.get_language()
