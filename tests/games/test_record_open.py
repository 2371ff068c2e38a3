"""Local games seen like service games (issue 26, item 5): ``localrun --record FILE`` writes each match's record
(real HTTP bot servers on loopback), the engine's offline check passes it, and ``/replay/open/`` shows an uploaded
or pasted record in the replay viewer with its think times and faults, storing nothing. Bad records answer 400
with the reason; the budget per address answers 429 with Retry-After."""

from __future__ import annotations

import io
import json
import time

import pytest
from bot_servers import running
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from eights_engine.__main__ import main as engine_main
from eights_engine.bots import localrun
from games.models import Match


def _frames(response) -> dict:
    page = response.content.decode()
    start = page.index('<script id="replay-data" type="application/json">') + len(
        '<script id="replay-data" type="application/json">')
    return json.loads(page[start:page.index("</script>", start)])


def _alert(response) -> str:
    page = response.content.decode()
    start = page.index('role="alert">') + len('role="alert">')
    return page[start:page.index("</p>", start)]


@pytest.fixture
def local_records(tmp_path):
    """Two matches of a good bot and a bot answering HTTP 500 on every second turn, against a house strategy."""
    path = tmp_path / "local.ndjson"
    with running("good", "s1") as good, running("alternate500", "s2") as faulty:
        args = localrun.parse_args([good, faulty, "house:heuristic", "--preset", "pagat", "--seed", "11",
                                    "--matches", "2", "--secrets", "s1,s2,", "--record", str(path)])
        outcomes = localrun.run(args, io.StringIO())
    return path, outcomes


def test_localrun_records_replay_offline_with_their_faults_and_think_times(local_records, capsys):
    path, outcomes = local_records
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 2
    for record, outcome in zip(records, outcomes):
        assert record["result"] == {"totals": outcome.totals, "places": outcome.standings,
                                    "forfeited": outcome.forfeited}
        names = [p["name"] for p in record["players"]]
        assert "house:heuristic" in names and all(n.startswith(("http://", "house:")) for n in names)
        faults = [f for d in record["deals"] for f in d["faults"]]
        assert faults and {kind for _ply, kind in faults} == {"http_status"}
        for deal in record["deals"]:
            assert len(deal["think_ms"]) == len(deal["actions"])
    assert engine_main(["replay", str(path)]) == 0
    assert "2 records replayed: no mismatch" in capsys.readouterr().out


@pytest.mark.django_db
def test_an_uploaded_record_opens_in_the_replay_viewer_and_nothing_is_stored(local_records):
    path, outcomes = local_records
    before = Match.objects.count()
    client = Client()
    form = client.get("/replay/open/")
    assert form.status_code == 200 and 'name="file"' in form.content.decode()
    upload = SimpleUploadedFile("local.ndjson", path.read_bytes(), content_type="application/x-ndjson")
    response = client.post("/replay/open/", {"file": upload, "match": "2"})
    assert response.status_code == 200
    frames = _frames(response)
    second = json.loads(path.read_text().splitlines()[1])
    assert [len(d["plies"]) for d in frames["deals"]] == [len(d["actions"]) for d in second["deals"]]
    assert frames["result"]["totals"] == outcomes[1].totals
    assert [p["name"] for p in frames["players"]] == [p["name"] for p in second["players"]]
    plies = [p for d in frames["deals"] for p in d["plies"]]
    assert any(p.get("fault", {}).get("kind") == "http_status" for p in plies)
    assert "Match 2 of the 2 in the file." in response.content.decode()
    pasted = client.post("/replay/open/", {"record": path.read_text().splitlines()[0]})
    assert pasted.status_code == 200 and _frames(pasted)["result"]["totals"] == outcomes[0].totals
    assert Match.objects.count() == before  # nothing kept


@pytest.mark.django_db
def test_a_record_downloaded_from_the_service_opens_too(house_bots):
    from eights_engine import Ruleset
    from games.services import match_advance, match_create

    match = match_create(players=house_bots[:3], ruleset=Ruleset.preset("web-table"), preset="web-table", seed=5)
    assert match_advance(match_id=match.pk) == "finished"
    client = Client()
    record = client.get(f"/api/matches/{match.pk}/record/").content
    response = client.post("/replay/open/", {"file": SimpleUploadedFile("match.json", record)})
    assert response.status_code == 200
    frames = _frames(response)
    assert frames["result"]["totals"] == list(Match.objects.get(pk=match.pk).totals)
    assert [p["name"] for p in frames["players"]] == [p["name"] for p in json.loads(record)["players"]]


@pytest.mark.django_db
def test_bad_records_answer_400_saying_what_is_wrong(local_records):
    path, _outcomes = local_records
    first = json.loads(path.read_text().splitlines()[0])
    changed = json.loads(json.dumps(first))
    changed["deals"][0]["actions"][0] = {"type": "play", "card": "ZZ"}
    wrong_total = json.loads(json.dumps(first))
    wrong_total["result"]["totals"][0] += 1
    cases = {
        "": "The record is empty",
        "not json": "Line 1 is not JSON",
        "[1, 2]": "Line 1 is not a match record",
        json.dumps({"deals": []}): "This record does not replay",
        json.dumps(changed): "deal 1 ply 1",
        json.dumps(wrong_total): "totals expected",
        "[" * 100_000 + "]" * 100_000: "Line 1 is not JSON",
    }
    client = Client()
    for text, words in cases.items():
        response = client.post("/replay/open/", {"record": text})
        assert response.status_code == 400, text
        assert words in _alert(response), (text, _alert(response))
    response = client.post("/replay/open/", {"file": SimpleUploadedFile("x.json", path.read_bytes()), "match": "3"})
    assert response.status_code == 400 and "give a number from 1 to 2" in _alert(response)
    response = client.post("/replay/open/", {"file": SimpleUploadedFile("x.json", b"\xff\xfe{")})
    assert response.status_code == 400 and "not UTF-8" in _alert(response)
    big = SimpleUploadedFile("big.json", b" " * (4 * 1024 * 1024 + 1))
    response = client.post("/replay/open/", {"file": big})
    assert response.status_code == 400 and "4,194,305 bytes: a record file may be 4 MB at most" in _alert(response)


@pytest.mark.django_db
def test_past_the_budget_per_address_it_answers_429_with_retry_after(settings):
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], record_open="2/min")
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        client = Client()
        assert [client.post("/replay/open/", {"record": "x"}).status_code for _ in range(2)] == [400, 400]
        refused = client.post("/replay/open/", {"record": "x"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "2/min" in _alert(refused)


def test_localrun_refuses_a_record_file_in_no_folder(capsys):
    with pytest.raises(SystemExit) as exit_:
        localrun.parse_args(["house:random", "house:eager", "--preset", "pagat", "--seed", "1",
                             "--record", "/no/such/folder/x.ndjson"])
    assert exit_.value.code == 2
    assert "give a file name in an existing folder" in capsys.readouterr().err


def _analysis_url(response) -> str | None:
    page = response.content.decode()
    marker = 'id="analysis-status"'
    if marker not in page:
        return None
    start = page.index('data-url="', page.index(marker)) + len('data-url="')
    return page[start:page.index('"', start)]


@pytest.fixture
def _analysed_here(settings):
    settings.ANALYSIS_SAMPLES = 6  # the tests need the answer's shape, not the expert's depth
    settings.TASKS = "eager"  # the task runs in the request's thread: its answer is kept before the page is sent


@pytest.mark.django_db
def test_an_opened_record_is_analysed_on_request_and_only_the_answer_is_kept(local_records, _analysed_here):
    from games.models import MatchAnalysis

    path, outcomes = local_records
    client = Client()
    plain = client.post("/replay/open/", {"record": path.read_text().splitlines()[0]})
    assert _analysis_url(plain) is None  # not asked: no analysis
    response = client.post("/replay/open/", {"record": path.read_text().splitlines()[0], "analyse": "1"})
    assert response.status_code == 200
    url = _analysis_url(response)
    assert url and url.startswith("/replay/open/analysis/")
    answer = client.get(url)
    assert answer.status_code == 200 and answer["Cache-Control"].startswith("max-age=0")
    body = answer.json()
    record = json.loads(path.read_text().splitlines()[0])
    assert body["status"] == "done" and body["deals_done"] == body["deals_total"] == len(record["deals"])
    assert set(body["analysis"]) == {str(n) for n in range(1, len(record["deals"]) + 1)}
    assert len(body["given_up"]) == 3 and all(points >= 0 for points in body["given_up"])
    decisions = [d for deal in body["analysis"].values() for d in deal["decisions"].values()]
    assert decisions and {d["seat"] for d in decisions} == {0, 1, 2}
    assert "asked_at" not in body and not MatchAnalysis.objects.exists() and not Match.objects.exists()
    other = Client().get(url)  # the key is the whole secret: anyone holding it may read the answer, nobody guesses it
    assert other.status_code == 200
    assert len(url.rstrip("/").rsplit("/", 1)[1]) == 43  # 32 random bytes, base64url


@pytest.mark.django_db
def test_record_analysis_refusals_say_why_and_the_replay_still_shows(local_records, _analysed_here, settings,
                                                                      monkeypatch):
    from games import local_replay

    path, _outcomes = local_records
    line = path.read_text().splitlines()[0]
    client = Client()
    monkeypatch.setattr(local_replay, "MAX_ANALYSIS_PLIES", 10)
    long = client.post("/replay/open/", {"record": line, "analyse": "1"})
    assert long.status_code == 200 and _frames(long)["deals"] and _analysis_url(long) is None
    assert "records of at most 10 plies are analysed" in _alert(long)
    monkeypatch.setattr(local_replay, "MAX_ANALYSIS_PLIES", 5000)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "record_analysis": "1/hour"}}
    first = client.post("/replay/open/", {"record": line, "analyse": "1"}, REMOTE_ADDR="203.0.113.9")
    assert _analysis_url(first)
    second = client.post("/replay/open/", {"record": line, "analyse": "1"}, REMOTE_ADDR="203.0.113.9")
    assert second.status_code == 200 and _analysis_url(second) is None
    assert "analyses from this address: ask again in" in _alert(second)
    for key in ("x" * 43, "not-a-key", "A" * 44):
        gone = client.get(f"/replay/open/analysis/{key}/")
        assert gone.status_code == 404 and gone.json()["status"] == "gone" and "Open the record again" in gone.json()["detail"]


@pytest.mark.django_db
def test_while_redis_is_down_the_record_is_still_analysed_in_the_process(local_records, _analysed_here):
    """The service's cache (config.cache.ResilientRedisCache) counts and keeps in the process while Redis is away:
    the page, the budget and the analysis go on (here the task runs in the request's process)."""
    path, _outcomes = local_records
    down = {"default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": "redis://127.0.0.1:9/0",
                        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}}}
    client = Client()
    with override_settings(CACHES=down):
        response = client.post("/replay/open/", {"record": path.read_text().splitlines()[0], "analyse": "1"})
        assert response.status_code == 200 and _frames(response)["deals"]
        status = client.get(_analysis_url(response))
        assert status.status_code == 200 and status.json()["status"] == "done"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_analyses_an_opened_record(local_records, settings):
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    settings.ANALYSIS_SAMPLES = 6
    path, _outcomes = local_records
    app.control.purge()
    client = Client()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        response = client.post("/replay/open/", {"record": path.read_text().splitlines()[1], "analyse": "1"})
        url = _analysis_url(response)
        assert url
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and client.get(url).json()["status"] in ("queued", "running"):
            time.sleep(0.2)
    body = client.get(url).json()
    assert body["status"] == "done" and len(body["given_up"]) == 3


def test_a_pasted_record_of_over_2_5_mb_is_answered_by_the_page_not_by_the_csrf_check():
    """Found by a breaker: a 3 MB paste answered 403 "CSRF verification failed" (the CSRF check could not read a
    form over Django's 2.5 MB), never the page's own words."""
    client = Client(enforce_csrf_checks=True)
    client.get("/replay/open/")
    token = client.cookies["csrftoken"].value
    for size, words in ((3 * 1024 * 1024, "not"), (4 * 1024 * 1024 + 10, "over 4 MB")):
        answer = client.post("/replay/open/", {"csrfmiddlewaretoken": token, "record": "x" * size})
        assert answer.status_code == 400 and words in answer.content.decode(), (size, answer.status_code)
