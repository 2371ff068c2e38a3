"""The watch page (issue 13): ``/matches/<id>/watch/`` for a running match carries only what the public view shows
(the page's script follows the events stream); a match that is over sends the watcher to its replay at the last ply
when the replay is public, else to the match page. Never a hand, a seed or a deal code of a running match."""

import re

import pytest
from django.urls import reverse

from match_secrets import match_secrets
from eights_engine import Ruleset
from games.models import Deal, Match
from games.services import match_advance, match_create


@pytest.mark.django_db
def test_a_running_match_page_shows_no_card_seed_or_code_and_carries_its_endpoints(client, house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=4242)
    page = client.get(reverse("match-watch", args=[match.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    data = re.search(r'<script id="watch-data" type="application/json">(.*?)</script>', body, flags=re.S).group(1)
    assert f'"events_url": "/api/matches/{match.pk}/events/"' in data
    assert f'"public_url": "/api/matches/{match.pk}/public/"' in data
    assert Deal.objects.get(match=match, number=1).key
    for secret in match_secrets(match):
        assert secret not in body
    assert "Rando" in body and "Eager" in body
    assert not re.search(r"\sstyle=", body)
    assert not re.search(r'<script(?![^>]*\b(?:src=|type="application/json"))', body)


@pytest.mark.django_db
def test_a_finished_match_sends_the_watcher_to_its_replay_at_the_last_ply(client, house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    assert match_advance(match_id=match.pk) == "finished"
    last = Deal.objects.filter(match=match).order_by("-number").first()
    page = client.get(reverse("match-watch", args=[match.pk]))
    assert page.status_code == 302
    assert page["Location"] == reverse("match-replay", args=[match.pk]) + f"?deal={last.number}&ply={last.plies}"
    assert client.get(page["Location"]).status_code == 200  # the replay opens there


@pytest.mark.django_db
def test_an_aborted_match_or_one_whose_duplicate_set_still_runs_sends_the_watcher_to_the_match_page(client, house_bots):
    aborted = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    Match.objects.filter(pk=aborted.pk).update(status=Match.Status.ABORTED)
    page = client.get(reverse("match-watch", args=[aborted.pk]))
    assert page.status_code == 302 and page["Location"] == reverse("match-detail", args=[aborted.pk])

    first = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), seed=77, reveal_group="dup-1")
    mirror = match_create(players=house_bots[1::-1], ruleset=Ruleset.preset("pagat"), seed=77, reveal_group="dup-1",
                          after=first)
    for running in (first, mirror):  # a duplicate set's match is watched as a replay once the whole set is over
        page = client.get(reverse("match-watch", args=[running.pk]))
        assert page.status_code == 403 and "once every match of the set is finished" in page.content.decode()
        assert "watch-data" not in page.content.decode()
    assert match_advance(match_id=first.pk) == "finished"
    page = client.get(reverse("match-watch", args=[first.pk]))  # its mirror (the same cards) runs: no replay yet
    assert page.status_code == 302 and page["Location"] == reverse("match-detail", args=[first.pk])


@pytest.mark.django_db
def test_an_unknown_match_is_404(client, db):
    assert client.get(reverse("match-watch", args=[999999])).status_code == 404


@pytest.mark.django_db
def test_the_events_stream_opens_for_a_browsers_event_source_accept_header(client, house_bots):
    """A browser's EventSource asks with ``Accept: text/event-stream`` (DRF's negotiation answered 406 before)."""
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"))
    match_advance(match_id=match.pk)
    response = client.get(f"/api/matches/{match.pk}/events/?last_event_id=0", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    body = b"".join(response.streaming_content).decode()
    assert "event: ply" in body and "event: end" in body
    refused = client.get("/api/matches/999999/events/", HTTP_ACCEPT="text/event-stream")
    assert refused.status_code == 404 and refused.json()["error"]


def _declared(history: list[dict], top_card) -> bool:
    """table.js applyPublic's reading of "the active suit was declared" from the public history."""
    last = next((e for e in reversed(history) if e["type"] in ("play", "declare")), None)  # a draw keeps the suit
    return bool(last) and ((last["type"] == "play" and last.get("card") == top_card and bool(last.get("suit")))
                           or last["type"] == "declare")


@pytest.mark.django_db
@pytest.mark.parametrize("preset", ["pagat", "web-table", "crazy-eights", "eights-classic", "points-game",
                                    "russian-36", "no-draw"])
def test_the_public_view_carries_every_field_the_table_draws_from_it_between_its_turns(house_bots, preset):
    """The table draws an opponent's ply from the event's public view, without fetching its seat view
    (static/js/table.js ``applyPublic``): that view's public fields must equal the seat view's, ply after ply."""
    from games import live
    from games.selectors import match_snapshot

    ruleset = Ruleset.preset(preset)
    seats = 3 if ruleset.seats_min <= 3 <= ruleset.seats_max else ruleset.seats_min
    match = match_create(players=house_bots[:seats], ruleset=ruleset, seed=5)
    for _ in range(120):
        public = live.match_public_view(match=match)
        state = match_snapshot(match=match).state
        if public["status"] != "running":
            break
        for seat in range(seats):
            view = state.view(seat)
            history = [entry for p in public["history"] for entry in p["log"]]
            assert view["history"] == history
            assert (view["hand_counts"], view["top_card"], view["active_suit"], view["stock_count"],
                    view["discard_count"], view["totals"], view["to_play"]) == (
                public["hand_counts"], public["top_card"], public["suit_to_follow"], public["stock_size"],
                public["discard_size"], public["totals"], public["to_play"])
            assert view["declared"] == _declared(history, public["top_card"])
        match_advance(match_id=match.pk, ply_budget=1)
