"""Accounts: sign-up (Django's own user creation form; the new person is logged in and sent on) and the
failed-login limits (django-axes) shared by the login page, the admin
login and the token endpoint.

Failed logins: ``settings.AXES_FAILURE_LIMIT`` failures against one account (from any addresses) or from one
address (``sitekit.limits.client_address``, against any accounts) lock that account or address until ``settings.AXES_COOLOFF_TIME`` has passed since
the failures that reached the limit. A locked login is refused even with the right password: the page answers
429 with the message on the login form, the API ``{"error": "throttled", "detail": ...}``, both with Retry-After.
"""

from __future__ import annotations

import math

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_parameters, get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from sitekit.limits import AddressBudget
from games.people.players import player_name_check
from sitekit.names import NameRefused
from games.services import player_for_user
from games.people.languages import language_keep_for_new_account


class LoginAttemptHandler(AxesDatabaseHandler):
    """django-axes' database handler (failures in ``axes_accessattempt``), except that a successful login forgets
    only the failures against that account: the address's failures against other accounts still count, else one
    attacker with an account of their own could reset their address's count between guesses."""

    def reset_user_attempts(self, request, credentials=None) -> int:
        return login_failures_forget(username=get_client_username(request, credentials))


def login_failures_forget(*, username: str | None) -> int:
    """Forget the failed logins against ``username`` (after it logged in); returns how many records went."""
    if not username:
        return 0
    return AccessAttempt.objects.filter(username=username).delete()[0]


def login_retry_after(*, request, credentials: dict | None) -> int:
    """Seconds (at least 1) until a locked login would be let through again, if nobody fails meanwhile.

    ``request`` has been through django-axes (``axes_ip_address``, ``axes_user_agent``); ``credentials`` is
    ``{"username": ...}`` as tried. For each lockout parameter (the account, the address) the failures in the
    cool-off window are summed from the newest back: the lock holds until the record that reaches the limit ages out.
    """
    cool_off = get_cool_off(request)
    limit = get_failure_limit(request, credentials)
    now = timezone.now()
    username = get_client_username(request, credentials)
    waits = []
    for where in get_client_parameters(username, request.axes_ip_address, request.axes_user_agent, request,
                                       credentials):
        total = 0
        for attempt_time, failures in (AccessAttempt.objects.filter(**where, attempt_time__gte=now - cool_off)
                                       .order_by("-attempt_time").values_list("attempt_time", "failures_since_start")):
            total += failures
            if total >= limit:
                waits.append((attempt_time + cool_off - now).total_seconds())
                break
    return max(1, math.ceil(max(waits, default=cool_off.total_seconds())))


def login_locked_detail(*, request, wait: int) -> str:
    """The lockout message: what happened, the limit, and when to try again (``wait`` seconds)."""
    minutes = max(1, round(get_cool_off(request).total_seconds() / 60))
    return (f"too many failed logins for this account or from your address (limit "
            f"{get_failure_limit(request, None)} in {minutes} min); try again in {wait} s")


def login_locked_response(request: HttpRequest, original_response=None, credentials: dict | None = None
                          ) -> HttpResponse:
    """django-axes' ``AXES_LOCKOUT_CALLABLE`` for pages (the login page, the admin login): the same login page
    again, status 429 with Retry-After, its form saying why instead of "wrong password"."""
    credentials = credentials or getattr(request, "axes_credentials", None)
    wait = login_retry_after(request=request, credentials=credentials)
    message = login_locked_detail(request=request, wait=wait)
    message = f"{message[0].upper()}{message[1:]}."
    context = getattr(original_response, "context_data", None) or {}
    form = context.get("form")
    if isinstance(original_response, TemplateResponse) and form is not None and form.is_bound:
        form.errors.clear()
        form.add_error(None, message)
        response = TemplateResponse(request, original_response.template_name, context, status=429)
        response.render()
    else:
        response = HttpResponse(message, content_type="text/plain; charset=utf-8", status=429)
    response["Retry-After"] = str(wait)
    return response


class SignupThrottle(AddressBudget):
    """Accounts created, per ``client_address``: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["signup"]``. The sign-up
    page asks ``full`` before it creates an account and calls ``count`` after; ``allow_request`` (DRF's: asks and
    counts at once) works too."""

    scope = "signup"


class SignupAttemptThrottle(SignupThrottle):
    """Sign-up form posts, successful or not, per ``client_address``:
    ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["signup_attempt"]`` (larger than ``signup``: mistakes are allowed,
    hammering the form is not)."""

    scope = "signup_attempt"


class SignupForm(UserCreationForm):
    """Django's form, and the user name must make a player name no one can mistake for another's
    (``sitekit.names.player_name_check``: no invisible characters, no look-alike of a taken name)."""

    def clean_username(self):
        username = super().clean_username()
        if username:
            try:
                player_name_check(name=username, max_length=50)
            except NameRefused as exc:
                raise ValidationError(exc.detail.replace("the name", "the user name", 1), code=exc.code) from None
        return username


def signup(request):
    """The sign-up page: the form; a valid post creates the account and its player, logs the person in and sends
    them to ``next``. Past a limit (``SignupAttemptThrottle`` form posts, ``SignupThrottle`` accounts created, per
    address) a post answers 429 with Retry-After: the page again with the message (JSON ``{"error": "throttled",
    "detail"}`` when the request asks for JSON only)."""
    next_url = request.POST.get("next") or request.GET.get("next") or "/"
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = "/"
    created = SignupThrottle()
    if request.method == "POST":
        attempts = SignupAttemptThrottle()
        if not attempts.allow_request(request, None):
            return _signup_refused(request, attempts, next_url, "sign-up attempts", "form posts")
        if created.full(request):
            return _signup_refused(request, created, next_url, "sign-ups", "accounts created")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        created.count(request)
        player = player_for_user(user=user)  # the name is taken from now on (checked by the form)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        language_keep_for_new_account(request=request, player=player)
        return redirect(next_url)
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


def _signup_refused(request, throttle: SignupThrottle, next_url: str, what: str, counted: str) -> HttpResponse:
    """The 429 for a sign-up past ``throttle``'s limit: the page with the message, the user name kept."""
    wait = throttle.retry_after()
    detail = f"too many {what} from your address (limit {throttle.rate} {counted}); try again in {wait} s"
    accept = request.headers.get("Accept", "")
    if "application/json" in accept and "text/html" not in accept:
        response = JsonResponse({"error": "throttled", "detail": detail}, status=429)
    else:
        form = SignupForm(initial={"username": request.POST.get("username", "")})
        response = render(request, "registration/signup.html",
                          {"form": form, "next": next_url, "refused": f"{detail[0].upper()}{detail[1:]}."},
                          status=429)
    response["Retry-After"] = str(wait)
    return response
