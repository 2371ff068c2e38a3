"""The API's one application error (issue 22, 1): every app's refusals are ``sitekit.errors.ApiError`` subclasses,
answered once by ``config.api.exception_handler``; no view translates them by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from bots_api.services import BotError
from eights_engine import IllegalAction
from games.services import MatchNotFound, StalePly
from sitekit.errors import ApiError
from sitekit.limits import LimitRefused
from tournaments.services import LadderBusy
from tournaments.tournament_services import TournamentError

ROOT = Path(__file__).resolve().parents[2]


def _answer(error: Exception):
    class Raising(APIView):
        authentication_classes, permission_classes, throttle_classes = [], [], []

        def get(self, request):
            raise error

    return Raising.as_view()(APIRequestFactory().get("/api/x/"))


@pytest.mark.parametrize("error, status, code", [
    (MatchNotFound("no match 7"), 404, "not_found"),
    (StalePly("the position moved on"), 409, "stale_ply"),
    (IllegalAction("you do not hold the 5C"), 400, "illegal_action"),
    (TournamentError("not_registering", "registration is closed"), 409, "not_registering"),
    (TournamentError("bad_settings", "rounds is 1 to 30", 400), 400, "bad_settings"),
    (BotError("name_taken", "that name is taken"), 409, "name_taken"),
    (BotError("invalid_endpoint", "an http(s) URL"), 400, "invalid_endpoint"),
])
def test_each_apps_errors_are_answered_once_with_their_status_and_code(error, status, code):
    response = _answer(error)
    assert response.status_code == status
    assert response.data == {"error": code, "detail": str(error)}


@pytest.mark.parametrize("error", [LimitRefused("2 trials running: wait for one to end", 30),
                                   LadderBusy("a match is being started for you right now")])
def test_a_refusal_that_can_be_tried_again_says_when(error):
    response = _answer(error)
    assert response["Retry-After"] == str(error.retry_after)
    assert response.data["detail"] == error.detail  # a limit's own words, nothing appended


def test_no_view_defines_its_own_api_exception_for_an_application_error():
    """What used to be 13 exception classes in three designs: an app's refusal is an ApiError subclass in its
    services, and the API modules define none of their own (DRF's authentication and throttling classes aside)."""
    own = []
    for path in list((ROOT / "games").glob("*api*.py")) + list((ROOT / "tournaments").glob("*api*.py")) + \
            list((ROOT / "bots_api").glob("*api*.py")):
        for line in path.read_text().splitlines():
            if re.match(r"class \w+\((APIException|ApiError)\)", line):
                own.append(f"{path.relative_to(ROOT)}: {line}")
    assert len(own) <= 3, own  # left: UnknownEventId (live), SignupRefused, BadCredentials (authentication)
    assert issubclass(BotError, ApiError) and issubclass(TournamentError, ApiError) and issubclass(LimitRefused, ApiError)
