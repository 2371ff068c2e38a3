"""The OpenAPI schema is checked against the real endpoints with schemathesis: for every operation, requests
generated from the schema (positive data only, a bounded number per operation) are sent through the real WSGI
application and database, with a token and anonymously, with generated path values and with real ones (a match
the person sits in, their bot, a ladder, a player, a finished deal).

Two rules: no answer is a server error (5xx), and no schema-valid request is refused for its shape. A 400 is
allowed only when the schema documents a 400 for the operation and the answer's ``error`` code names a refusal the
schema cannot express (``illegal_action``, ``invalid_endpoint``, ``unknown_opponent``, ...), never DRF's shape
codes (``invalid``, ``parse_error``), which mean the schema and the serializer disagree. 429 (a throttle) is
tolerated: other suites may tighten the limits.
"""

from __future__ import annotations

import time

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.cache import cache
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode

from bots_api.services import bot_register
from config.wsgi import application
from eights_engine import Ruleset
from games.services import match_advance, match_create, player_for_user

#: examples per operation and identity (token, anonymous); the whole file stays well under a minute
EXAMPLES = 12
#: the answer codes that mean "the body or query does not have the shape the view expects"
SHAPE_CODES = {"invalid", "parse_error", "unsupported_media_type", "not_acceptable"}


@pytest.fixture
def wsgi_in_the_test_transaction(db):
    """The WSGI app served in this test's transaction: Django closes the connection when a request ends (as
    its test client does, keep it open)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def scene(wsgi_in_the_test_transaction, house_bots, ladder):
    """A person with a token, their bot, a running match they sit in (seat 0), a finished match's first deal."""
    person = get_user_model().objects.create_user("schema_person", password="pw-schema-123")
    token = Token.objects.create(user=person).key
    bot, _secret = bot_register(owner=person, name="SchemaBot", endpoint_url="http://127.0.0.1:9/")
    running = match_create(players=[player_for_user(user=person), house_bots[0]], ruleset=Ruleset.preset("pagat"),
                           seed=11)
    finished = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=12)
    assert match_advance(match_id=finished.pk) == "finished"
    return {"token": token, "real": {"match_id": running.pk, "seat": 0, "bot_id": bot.pk, "slug": ladder.slug,
                                     "name": "Professor"}, "finished": finished.pk}


def _documented(operation, status: int) -> bool:
    responses = operation.definition.raw.get("responses", {})
    return str(status) in responses or f"{str(status)[0]}XX" in responses or "default" in responses


def _judge(operation, case, response, who: str) -> str | None:
    """What is wrong with this answer to a schema-valid request (None: nothing)."""
    status = response.status_code
    if status == 429:
        return None
    where = f"{case.method} {case.formatted_path} ({who}, body {getattr(case, 'body', None)!r}, query {case.query!r})"
    if status >= 500:
        return f"{where}: server error {status}: {response.text[:300]}"
    if status in (400, 415, 422):
        try:
            code = response.json().get("error")
        except ValueError:
            code = None
        if code in SHAPE_CODES or code is None:
            return f"{where}: a schema-valid request was refused ({status} {response.text[:300]})"
        if not _documented(operation, status):
            return f"{where}: {status} {code!r} is not documented for this operation ({response.text[:200]})"
    return None


@pytest.fixture
def short_streams(settings):
    """An event stream of a running match ends soon (``LIVE_STREAM_MAX_SECONDS``, docs/LIVE.md)."""
    settings.LIVE_STREAM_MAX_SECONDS = 0.3
    settings.LIVE_POLL_SECONDS = 0.05


def test_every_schema_valid_request_is_answered_without_a_server_error_or_a_shape_refusal(scene, short_streams):
    started = time.monotonic()
    schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
    problems: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        names = {p.name for p in operation.path_parameters}
        real = {k: v for k, v in scene["real"].items() if k in names}
        if "number" in names:  # a finished deal's score card
            real.update(match_id=scene["finished"], number=1)
        strategies = [operation.as_strategy(GenerationMode.POSITIVE)]
        if real:
            strategies.append(operation.as_strategy(GenerationMode.POSITIVE, path_parameters=real))

        @given(case=st.one_of(strategies))
        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        def run(case):
            for who, headers in (("token", {"Authorization": f"Token {scene['token']}"}), ("anonymous", {})):
                cache.clear()  # throttle counters: each request on its own budget
                response = case.call(headers=headers)
                problem = _judge(operation, case, response, who)
                if problem and problem not in problems:
                    problems.append(problem)

        run()
    elapsed = time.monotonic() - started
    assert operations >= 15, "the schema lost its operations"
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:30])
    assert elapsed < 90, f"the schema check took {elapsed:.0f} s: keep it bounded"


def test_request_and_response_shapes_have_unique_names_in_the_schema(db):
    """drf-spectacular names a component after its serializer class: two views' nested ``Input`` serializers
    silently became one component (the seat action then documented Play now's body). Every request body of the
    seat action, casual match and Play now documents its own fields."""
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    document = SchemaGenerator().get_schema(request=None, public=True)
    assert not GENERATOR_STATS._warn_cache, f"schema warnings: {list(GENERATOR_STATS._warn_cache)}"

    def body_fields(path: str) -> set[str]:
        ref = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        return set(document["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"])

    assert body_fields("/api/matches/{match_id}/seats/{seat}/actions/") == {"ply", "action", "contribution"}
    assert body_fields("/api/matches/casual/") == {"opponents", "preset"}
    assert body_fields("/api/ladders/{slug}/play/") == {"match_with"}


def test_the_read_endpoints_answers_match_their_schema(wsgi_in_the_test_transaction, ladder, house_bots, settings):
    """Issue 14: every read endpoint is in the schema, and the schema matches its answers (the body of each 200 and
    404 validated against the documented response): ladders, a leaderboard with established and provisional
    entries, a finished and a running match, players by id and by name, a sign-up."""
    from tournaments.models import LadderEntry

    settings.LADDER_PROVISIONAL_MATCHES = 10
    LadderEntry.objects.filter(ladder=ladder, player__name__in=["Professor", "Greedy"]).update(matches_played=12)
    finished = match_create(players=house_bots[2:], ruleset=Ruleset.preset("pagat"), seed=12)
    assert match_advance(match_id=finished.pk) == "finished"
    running = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=13)
    match_advance(match_id=running.pk, ply_budget=5)
    schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
    calls = [("/api/ladders/", "GET", {}, None), ("/api/ladders/{slug}/", "GET", {"slug": ladder.slug}, None),
             ("/api/ladders/{slug}/", "GET", {"slug": "no-such-ladder"}, None),
             ("/api/matches/{match_id}/", "GET", {"match_id": finished.pk}, None),
             ("/api/matches/{match_id}/", "GET", {"match_id": running.pk}, None),
             ("/api/matches/{match_id}/", "GET", {"match_id": 987654}, None),
             ("/api/players/{name}/", "GET", {"name": "Professor"}, None),
             ("/api/players/{name}/", "GET", {"name": str(house_bots[0].pk)}, None),
             ("/api/players/{name}/", "GET", {"name": "Nobody"}, None),
             ("/api/accounts/", "POST", {}, {"username": "schema_signup", "password": "a-long-pass-9876"}),
             ("/api/accounts/", "POST", {}, {"username": "schema_signup", "password": "a-long-pass-9876"}),
             ("/api/accounts/", "POST", {}, {"username": "other_signup", "password": "123"})]
    statuses = []
    for path, method, params, body in calls:
        cache.clear()
        operation = schema[path][method]
        kwargs = {"path_parameters": params}
        if body is not None:
            kwargs.update(body=body, media_type="application/json")
        case = operation.Case(**kwargs)
        response = case.call()
        statuses.append(response.status_code)
        operation.validate_response(response)  # raises, naming the mismatch, when the answer breaks the schema
    assert statuses == [200, 200, 404, 200, 200, 404, 200, 200, 404, 201, 409, 400]


def test_every_operation_lists_the_answers_any_request_may_get(wsgi_in_the_test_transaction, ladder):
    """A NUL in the query string is refused (400) before any view, a throttle answers 429 and a database away 503:
    every operation's schema lists them with the one error shape (schemathesis found GET /api/ladders/, GET
    /api/tournaments/ and Play now answering an undocumented 400)."""
    from drf_spectacular.generators import SchemaGenerator

    document = SchemaGenerator().get_schema(request=None, public=True)
    missing = [f"{method.upper()} {path}: {status}" for path, item in document["paths"].items()
               for method, operation in item.items() for status in ("400", "429", "503")
               if status not in operation["responses"]]
    assert not missing, missing
    schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
    for path, params in (("/api/ladders/", {}), ("/api/tournaments/", {}), ("/api/ladders/{slug}/", {"slug": ladder.slug})):
        cache.clear()
        operation = schema[path]["GET"]
        response = operation.Case(path_parameters=params, query={"q": "\x00"}).call()
        assert response.status_code == 400 and response.json()["error"] == "bad_request"
        assert _documented(operation, 400)
        operation.validate_response(response)
