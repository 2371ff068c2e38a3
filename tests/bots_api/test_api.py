"""The bot owners' REST API: every endpoint's happy path, one owner's bot invisible to another, bad input answered
with what is wrong, the secret shown once, verify against real HTTP bot servers on loopback, throttling, schema.

Personas: an owner (ada, with a token), a stranger (bob, another owner), anonymous.
"""

import socket

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from bots_api.models import Bot
from bots_api.services import bot_check_run
from eights_engine import Ruleset
from games.models import Deal, Move
from games.services import match_advance, match_create
from run_cache import clear_this_runs_cache
from tournaments.models import LadderEntry
from bot_servers import BotServer


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    clear_this_runs_cache()  # throttles count in the cache, which outlives a test
    yield
    clear_this_runs_cache()


def _client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def as_owner(owner):
    return _client_for(owner)


@pytest.fixture
def as_stranger(stranger):
    return _client_for(stranger)


@pytest.fixture
def anonymous():
    return APIClient()


@pytest.fixture
def bot_server():
    """examples/bot_server.py's bot on loopback (tests/support/bot_servers.py); its secret is known only after
    registration: ``use_secret`` sets it."""
    server = BotServer("good", "not-yet", "LoopbackBot")
    yield server
    server.stop()


@pytest.fixture
def down_url():
    """A loopback URL nobody listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def _register(client, name="Crazy8", url="http://127.0.0.1:9/"):
    response = client.post("/api/bots/", {"name": name, "endpoint_url": url}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _verified(bot_id: int) -> Bot:
    Bot.objects.filter(pk=bot_id).update(verified_at=timezone.now())
    return Bot.objects.get(pk=bot_id)


def _error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error", "detail"}, body
    if code:
        assert body["error"] == code, body
    return body


# ---- auth ----------------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_user_trades_name_and_password_for_a_token_that_opens_the_api(owner, anonymous):
    response = anonymous.post("/api/auth/token/", {"username": "ada", "password": "pw-ada-123"}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert anonymous.post("/api/auth/token/", {"username": "ada", "password": "pw-ada-123"},
                          format="json").json()["token"] == token  # the same token every time
    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert anonymous.get("/api/bots/").status_code == 200


@pytest.mark.django_db
def test_a_wrong_password_gets_no_token(owner, anonymous):
    body = _error(anonymous.post("/api/auth/token/", {"username": "ada", "password": "nope"}, format="json"),
                  400, "invalid_credentials")
    assert "wrong user name or password" in body["detail"]
    _error(anonymous.post("/api/auth/token/", {"username": "ada"}, format="json"), 400)


@pytest.mark.django_db
def test_a_logged_in_session_opens_the_api_too(owner):
    client = APIClient()
    client.force_login(owner)
    assert client.get("/api/bots/").status_code == 200


@pytest.mark.django_db
def test_anonymous_callers_are_told_to_authenticate_on_every_owner_endpoint(anonymous, as_owner):
    bot = _register(as_owner)
    for method, url in _private_endpoints(bot["id"]) + [("get", "/api/bots/"), ("post", "/api/bots/")]:
        response = getattr(anonymous, method)(url, {}, format="json")
        body = _error(response, 401, "not_authenticated")
        assert response["WWW-Authenticate"].startswith("Token")
        assert bot["secret"] not in response.content.decode() and "127.0.0.1:9" not in response.content.decode()
        assert body["detail"]


# ---- register, read, change, delete ---------------------------------------------------------------------------

@pytest.mark.django_db
def test_an_owner_registers_a_bot_and_sees_its_secret_only_in_that_answer(as_owner, owner):
    response = as_owner.post("/api/bots/", {"name": "Crazy8", "endpoint_url": "http://127.0.0.1:9/"}, format="json")
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    bot = response.json()
    assert bot["name"] == "Crazy8" and bot["endpoint_url"] == "http://127.0.0.1:9/"
    assert bot["is_enabled"] and bot["verified_at"] is None and not bot["can_play"] and bot["ladders"] == []
    assert len(bot["secret"]) >= 40 and Bot.objects.get(pk=bot["id"]).secret == bot["secret"]
    assert Bot.objects.get(pk=bot["id"]).owner == owner
    for url in ("/api/bots/", f"/api/bots/{bot['id']}/", f"/api/bots/{bot['id']}/health/",
                f"/api/bots/{bot['id']}/matches/", "/api/players/Crazy8/"):
        later = as_owner.get(url)
        assert later.status_code == 200 and bot["secret"] not in later.content.decode(), url
    patched = as_owner.patch(f"/api/bots/{bot['id']}/", {"is_enabled": False}, format="json")
    assert "secret" not in patched.json() and bot["secret"] not in patched.content.decode()


@pytest.mark.django_db
def test_an_owner_lists_only_their_own_bots(as_owner, as_stranger):
    _register(as_owner, "Alpha")
    _register(as_owner, "Beta")
    _register(as_stranger, "Gamma")
    assert [b["name"] for b in as_owner.get("/api/bots/").json()] == ["Alpha", "Beta"]
    assert [b["name"] for b in as_stranger.get("/api/bots/").json()] == ["Gamma"]


@pytest.mark.django_db
def test_an_owner_renames_moves_and_disables_a_bot_and_a_new_endpoint_must_be_verified_again(as_owner):
    bot = _register(as_owner)
    _verified(bot["id"])
    url = f"/api/bots/{bot['id']}/"
    assert as_owner.get(url).json()["verified_at"] is not None
    changed = as_owner.patch(url, {"name": "Crazier8", "endpoint_url": "http://127.0.0.1:10/"}, format="json")
    assert changed.status_code == 200
    assert changed.json()["name"] == "Crazier8" and changed.json()["endpoint_url"] == "http://127.0.0.1:10/"
    assert changed.json()["verified_at"] is None
    disabled = as_owner.patch(url, {"is_enabled": False}, format="json").json()
    assert disabled["is_enabled"] is False and disabled["name"] == "Crazier8"
    # a form-encoded PATCH without the checkbox changes nothing else
    assert as_owner.patch(url, "name=Crazy8", content_type="application/x-www-form-urlencoded").json()[
        "is_enabled"] is False
    assert as_owner.patch(url, {"is_enabled": True}, format="json").json()["is_enabled"] is True


@pytest.mark.django_db
def test_deleting_a_bot_that_never_played_removes_it(as_owner):
    bot = _register(as_owner)
    assert as_owner.delete(f"/api/bots/{bot['id']}/").status_code == 204
    assert not Bot.objects.filter(pk=bot["id"]).exists()
    _error(as_owner.get(f"/api/bots/{bot['id']}/"), 404, "not_found")


@pytest.mark.django_db
def test_deleting_a_bot_that_played_disables_it_so_its_matches_stay_replayable(as_owner, house_bots):
    bot = _register(as_owner)
    match_create(players=[Bot.objects.get(pk=bot["id"]).player, house_bots[0]], ruleset=Ruleset.preset("pagat"),
                 seed=1)
    response = as_owner.delete(f"/api/bots/{bot['id']}/")
    assert response.status_code == 200 and response.json()["is_enabled"] is False
    assert Bot.objects.filter(pk=bot["id"]).exists()


@pytest.mark.django_db
def test_rotating_the_secret_shows_the_new_one_once_and_the_old_one_stops_working(as_owner):
    bot = _register(as_owner)
    response = as_owner.post(f"/api/bots/{bot['id']}/rotate-secret/")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    new = response.json()["secret"]
    assert new != bot["secret"] and Bot.objects.get(pk=bot["id"]).secret == new
    assert new not in as_owner.get(f"/api/bots/{bot['id']}/").content.decode()


# ---- verify (a check: queued by the request, run by the worker; tests/bots_api/test_bot_checks.py has the worker) --

def _verify_and_run(client, bot_id: int) -> dict:
    """POST verify (202, queued), run the queued check as the worker does, and read it back over the API."""
    response = client.post(f"/api/bots/{bot_id}/verify/")
    assert response.status_code == 202, response.content
    check = response.json()
    assert check["state"] == "queued" and check["checks"] == []
    bot_check_run(check_id=check["id"])
    return client.get(response["Location"]).json()


@pytest.mark.django_db
def test_verify_sends_the_conformance_checks_to_a_real_bot_server_and_marks_the_bot_verified(as_owner, bot_server):
    bot = _register(as_owner, url=bot_server.url)
    bot_server.use_secret(bot["secret"])
    check = _verify_and_run(as_owner, bot["id"])
    assert check["state"] == "passed", check
    assert check["checks"][0]["name"] == "ping" and '"name": "LoopbackBot"' in check["checks"][0]["detail"]
    assert check["latency_ms"] >= 0 and check["finished_at"]
    detail = as_owner.get(f"/api/bots/{bot['id']}/").json()
    assert detail["verified_at"] is not None and detail["can_play"] and detail["reported_name"] == "LoopbackBot"


@pytest.mark.django_db
def test_verify_fails_when_the_bot_server_checks_another_secret(as_owner, bot_server):
    bot = _register(as_owner, url=bot_server.url)
    bot_server.use_secret("somebody-elses-secret")
    check = _verify_and_run(as_owner, bot["id"])
    assert check["state"] == "failed" and "HTTP 401" in check["detail"] and "check the secret" in check["detail"]
    assert Bot.objects.get(pk=bot["id"]).verified_at is None


@pytest.mark.django_db
def test_verify_of_a_bot_whose_server_is_down_says_it_could_not_connect(as_owner, down_url):
    bot = _register(as_owner, url=down_url)
    check = _verify_and_run(as_owner, bot["id"])
    assert check["state"] == "failed" and "could not connect" in check["detail"]


@pytest.mark.django_db
def test_rotating_the_secret_makes_the_bot_fail_verification_until_it_learns_the_new_one(as_owner, bot_server):
    bot = _register(as_owner, url=bot_server.url)
    bot_server.use_secret(bot["secret"])
    assert _verify_and_run(as_owner, bot["id"])["state"] == "passed"
    new = as_owner.post(f"/api/bots/{bot['id']}/rotate-secret/").json()["secret"]
    assert _verify_and_run(as_owner, bot["id"])["state"] == "failed"
    bot_server.use_secret(new)
    assert _verify_and_run(as_owner, bot["id"])["state"] == "passed"


# ---- ladders, matches, health --------------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_verified_bot_enters_and_leaves_a_ladder(as_owner, ladder):
    bot = _register(as_owner)
    url = f"/api/bots/{bot['id']}/ladders/{ladder.slug}/"
    _error(as_owner.post(url), 409, "not_verified")
    _verified(bot["id"])
    response = as_owner.post(url)
    assert response.status_code == 200, response.content
    assert response.json()["ladder"] == ladder.slug and response.json()["is_active"] is True
    assert as_owner.get(f"/api/bots/{bot['id']}/").json()["ladders"][0]["ladder"] == ladder.slug
    assert as_owner.delete(url).status_code == 204
    assert LadderEntry.objects.get(ladder=ladder, player__name="Crazy8").is_active is False
    _error(as_owner.post(f"/api/bots/{bot['id']}/ladders/no-such-ladder/"), 404, "not_found")


@pytest.mark.django_db
def test_a_disabled_or_closed_ladder_entry_is_refused_with_the_reason(as_owner, ladder):
    bot = _register(as_owner)
    _verified(bot["id"])
    as_owner.patch(f"/api/bots/{bot['id']}/", {"is_enabled": False}, format="json")
    body = _error(as_owner.post(f"/api/bots/{bot['id']}/ladders/{ladder.slug}/"), 409, "disabled")
    assert "enable" in body["detail"]
    as_owner.patch(f"/api/bots/{bot['id']}/", {"is_enabled": True}, format="json")
    _verified(bot["id"])
    ladder.is_active = False
    ladder.save()
    _error(as_owner.post(f"/api/bots/{bot['id']}/ladders/{ladder.slug}/"), 409, "ladder_closed")


@pytest.mark.django_db
def test_a_bot_registered_and_verified_over_the_api_plays_and_its_matches_and_health_show_it(
        as_owner, bot_server, house_bots):
    bot = _register(as_owner, url=bot_server.url)
    bot_server.use_secret(bot["secret"])
    assert _verify_and_run(as_owner, bot["id"])["state"] == "passed"
    player = Bot.objects.get(pk=bot["id"]).player
    match = match_create(players=[house_bots[0], player], ruleset=Ruleset.preset("pagat"), seed=11)
    match_advance(match_id=match.pk, ply_budget=60)
    page = as_owner.get(f"/api/bots/{bot['id']}/matches/").json()
    assert page["count"] == 1 and page["results"][0]["id"] == match.pk
    assert [s["player"] for s in page["results"][0]["seats"]] == ["Rando", "Crazy8"]
    health = as_owner.get(f"/api/bots/{bot['id']}/health/").json()
    turns = Move.objects.filter(deal__match=match, seat=1).count()
    assert turns > 0 and health["calls"] == turns
    assert health["fault_count"] == 0 and health["faults"] == []
    assert health["latency_ms"]["window"] == turns and 0 <= health["latency_ms"]["p50"] <= health["latency_ms"]["max"]


@pytest.mark.django_db
def test_the_matches_list_is_paginated_newest_first(as_owner, house_bots):
    bot = _register(as_owner)
    player = Bot.objects.get(pk=bot["id"]).player
    ids = [match_create(players=[player, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=s).pk
           for s in range(3)]
    page = as_owner.get(f"/api/bots/{bot['id']}/matches/?limit=2").json()
    assert page["count"] == 3 and [m["id"] for m in page["results"]] == ids[::-1][:2] and page["next"]
    assert [m["id"] for m in as_owner.get(page["next"]).json()["results"]] == ids[:1]


def _store_moves(match, rows):
    """Store plies on the match's first deal: rows of (seat, think_ms, fault_kind)."""
    deal = Deal.objects.get(match=match, number=1)
    Move.objects.bulk_create(
        Move(deal=deal, ply=ply, seat=seat, action={"type": "draw"}, think_ms=ms, fault_kind=kind,
             fault=f"{kind}: sample {ply}" if kind else "", source="fallback" if kind else "agent")
        for ply, (seat, ms, kind) in enumerate(rows))


@pytest.mark.django_db
def test_health_counts_only_the_bots_own_turns_with_latency_percentiles_and_recent_faults_by_kind(
        as_owner, house_bots):
    bot = _register(as_owner)
    player = Bot.objects.get(pk=bot["id"]).player
    first = match_create(players=[player, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=1)
    second = match_create(players=[house_bots[1], player], ruleset=Ruleset.preset("pagat"), seed=2)
    # the bot: 1..10 ms at seat 0 of the first match, 11..20 ms at seat 1 of the second; the house bots: 999 ms
    kinds = ["timeout"] * 7 + ["illegal"] + [""] * 2
    _store_moves(first, [row for ms in range(1, 11) for row in ((0, ms, kinds[ms - 1]), (1, 999, "illegal"))])
    _store_moves(second, [row for ms in range(11, 21) for row in ((0, 999, ""), (1, ms, ""))])
    health = as_owner.get(f"/api/bots/{bot['id']}/health/").json()
    assert health["calls"] == 20
    assert health["latency_ms"] == {"window": 20, "p50": 10, "p95": 19, "max": 20}
    assert health["fault_count"] == 8
    timeout, illegal = health["faults"]
    assert (timeout["kind"], timeout["count"], illegal["kind"], illegal["count"]) == ("timeout", 7, "illegal", 1)
    assert len(timeout["recent"]) == 5  # the 5 most recent, newest first
    assert [s["ply"] for s in timeout["recent"]] == [12, 10, 8, 6, 4]
    assert timeout["recent"][0] == {**timeout["recent"][0], "match_id": first.pk, "deal_number": 1,
                                    "cause": "timeout: sample 12"}
    assert illegal["recent"][0]["ply"] == 14


@pytest.mark.django_db
def test_a_bot_that_never_played_has_empty_health(as_owner):
    bot = _register(as_owner)
    health = as_owner.get(f"/api/bots/{bot['id']}/health/").json()
    assert health["calls"] == 0 and health["faults"] == []
    assert health["latency_ms"] == {"window": 0, "p50": None, "p95": None, "max": None}


# ---- public profiles ------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_anyone_reads_a_bots_public_profile_without_its_endpoint_or_secret(as_owner, anonymous, ladder):
    bot = _register(as_owner, url="http://127.0.0.1:9/")
    _verified(bot["id"])
    as_owner.post(f"/api/bots/{bot['id']}/ladders/{ladder.slug}/")
    response = anonymous.get("/api/players/Crazy8/")
    assert response.status_code == 200
    profile = response.json()
    assert profile["name"] == "Crazy8" and profile["kind"] == "bot" and profile["owner"] == "ada"
    assert profile["fault_count"] == 0 and profile["recent_matches"] == []
    assert [r["ladder"] for r in profile["ratings"]] == [ladder.slug]
    body = response.content.decode()
    assert bot["secret"] not in body and "127.0.0.1:9" not in body and "endpoint" not in body


@pytest.mark.django_db
def test_a_house_bots_profile_has_no_owner_and_an_unknown_name_is_404(anonymous, ladder):
    profile = anonymous.get("/api/players/Professor/").json()
    assert profile["kind"] == "house" and profile["owner"] is None and profile["fault_count"] is None
    assert profile["ratings"][0]["ladder"] == ladder.slug
    _error(anonymous.get("/api/players/Nobody/"), 404, "not_found")


# ---- another owner's bot ---------------------------------------------------------------------------------------

def _private_endpoints(bot_id: int, slug: str = "test") -> list[tuple[str, str]]:
    return [("get", f"/api/bots/{bot_id}/"), ("patch", f"/api/bots/{bot_id}/"), ("delete", f"/api/bots/{bot_id}/"),
            ("post", f"/api/bots/{bot_id}/rotate-secret/"), ("post", f"/api/bots/{bot_id}/verify/"),
            ("post", f"/api/bots/{bot_id}/ladders/{slug}/"), ("delete", f"/api/bots/{bot_id}/ladders/{slug}/"),
            ("get", f"/api/bots/{bot_id}/matches/"), ("get", f"/api/bots/{bot_id}/health/"),
            ("get", f"/api/bots/{bot_id}/checks/1/")]


@pytest.mark.django_db
def test_another_owners_bot_is_invisible_and_unchangeable_on_every_private_endpoint(
        as_owner, as_stranger, ladder, bot_server):
    bot = _register(as_owner, url=bot_server.url)
    bot_server.use_secret(bot["secret"])
    assert _verify_and_run(as_owner, bot["id"])["state"] == "passed"
    as_owner.post(f"/api/bots/{bot['id']}/ladders/{ladder.slug}/")
    before = Bot.objects.get(pk=bot["id"])
    missing = _private_endpoints(999_999, ladder.slug)
    for (method, url), (_m, missing_url) in zip(_private_endpoints(bot["id"], ladder.slug), missing):
        data = {"name": "Stolen", "endpoint_url": "http://127.0.0.1:10/", "is_enabled": False}
        response = getattr(as_stranger, method)(url, data, format="json")
        body = _error(response, 404, "not_found")
        text = response.content.decode()
        assert bot["secret"] not in text and bot_server.url not in text and "127.0.0.1" not in text, (method, url)
        # the same answer as for a bot that does not exist: the id tells the stranger nothing
        missing_body = getattr(as_stranger, method)(missing_url, data, format="json").json()
        assert body["detail"].replace(str(bot["id"]), "N") == missing_body["detail"].replace("999999", "N")
    after = Bot.objects.get(pk=bot["id"])
    assert (after.name, after.endpoint_url, after.secret, after.is_enabled) == (
        before.name, before.endpoint_url, before.secret, before.is_enabled)
    assert after.player.ladder_entries.get().is_active
    assert as_stranger.get("/api/bots/").json() == []


# ---- bad input ---------------------------------------------------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("url, words", [
    ("not a url", "must use https or http"),
    ("file:///etc/passwd", "not 'file'"),
    ("gopher://127.0.0.1:70/", "not 'gopher'"),
    ("http://ada:hunter2@127.0.0.1:9/", "must not contain a user name or password"),
    ("http://10.0.0.1/", "private address"),
    ("http://127.0.0.1:99999/", "not a valid URL"),
])
def test_registration_refuses_a_bad_endpoint_and_says_why(as_owner, url, words):
    body = _error(as_owner.post("/api/bots/", {"name": "Crazy8", "endpoint_url": url}, format="json"),
                  400, "invalid_endpoint")
    assert words in body["detail"]
    assert not Bot.objects.exists()


@pytest.mark.django_db
def test_registration_refuses_a_taken_name(as_owner, as_stranger, house_bots):
    _register(as_owner, "Crazy8")
    body = _error(as_stranger.post("/api/bots/", {"name": "Crazy8", "endpoint_url": "http://127.0.0.1:9/"},
                                   format="json"), 409, "name_taken")
    assert "'Crazy8' is taken" in body["detail"]
    _error(as_stranger.post("/api/bots/", {"name": "Professor", "endpoint_url": "http://127.0.0.1:9/"},
                            format="json"), 409, "name_taken")  # house bots' names too


@pytest.mark.django_db
def test_registration_names_the_missing_fields_and_a_too_short_name(as_owner):
    body = _error(as_owner.post("/api/bots/", {}, format="json"), 400, "invalid")
    assert set(body["detail"]) == {"name", "endpoint_url"} and "required" in body["detail"]["name"][0]
    body = _error(as_owner.post("/api/bots/", {"name": "x", "endpoint_url": "http://127.0.0.1:9/"}, format="json"),
                  400, "invalid_name")
    assert "2 to 40 characters" in body["detail"]


@pytest.mark.django_db
def test_a_change_to_a_bad_endpoint_or_a_taken_name_is_refused_and_nothing_changes(as_owner):
    bot = _register(as_owner, "Crazy8")
    _register(as_owner, "Other")
    url = f"/api/bots/{bot['id']}/"
    assert "not 'file'" in _error(as_owner.patch(url, {"endpoint_url": "file:///etc/passwd"}, format="json"),
                                  400, "invalid_endpoint")["detail"]
    _error(as_owner.patch(url, {"name": "Other"}, format="json"), 409, "name_taken")
    _error(as_owner.patch(url, {"is_enabled": "perhaps"}, format="json"), 400, "invalid")
    assert as_owner.get(url).json()["name"] == "Crazy8"
    assert Bot.objects.get(pk=bot["id"]).endpoint_url == "http://127.0.0.1:9/"


# ---- throttling and schema ----------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_too_many_requests_answer_429_in_the_usual_error_shape(anonymous, house_bots, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "3/min", "user": "3/min", "bot_verify": "1/min"})
    for _ in range(3):
        assert anonymous.get("/api/players/Rando/").status_code == 200
    response = anonymous.get("/api/players/Rando/")
    body = _error(response, 429, "throttled")
    assert "throttled" in body["detail"] and int(response["Retry-After"]) > 0


@pytest.mark.django_db
def test_the_openapi_schema_documents_every_endpoint(anonymous):
    schema = anonymous.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = schema["paths"]
    expected = {
        "/api/auth/token/": {"post"}, "/api/bots/": {"get", "post"},
        "/api/bots/{bot_id}/": {"get", "patch", "delete"}, "/api/bots/{bot_id}/rotate-secret/": {"post"},
        "/api/bots/{bot_id}/verify/": {"post"}, "/api/bots/{bot_id}/checks/{check_id}/": {"get"},
        "/api/bots/{bot_id}/ladders/{slug}/": {"post", "delete"},
        "/api/bots/{bot_id}/matches/": {"get"}, "/api/bots/{bot_id}/health/": {"get"},
        "/api/players/{name}/": {"get"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
        for method in methods:
            assert paths[path][method]["summary"], (path, method)
    assert "secret" in schema["components"]["schemas"]["BotWithSecretOutput"]["properties"]
    assert "secret" not in schema["components"]["schemas"]["BotOutput"]["properties"]
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])
