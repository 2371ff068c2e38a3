"""Helpers shared by the site's server-rendered pages (not the API)."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.shortcuts import redirect


def post_only(back: str, *, say: str):
    """A page action that only a form's POST performs (Play now, Deal, Enter, Start...). Any other method (a GET after
    the login page sent the person back to the action's address, a bookmarked or typed address) is sent, with a 303
    and the message ``say``, to the page named ``back`` (a URL name, reversed with the view's own URL arguments),
    where the button is: never a blank 405 page."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method != "POST":
                messages.info(request, say)
                response = redirect(back, *args, **kwargs)
                response.status_code = 303
                return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
