"""Sign-up: Django's own user creation form; the new person is logged in and sent on."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from rest_framework.throttling import SimpleRateThrottle

from games.names import NameRefused, player_name_check
from games.services import player_for_user


class SignupThrottle(SimpleRateThrottle):
    """DRF's throttle, per client address: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["signup"]``."""

    scope = "signup"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SignupForm(UserCreationForm):
    """Django's form, and the user name must make a player name no one can mistake for another's
    (``games.names.player_name_check``: no invisible characters, no look-alike of a taken name)."""

    def clean_username(self):
        username = super().clean_username()
        if username:
            try:
                player_name_check(name=username, max_length=50)
            except NameRefused as exc:
                raise ValidationError(exc.detail.replace("the name", "the user name", 1), code=exc.code) from None
        return username


def signup(request):
    if request.method == "POST":
        throttle = SignupThrottle()
        if not throttle.allow_request(request, None):
            wait = int(throttle.wait() or 60)
            response = JsonResponse({"error": "throttled", "detail": f"too many sign-ups from your address (limit "
                                     f"{throttle.rate}); try again in {wait} s"}, status=429)
            response["Retry-After"] = str(wait)
            return response
    next_url = request.POST.get("next") or request.GET.get("next") or "/"
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = "/"
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        player_for_user(user=user)  # the name is taken from now on (checked by the form)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(next_url)
    return render(request, "registration/signup.html", {"form": form, "next": next_url})
