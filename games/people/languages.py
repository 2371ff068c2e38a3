"""A person's language (docs/TRANSLATING.md): the switcher on every page (``language_choose``) sets the cookie for
anyone and, signed in, keeps the choice on the account (``Player.language``) and in the session, where
``sitekit.languages.LanguageMiddleware`` finds it first; a log-in brings the account's choice back
(``on_user_logged_in``), and a sign-up keeps the language the person was reading (``language_keep_for_new_account``)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseBadRequest
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from games.models import Player
from sitekit.languages import SESSION_LANGUAGE, language_supported


@require_POST
def language_choose(request):
    """POST ``language`` (``en``, ``ru`` or ``bg``) and optionally ``next`` (a path of this site; the switcher sends
    none, so the page's address is not written into every page: the referring page, else ``/``):
    the cookie (Django's ``set_language``), and for a signed-in person the account's setting and the session's.
    An unknown language answers 400 with the ones there are."""
    code = language_supported(request.POST.get("language"))
    if code is None:
        known = ", ".join(c for c, _ in settings.LANGUAGES)
        return HttpResponseBadRequest(f"no such language {request.POST.get('language')!r}: choose one of {known}",
                                      content_type="text/plain; charset=utf-8")
    response = set_language(request)
    if request.user.is_authenticated:
        Player.objects.filter(user=request.user, kind=Player.Kind.HUMAN).update(language=code)
        request.session[SESSION_LANGUAGE] = code
    return response


def on_user_logged_in(sender, request=None, user=None, **kwargs) -> None:
    """``user_logged_in`` receiver: the account's language, when it has one, for this session (an account that never
    chose one follows the cookie and the browser, as before it logged in)."""
    if request is None or not hasattr(request, "session") or user is None:
        return
    player = Player.objects.filter(user=user, kind=Player.Kind.HUMAN).only("pk", "language").first()
    if player is not None and language_supported(player.language):
        request.session[SESSION_LANGUAGE] = player.language
        translation.activate(player.language)


def language_keep_for_new_account(*, request, player: Player) -> None:
    """At sign-up: the new account keeps the language the person was reading (the sign-up page's), in the account and
    the session, so the site stays in it wherever they log in next."""
    reading = language_supported(translation.get_language())
    if reading:
        Player.objects.filter(pk=player.pk).update(language=reading)
        request.session[SESSION_LANGUAGE] = reading
