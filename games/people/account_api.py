"""Sign-up over the API, for people who work from scripts: ``POST /api/accounts/`` with ``{"username",
"password"}`` creates the account and its player and answers 201 with the API token (the one
``POST /api/auth/token/`` gives for these credentials from then on).

The same rules as the sign-up page (``games.people.accounts.SignupForm``): Django's user name rules, a user name that
makes a player name no one can mistake for another's (``sitekit.names.player_name_check``), Django's password
validators (``AUTH_PASSWORD_VALIDATORS``); and the same limits per client address (``SignupAttemptThrottle``
attempts, ``SignupThrottle`` accounts created): past them 429 with Retry-After.
"""

from __future__ import annotations


from django.db import IntegrityError, transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import APIException, Throttled
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from games.people.accounts import SignupAttemptThrottle, SignupForm, SignupThrottle
from sitekit.errors import ErrorOutput
from games.services import player_for_user


class SignupRefused(APIException):
    """A user name or password the sign-up rules refuse: 400 (409 for a taken name), the detail by field."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, code: str, detail: dict, status_code: int = status.HTTP_400_BAD_REQUEST) -> None:
        self.status_code = status_code
        self.default_code = code  # read by config.api.exception_handler
        super().__init__(detail, code)


def _throttled(throttle: SignupThrottle, what: str, counted: str) -> Throttled:
    wait = throttle.retry_after()
    refused = Throttled(detail=f"too many {what} from your address (limit {throttle.rate} {counted}); try again in "
                               f"{wait} s")
    refused.wait = wait  # Retry-After
    refused.says_which_limit = True  # config.api.exception_handler keeps these words
    return refused


class AccountCreateApi(APIView):
    """Create an account (a person) and get its API token."""

    authentication_classes: list = []  # no session: no CSRF; a script has no account yet
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="SignupRequest")
    class Input(serializers.Serializer):
        username = serializers.CharField(max_length=150, trim_whitespace=False, help_text=(
            "letters, digits and @ . + - _ (Django's rule), 2 to 50 characters; it is also your player name, so it "
            "must not look like another player's"))
        password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"},
                                         help_text="at least 8 characters, not all digits, not a common password, "
                                                   "not like the user name")

    @extend_schema_serializer(component_name="SignupAnswer")
    class Output(serializers.Serializer):
        username = serializers.CharField()
        player_id = serializers.IntegerField(help_text="your player (GET /api/players/{id}/)")
        token = serializers.CharField(help_text='send as the header "Authorization: Token <token>"')

    @extend_schema(tags=["auth"], request=Input, auth=[], summary="Sign up: create an account and get its API token",
                   responses={201: Output,
                              400: OpenApiResponse(ErrorOutput, description=(
                                  "invalid_username or weak_password: the detail says, by field (username, "
                                  "password), what is wrong")),
                              409: OpenApiResponse(ErrorOutput, description="name_taken: the user name (or one that "
                                                                            "looks like it) is taken"),
                              429: OpenApiResponse(ErrorOutput, description=(
                                  "too many sign-up attempts or accounts created from your address: see "
                                  "Retry-After"))})
    def post(self, request):
        attempts, created = SignupAttemptThrottle(), SignupThrottle()
        if not attempts.allow_request(request, self):
            raise _throttled(attempts, "sign-up attempts", "attempts")
        if created.full(request):
            raise _throttled(created, "sign-ups", "accounts created")
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        username, password = data.validated_data["username"], data.validated_data["password"]
        form = SignupForm({"username": username, "password1": password, "password2": password})
        if not form.is_valid():
            raise _refusal(form)
        try:
            with transaction.atomic():
                user = form.save()
                player = player_for_user(user=user)  # the name is taken from now on (checked by the form)
        except IntegrityError:  # another sign-up took the name between the check and the save
            raise SignupRefused("name_taken", {"username": [f"the user name {username!r} is taken: choose another"]},
                                status.HTTP_409_CONFLICT) from None
        created.count(request)
        token, _ = Token.objects.get_or_create(user=user)
        return Response(self.Output({"username": user.get_username(), "player_id": player.pk, "token": token.key}).data,
                        status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})


def _refusal(form: SignupForm) -> SignupRefused:
    """The form's errors as one ``SignupRefused``: ``name_taken`` (409) when the user name is taken, else
    ``invalid_username`` or ``weak_password`` (400), the messages by field."""
    detail: dict[str, list[str]] = {}
    codes: set[str] = set()
    for field, errors in form.errors.as_data().items():
        name = {"password1": "password", "password2": "password"}.get(field, field)
        for error in errors:
            detail.setdefault(name, []).extend(error.messages)
            codes.add(f"{name}:{error.code}")
    if any(code in ("username:unique", "username:name_taken") for code in codes):
        return SignupRefused("name_taken", detail, status.HTTP_409_CONFLICT)
    if "username" in detail:
        return SignupRefused("invalid_username", detail)
    return SignupRefused("weak_password", detail)
