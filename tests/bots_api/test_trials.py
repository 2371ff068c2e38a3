"""Trials (bots_api.trials; docs/TRIALS.md): unrated test runs of a bot against house bots and other bots.

Personas: an owner (ada, with a token) and her verified bot Probe behind a real HTTP bot on loopback; a stranger
(bob, another owner) with his own bot; anonymous. Matches are played in process here (``match_advance``, as a
worker does); tests/bots_api/test_trial_worker.py plays one through a real Celery worker.
"""

import re

import pytest
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bot_servers import BotServer
from bots_api.models import Bot, Trial, TrialMatch
from bots_api.trials import mean_interval, wilson_interval
from games.models import Match, Player
from games.services import match_advance
from tournaments.models import LadderEntry, LadderMatch, RatingChange
from tournaments.services import ladder_create, ladder_entry_create
from personas import bot_of


def _client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def server():
    bot_server = BotServer("good", "s3cret")
    yield bot_server
    bot_server.stop()


@pytest.fixture
def probe(owner, server, house_bots):
    return bot_of(owner, server, version="1.0")


def _play_all(trial: Trial) -> None:
    """Play the trial's matches to the end in process, as workers would (a waiting match answers "waiting"), and
    send each finished one's match_end and version ping (the bots' worker's task after the commit)."""
    from bots_api.services import match_end_notify

    for _round in range(200):
        running = list(Match.objects.filter(trial_match__trial=trial, status=Match.Status.RUNNING)
                       .order_by("pk").values_list("pk", flat=True))
        if not running:
            for match_id in Match.objects.filter(trial_match__trial=trial).values_list("pk", flat=True):
                match_end_notify(match_id=match_id)
            return
        for match_id in running:
            match_advance(match_id=match_id)
    raise AssertionError("the trial did not finish")


def _post(client, bot, body):
    return client.post(f"/api/bots/{bot.pk}/trials/", body, format="json")


# ---- the happy path -------------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_trial_plays_unrated_matches_and_reports_a_win_rate_interval(owner, probe, ladder):
    entry = ladder_entry_create(ladder=ladder, player=probe.player)
    before = (entry.mu, entry.sigma, entry.matches_played)
    Bot.objects.filter(pk=probe.pk).update(consecutive_failed_matches=2)
    client = _client_for(owner)
    answer = _post(client, probe, {"opponents": ["house:heuristic"], "matches": 4, "seeds": [11, 12, 13, 14],
                                   "preset": "pagat"})
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert answer["Location"] == f"/api/trials/{body['id']}/"
    assert body["status"] == "running" and body["bot_version"] == "1.0" and body["seeds"] == [11, 12, 13, 14]
    assert [r["bot_seat"] for r in body["results"]] == [0, 1, 0, 1]  # the bot's seat rotates
    assert [r["seed"] for r in body["results"]] == [11, 12, 13, 14]
    assert all(r["replay_url"] is None for r in body["results"])  # nothing is public while it runs
    trial = Trial.objects.get(pk=body["id"])
    _play_all(trial)
    detail = client.get(f"/api/trials/{trial.pk}/").json()
    assert detail["status"] == "finished"
    s = detail["summary"]
    assert s["finished"] == 4 and s["running"] == 0 and s["deals"] > 4
    low, high = s["win_rate_ci95"]
    assert low <= s["win_rate"] <= high and 0 <= low < high <= 1
    assert (low, high) == pytest.approx(wilson_interval(s["wins"], 4))
    assert s["wins"] == sum(1 for r in detail["results"] if r["bot_place"] == 1)
    m_low, m_high = s["mean_points_per_deal_ci95"]
    assert m_low < s["mean_points_per_deal"] < m_high
    assert s["lower_points_are_better"] is True
    assert all(r["replay_url"] == f"/matches/{r['match_id']}/replay/" for r in detail["results"])
    # never rated, never a ladder match, not judged by the fault policy
    entry.refresh_from_db()
    assert (entry.mu, entry.sigma, entry.matches_played) == before
    assert not RatingChange.objects.filter(match__trial_match__trial=trial).exists()
    assert not LadderMatch.objects.filter(match__trial_match__trial=trial).exists()
    probe.refresh_from_db()
    assert probe.consecutive_failed_matches == 2 and not probe.suspended_reason
    assert client.get(f"/api/bots/{probe.pk}/trials/").json()["results"][0]["id"] == trial.pk


@pytest.mark.django_db
def test_a_rerun_on_the_same_seeds_is_compared_with_the_last_version(owner, server, probe):
    client = _client_for(owner)
    first = _post(client, probe, {"opponents": ["house:greedy"], "seeds": [5, 6]}).json()
    _play_all(Trial.objects.get(pk=first["id"]))
    assert first["comparison"] is None
    server.version = "1.1"  # a fixed bot, restarted; no new check: the trial asks the bot itself
    second = _post(client, probe, {"opponents": ["house:greedy"], "seeds": [5, 6], "matches": 2}).json()
    _play_all(Trial.objects.get(pk=second["id"]))
    detail = client.get(f"/api/trials/{second['id']}/").json()
    comparison = detail["comparison"]
    assert comparison["trial_id"] == first["id"] and comparison["bot_version"] == "1.0"
    assert detail["bot_version"] == "1.1"
    assert [m["seed"] for m in comparison["matches"]] == [5, 6]
    # the same bot on the same seeds plays the same game again (the reference bot is deterministic)
    assert [(m["this_place"], m["this_total"]) for m in comparison["matches"]] == \
        [(m["last_place"], m["last_total"]) for m in comparison["matches"]]
    page = client.get(f"/trials/{second['id']}/")
    assert page.status_code == 401 or page.status_code == 302  # the page wants a session, not a token
    client.force_login(owner)
    page = client.get(f"/trials/{second['id']}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="trial-last"' in html and "the last run, trial" in html and "Wilson" in html
    for r in detail["results"]:  # each match's turn log; the "#" column counts from 1 (the API's number from 0)
        assert f'href="/bots/{probe.pk}/turns/?match={r["match_id"]}"' in html
    assert [int(n) for n in re.findall(r'<tr>\s*<td class="num">(\d+)</td>', html)] == \
        [r["number"] + 1 for r in detail["results"]]
    # a different seed set is no comparison
    third = _post(client, probe, {"opponents": ["house:greedy"], "seeds": [5, 7]}).json()
    assert third["comparison"] is None
    # the same version again on the same seeds is compared with the last other version, never with itself
    fourth = _post(client, probe, {"opponents": ["house:greedy"], "seeds": [5, 6]}).json()
    assert fourth["bot_version"] == "1.0"  # no match ended yet: its last check's version
    _play_all(Trial.objects.get(pk=fourth["id"]))
    again = client.get(f"/api/trials/{fourth['id']}/").json()
    assert again["bot_version"] == "1.1" and again["comparison"]["trial_id"] == first["id"]
    assert Bot.objects.get(pk=probe.pk).reported_version == "1.0"


@pytest.mark.django_db
def test_duplicate_seating_plays_each_seed_from_every_seat_one_after_another(owner, probe):
    answer = _post(_client_for(owner), probe, {"opponents": ["house:heuristic", "house:random"], "seeds": [3, 4],
                                               "duplicate": True})
    assert answer.status_code == 201, answer.content
    trial = Trial.objects.get(pk=answer.json()["id"])
    rows = list(TrialMatch.objects.filter(trial=trial).select_related("match").order_by("number"))
    assert len(rows) == 6 and [r.rotation for r in rows] == [0, 1, 2, 0, 1, 2]
    for unit in (rows[:3], rows[3:]):
        seeds = {r.match.seed for r in unit}
        assert len(seeds) == 1
        assert len({r.match.reveal_group for r in unit}) == 1 and unit[0].match.reveal_group
        assert [r.bot_seat for r in unit] == [0, 1, 2]  # the bot holds every seat's cards once
        for earlier, later in zip(unit, unit[1:]):  # a rotation waits for the one before it: never at once
            assert later.match.after_id == earlier.match_id
    assert match_advance(match_id=rows[1].match_id) == "waiting"
    _play_all(trial)
    assert not Match.objects.filter(trial_match__trial=trial).exclude(status=Match.Status.FINISHED).exists()


@pytest.mark.django_db
@override_settings(TRIAL_PARALLEL_MATCHES=2)
def test_a_trial_holds_at_most_its_parallel_matches_on_the_workers(owner, probe):
    answer = _post(_client_for(owner), probe, {"opponents": ["house:eager"], "matches": 5})
    trial = Trial.objects.get(pk=answer.json()["id"])
    rows = list(TrialMatch.objects.filter(trial=trial).select_related("match").order_by("number"))
    assert [r.match.after_id for r in rows] == [None, None, rows[0].match_id, rows[1].match_id, rows[2].match_id]
    assert answer.json()["results"][0]["seed"] is None  # random seeds stay secret until the match is public


@pytest.mark.django_db
def test_own_bots_and_bots_that_accept_challenges_are_opponents(owner, stranger, probe, server):
    mine = bot_of(owner, server, name="Probe Two", version="1.0")
    theirs = bot_of(stranger, server, name="Rival", version="1.0")
    client = _client_for(owner)
    assert _post(client, probe, {"opponents": ["Probe Two"], "matches": 1}).status_code == 201
    refused = _post(client, probe, {"opponents": ["Rival"], "matches": 1})
    assert refused.status_code == 400 and refused.json()["error"] == "unknown_opponent"
    _client_for(stranger).patch(f"/api/bots/{theirs.pk}/", {"accepts_challenges": True}, format="json")
    assert Bot.objects.get(pk=theirs.pk).accepts_challenges
    assert _post(client, probe, {"opponents": ["Rival", "Professor"], "matches": 1}).status_code == 201
    assert mine.pk != probe.pk


# ---- bad input ------------------------------------------------------------------------------------------------------

def _refused(answer, status, code, *words):
    assert answer.status_code == status, answer.content
    body = answer.json()
    assert set(body) == {"error", "detail"} and body["error"] == code, body
    for word in words:
        assert word in body["detail"], body["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("body, code, words", [
    ({"opponents": ["house:nobody"], "matches": 2}, "unknown_opponent", ["house:heuristic"]),
    ({"opponents": ["Nobody at all"], "matches": 2}, "unknown_opponent", ["house strategy"]),
    ({"opponents": [], "matches": 2}, "invalid_opponents", ["house:heuristic"]),
    ({"opponents": "house:heuristic", "matches": 2}, "invalid_opponents", ["list"]),
    ({"opponents": ["house:heuristic", "house:heuristic"], "matches": 2}, "invalid_opponents", ["once"]),
    ({"opponents": ["Probe"], "matches": 2}, "invalid_opponent", ["own opponent"]),
    ({"opponents": ["house:heuristic"], "matches": 101}, "too_many_matches", ["at most 100"]),
    ({"opponents": ["house:heuristic"], "matches": 0}, "invalid_matches", ["1 to 100"]),
    ({"opponents": ["house:heuristic"]}, "invalid_matches", ["seeds"]),
    ({"opponents": ["house:heuristic"], "seeds": "1,2,3"}, "invalid_seeds", ["list of integers"]),
    ({"opponents": ["house:heuristic"], "seeds": [1, "2"]}, "invalid_seeds", ["integers from 0"]),
    ({"opponents": ["house:heuristic"], "seeds": [1, 2.5]}, "invalid_seeds", ["integers from 0"]),
    ({"opponents": ["house:heuristic"], "seeds": [True]}, "invalid_seeds", ["integers from 0"]),
    ({"opponents": ["house:heuristic"], "seeds": [-1]}, "invalid_seeds", ["2**53 - 1"]),
    ({"opponents": ["house:heuristic"], "seeds": [2**53]}, "invalid_seeds", ["2**53 - 1"]),
    ({"opponents": ["house:heuristic"], "seeds": [4, 4]}, "invalid_seeds", ["once"]),
    ({"opponents": ["house:heuristic"], "seeds": [1, 2], "matches": 3}, "invalid_matches", ["give matches 2"]),
    ({"opponents": ["house:heuristic"], "matches": 3, "duplicate": True}, "invalid_matches", ["multiple of 2"]),
    ({"opponents": ["house:heuristic"], "matches": 2, "duplicate": "yes"}, "invalid_duplicate", ["true or false"]),
    ({"opponents": ["house:heuristic"], "matches": 2, "preset": "bridge"}, "unknown_preset", ["pagat"]),
    ({"opponents": ["house:heuristic"], "matches": 2, "ladder": "nowhere"}, "unknown_ladder", ["/api/ladders/"]),
    ({"opponents": ["house:heuristic"], "matches": 2, "ladder": "test", "preset": "pagat"}, "invalid_rules",
     ["not both"]),
    ({"opponents": ["house:heuristic", "house:random"], "matches": 2, "ladder": "test"}, "invalid_opponents",
     ["seats 2"]),
    ({"opponents": ["house:heuristic"], "matches": 2, "seed": [1]}, "unknown_field", ["seeds"]),
])
def test_bad_input_is_refused_saying_what_would_be_right(owner, probe, ladder, body, code, words):
    _refused(_post(_client_for(owner), probe, body), 400, code, *words)
    assert not Trial.objects.exists()


@pytest.mark.django_db
def test_a_bot_not_verified_or_not_allowed_on_the_ladder_is_refused(owner, server, probe, ladder):
    client = _client_for(owner)
    unverified = bot_of(owner, server, name="Fresh", verified=False, version="1.0")
    _refused(_post(client, unverified, {"opponents": ["house:heuristic"], "matches": 1}), 409, "not_verified",
             "verify")
    Bot.objects.filter(pk=probe.pk).update(suspended_reason="failed 3 matches in a row")
    _refused(_post(client, probe, {"opponents": ["house:heuristic"], "matches": 1, "ladder": "test"}), 409,
             "suspended", "not allowed on the ladder")
    Bot.objects.filter(pk=probe.pk).update(suspended_reason="")
    closed = ladder_create(name="Closed", slug="closed", preset="pagat")
    closed.is_active = False
    closed.save()
    _refused(_post(client, probe, {"opponents": ["house:heuristic"], "matches": 1, "ladder": "closed"}), 409,
             "ladder_closed")
    ok = _post(client, probe, {"opponents": ["house:heuristic"], "matches": 1, "ladder": "test"})
    assert ok.status_code == 201 and ok.json()["ladder"] == "test"
    assert not LadderEntry.objects.filter(player=probe.player).exists()  # never entered on the ladder


@pytest.mark.django_db
def test_another_owners_bot_and_trial_look_missing(owner, stranger, probe):
    trial_id = _post(_client_for(owner), probe, {"opponents": ["house:heuristic"], "matches": 1}).json()["id"]
    bob = _client_for(stranger)
    for answer, missing in ((_post(bob, probe, {"opponents": ["house:heuristic"], "matches": 1}),
                             bob.post("/api/bots/999999/trials/", {"opponents": ["x"]}, format="json")),
                            (bob.get(f"/api/bots/{probe.pk}/trials/"), bob.get("/api/bots/999999/trials/")),
                            (bob.get(f"/api/trials/{trial_id}/"), bob.get("/api/trials/999999/"))):
        assert answer.status_code == missing.status_code == 404
        assert answer.json()["error"] == missing.json()["error"] == "not_found"
        assert "Probe" not in answer.content.decode() and "heuristic" not in answer.content.decode()
    bob.force_login(stranger)
    assert bob.get(f"/trials/{trial_id}/").status_code == 404
    anonymous = APIClient()
    assert anonymous.get(f"/api/trials/{trial_id}/").status_code == 401
    assert Trial.objects.count() == 1


@pytest.mark.django_db
@override_settings(TRIAL_RUNNING_PER_OWNER=1, TRIAL_MATCHES_PER_DAY=3)
def test_owner_limits_answer_429_naming_the_limit(owner, probe):
    client = _client_for(owner)
    assert _post(client, probe, {"opponents": ["house:heuristic"], "matches": 2}).status_code == 201
    answer = _post(client, probe, {"opponents": ["house:heuristic"], "matches": 1})
    _refused(answer, 429, "throttled", "TRIAL_RUNNING_PER_OWNER")
    assert int(answer["Retry-After"]) >= 1
    _play_all(Trial.objects.get())
    answer = _post(client, probe, {"opponents": ["house:heuristic"], "matches": 2})
    _refused(answer, 429, "throttled", "TRIAL_MATCHES_PER_DAY")
    assert 80000 < int(answer["Retry-After"]) <= 86400
    assert _post(client, probe, {"opponents": ["house:heuristic"], "matches": 1}).status_code == 201


# ---- the intervals --------------------------------------------------------------------------------------------------

def test_the_wilson_interval_matches_the_published_values():
    assert wilson_interval(0, 0) is None
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 20) == pytest.approx((0.0, 0.1611), abs=1e-4)  # never below 0, unlike Wald's
    assert wilson_interval(20, 20) == pytest.approx((0.8389, 1.0), abs=1e-4)


def test_the_mean_interval_is_the_mean_plus_or_minus_two_standard_errors():
    assert mean_interval([]) == (None, None)
    assert mean_interval([4]) == (4, None)
    mean, (low, high) = mean_interval([0, 10, 20, 30])
    assert mean == 15 and (low, high) == pytest.approx((15 - 1.96 * 12.9099 / 2, 15 + 1.96 * 12.9099 / 2), abs=1e-2)


# ---- "Done means" (issue 14), the trial's part ----------------------------------------------------------------------

@pytest.mark.django_db
def test_an_author_fixes_a_bot_and_reruns_the_same_seeds_without_its_rating_moving(owner, server, probe):
    """20 matches against the house heuristic on fixed seeds with a bot that fails every second turn (HTTP 500: the
    fallback is played), the bot fixed (version 2), the same seeds again: the second trial shows the first side by
    side, the bot's results differ, no rating moved and the broken run suspended nothing."""
    quick = ladder_create(name="Quick", slug="quick", preset="pagat", target=25)  # short matches: a quick test
    entry = ladder_entry_create(ladder=quick, player=probe.player)
    rating = (entry.mu, entry.sigma, entry.matches_played)
    client = _client_for(owner)
    seeds = list(range(100, 120))
    server.behaviour = "alternate500"
    first = _post(client, probe, {"opponents": ["house:heuristic"], "seeds": seeds, "ladder": "quick"}).json()
    assert first["matches"] == 20
    _play_all(Trial.objects.get(pk=first["id"]))
    server.behaviour = "good"
    server.version = "2.0"  # the fix, restarted (the trial asks the bot which version it runs)
    second = _post(client, probe, {"opponents": ["house:heuristic"], "seeds": seeds, "ladder": "quick"}).json()
    _play_all(Trial.objects.get(pk=second["id"]))
    detail = client.get(f"/api/trials/{second['id']}/").json()
    assert detail["comparison"]["trial_id"] == first["id"] and detail["comparison"]["bot_version"] == "1.0"
    pairs = [(m["this_total"], m["last_total"]) for m in detail["comparison"]["matches"]]
    assert len(pairs) == 20 and any(now != then for now, then in pairs)
    assert detail["summary"]["finished"] == detail["comparison"]["summary"]["finished"] == 20
    entry.refresh_from_db()
    assert (entry.mu, entry.sigma, entry.matches_played) == rating
    probe.refresh_from_db()
    assert not probe.suspended_reason and probe.consecutive_failed_matches == 0


# ---- the schema matches the answers ---------------------------------------------------------------------------------

def _strict(node):
    """An OpenAPI 3.0 schema as JSON Schema 2020-12: ``nullable`` as a null type, and objects closed (no field the
    schema does not name)."""
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k != "nullable"}
    if "properties" in out:
        out.setdefault("additionalProperties", False)
    if node.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


@pytest.mark.django_db
def test_every_trial_answer_matches_its_schema(owner, server, probe):
    import jsonschema
    from drf_spectacular.generators import SchemaGenerator

    document = SchemaGenerator().get_schema(request=None, public=True)
    components = _strict(document["components"])

    def check(answer, path, method, status):
        schema = document["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]
        assert answer.status_code == status, answer.content
        jsonschema.Draft202012Validator({**_strict(schema), "components": components}).validate(answer.json())

    client = _client_for(owner)
    created = _post(client, probe, {"opponents": ["house:heuristic"], "seeds": [1, 2]})
    check(created, "/api/bots/{bot_id}/trials/", "post", 201)
    _play_all(Trial.objects.get(pk=created.json()["id"]))
    server.version = "1.1"  # a comparison is made with a trial of another version
    rerun = _post(client, probe, {"opponents": ["house:heuristic"], "seeds": [1, 2]})
    check(rerun, "/api/bots/{bot_id}/trials/", "post", 201)
    _play_all(Trial.objects.get(pk=rerun.json()["id"]))
    check(client.get(f"/api/trials/{created.json()['id']}/"), "/api/trials/{trial_id}/", "get", 200)
    detail = client.get(f"/api/trials/{rerun.json()['id']}/")
    assert detail.json()["comparison"] is not None
    check(detail, "/api/trials/{trial_id}/", "get", 200)
    check(client.get(f"/api/bots/{probe.pk}/trials/"), "/api/bots/{bot_id}/trials/", "get", 200)
    check(_post(client, probe, {"opponents": ["house:nobody"], "matches": 1}), "/api/bots/{bot_id}/trials/", "post",
          400)
    check(client.get("/api/trials/999999/"), "/api/trials/{trial_id}/", "get", 404)


@pytest.mark.django_db
def test_a_trial_match_page_says_it_is_an_unrated_test_run(owner, stranger, probe):
    trial_id = _post(_client_for(owner), probe, {"opponents": ["house:heuristic"], "matches": 1}).json()["id"]
    match = Match.objects.get(trial_match__trial_id=trial_id)
    page = APIClient().get(f"/matches/{match.pk}/").content.decode()  # public, like any casual match
    assert 'id="trial-match-note"' in page and "unrated trial match" in page and "Probe" in page
    assert f"/trials/{trial_id}/" not in page  # the link answers its owner only: drawn for the owner only
    for who, shown in ((stranger, False), (owner, True)):
        client = APIClient()
        client.force_login(who)
        assert (f"/trials/{trial_id}/" in client.get(f"/matches/{match.pk}/").content.decode()) is shown, who
    from eights_engine import Ruleset
    from games.services import match_create

    other = match_create(players=list(Player.objects.filter(name__in=["Rando", "Eager"])),
                         ruleset=Ruleset.preset("pagat"))
    assert "trial-match-note" not in APIClient().get(f"/matches/{other.pk}/").content.decode()
