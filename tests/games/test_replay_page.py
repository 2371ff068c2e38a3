"""Issue 11 item 3: the replay viewer's page (``/matches/<id>/replay/``). A finished match's page carries every ply
as frames that equal the engine's replay of the stored match, with think times and faults; a running or aborted
match answers 403 and shows nothing of it; a deep link outside the match answers 400 naming the range."""

import html
import json
import re

import pytest
from django.contrib.auth import get_user_model

from eights_engine import Ruleset
from eights_engine.frames import positions, replay_frames
from games.models import Deal, Match, Move
from games.selectors import match_export, match_state
from games.services import match_abort, match_advance, match_create, player_for_user


def _finished(bots, preset="pagat", seed=7, seats=2):
    match = match_create(players=bots[:seats], ruleset=Ruleset.preset(preset), preset=preset, seed=seed)
    assert match_advance(match_id=match.pk) == "finished"
    match.refresh_from_db()
    return match


def _frames(response) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>',
                      response.content.decode(), re.S)
    assert found, "the page carries its frames as a JSON data block"
    return json.loads(found.group(1))


@pytest.mark.django_db
def test_a_finished_match_replays_every_ply_as_the_engine_plays_it(client, house_bots):
    match = _finished(house_bots, seats=3)
    first = Move.objects.filter(deal__match=match, deal__number=1).order_by("ply")[2]
    Move.objects.filter(pk=first.pk).update(source=Move.Source.FALLBACK, fault_kind="timeout",
                                            fault="no answer within 1000 ms <b>", think_ms=1234)
    response = client.get(f"/matches/{match.pk}/replay/")
    assert response.status_code == 200
    assert 'src="/static/js/replay.js"' in response.content.decode()
    frames = _frames(response)
    record = match_export(match=match)
    assert [p["name"] for p in frames["players"]] == [p["name"] for p in record["players"]]
    assert frames["result"] == record["result"] and frames["match"] == match.pk
    plain = replay_frames(record)
    assert len(frames["deals"]) == len(record["deals"]) == match.deal_number
    for shown, engine in zip(frames["deals"], plain["deals"], strict=True):
        assert positions(shown) == positions(engine)
        assert [p["log"] for p in shown["plies"]] == [p["log"] for p in engine["plies"]]
    assert frames["deals"][0]["plies"][2]["fault"] == {"kind": "timeout", "detail": "no answer within 1000 ms <b>"}
    assert frames["deals"][0]["plies"][2]["ms"] == 1234
    assert "<b>" not in response.content.decode()  # json_script escapes the fault text
    last = positions(frames["deals"][-1])[-1]
    assert last["totals"] == match.totals == match_state(match=match).totals
    assert sum(len(d["plies"]) for d in frames["deals"]) == match.ply_count
    zipped = client.get(f"/matches/{match.pk}/replay/", HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["Content-Encoding"] == "gzip" and len(zipped.content) < len(response.content) / 3


@pytest.mark.django_db
def test_the_match_page_links_the_replay_only_when_finished(client, house_bots):
    finished = _finished(house_bots)
    running = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=3)
    assert f"/matches/{finished.pk}/replay/" in client.get(f"/matches/{finished.pk}/").content.decode()
    assert "/replay/" not in client.get(f"/matches/{running.pk}/").content.decode()


@pytest.mark.django_db
def test_a_running_or_aborted_match_has_no_replay_and_shows_nothing_of_it(client, house_bots):
    person = get_user_model().objects.create_user("ann", password="pw-12345-xyz")
    running = match_create(players=[player_for_user(user=person), house_bots[0]], ruleset=Ruleset.preset("pagat"),
                           preset="pagat", seed=987_654_321_011)
    aborted = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=987_654_321_012)
    match_advance(match_id=aborted.pk, ply_budget=5)
    match_abort(match_id=aborted.pk, reason="test")
    for match, words in ((running, "still being played"), (aborted, "aborted")):
        state = match_state(match=match)
        cards = {c for s in range(state.seats) for c in state.deal.hand(s)}
        secrets = [str(match.seed), *(str(d.seed) for d in Deal.objects.filter(match=match)),
                   *(d.code for d in Deal.objects.filter(match=match))]
        for user in (person, None):
            client.logout()
            if user:
                client.force_login(user)
            for query in ("", "?deal=1&ply=0", "?deal=9&ply=x"):
                response = client.get(f"/matches/{match.pk}/replay/{query}")
                body = response.content.decode()
                assert response.status_code == 403, (match.status, user, query)
                assert words in body and "replay-data" not in body and "replay.js" not in body
                tokens = set(re.findall(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])", body))
                assert not tokens & cards, f"{match.status}: {sorted(tokens & cards)}"
                assert not any(s in body for s in secrets)
    assert client.get("/matches/999999/replay/").status_code == 404


@pytest.mark.django_db
def test_a_deep_link_opens_at_its_ply_and_one_outside_the_match_says_the_range(client, house_bots):
    match = _finished(house_bots)
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    assert len(deals) >= 2
    response = client.get(f"/matches/{match.pk}/replay/?deal=2&ply=5")
    assert response.status_code == 200
    start = re.search(r'<script id="replay-start" type="application/json">(.*?)</script>', response.content.decode())
    assert json.loads(start.group(1)) == {"deal": 2, "ply": 5}
    bad = {f"?deal={len(deals) + 1}": f"deal is a deal number from 1 to {len(deals)}",
           "?deal=abc": f"deal is a deal number from 1 to {len(deals)}", "?deal=0": "not '0'",
           f"?deal=1&ply={deals[0].plies + 1}": f"ply is a number from 0 (the deal as dealt) to {deals[0].plies}",
           "?deal=1&ply=-1": "not '-1'"}
    for query, words in bad.items():
        response = client.get(f"/matches/{match.pk}/replay/{query}")
        assert response.status_code == 400, query
        assert words in html.unescape(response.content.decode()), query
    assert client.get(f"/matches/{match.pk}/replay/?deal=1&ply={deals[0].plies}").status_code == 200


@pytest.mark.django_db
def test_a_forfeited_match_replays_up_to_the_forfeit(client, house_bots):
    """A match a seat forfeited is finished: its cut-off last deal replays up to the last stored ply."""
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=5)
    match_advance(match_id=match.pk, ply_budget=9)
    from games.services import _finish  # noqa: PLC2415 (the service that ends a match by a forfeit)

    state = match_state(match=match)
    _finish(Match.objects.get(pk=match.pk), state, forfeited=1)
    response = client.get(f"/matches/{match.pk}/replay/")
    assert response.status_code == 200, response.content[-500:]
    frames = _frames(response)
    assert frames["result"]["forfeited"] == 1 and frames["deals"][-1]["result"] is None
    assert sum(len(d["plies"]) for d in frames["deals"]) == Match.objects.get(pk=match.pk).ply_count
