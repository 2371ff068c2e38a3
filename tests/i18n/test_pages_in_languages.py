"""The translated pages hold no English but names and code (issue 24, 1): a finished casual match's page (standings,
chart, deals, hands, fair deals), the home page, the rules index, log-in, sign-up, the 403 and 404 pages, each in
Russian and in Bulgarian, looked at whole (every text node and every aria-label and title)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from eights_engine import Ruleset
from games.models import Match, Player
from games.services import match_advance, match_create

pytestmark = pytest.mark.django_db

#: reads the same in every language
SAME = {"Eights", "Ladder", "API", "SHA", "JSON", "openskill", "Plackett", "Luce", "docs", "FAIRNESS", "ANALYSIS", "expert", "MATCH", "RECORD",
        "English",  # the language switcher names each language in itself
        "me",  # the match list's player=me, typed as it is
        "JavaScript", "Space", "Home", "End"}  # a language's and keys' names
SAME |= {
        "md"}


def english_left(page: str, names: set[str]) -> list[str]:
    """Latin words left on ``page`` (HTML) outside <code>, <script>, <style>, URLs and ``names``."""
    body = page.split("<body>", 1)[1]
    body = re.sub(r"<(code|kbd|script|style)\b.*?</\1>", " ", body, flags=re.S)
    labels = " ".join(re.findall(r'(?:aria-label|title|alt|placeholder)="([^"]*)"', body))
    text = re.sub(r"<[^>]+>", " ", body) + " " + labels
    text = re.sub(r"&[a-z]+;|&#\d+;", " ", text)
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"\b[0-9a-f]{16,}\b|\b[A-Z0-9]{12}\b", " ", text)  # secrets, keys, codes
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in SAME]


@pytest.fixture
def finished_match(house_bots):
    match = match_create(players=[house_bots[0], house_bots[1]], ruleset=Ruleset.preset("web-table", target=60))
    assert match_advance(match_id=match.pk) == "finished"
    return Match.objects.get(pk=match.pk)


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_a_finished_match_page_reads_in_the_language(finished_match, language):
    page = Client().get(f"/matches/{finished_match.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    names = set(Player.objects.values_list("name", flat=True)) | {"web-table"}
    assert 'id="hands"' in page and 'id="fairness-title"' in page  # the public parts are there
    left = english_left(page, names)
    assert not left, f"English left on the match page in {language}: {left}"


@pytest.mark.parametrize("language", ["ru", "bg"])
@pytest.mark.parametrize("path", ["/", "/rules/", "/accounts/login/", "/accounts/signup/", "/matches/{match}/play/",
                                  "/no/such/page/", "/tables/", "/tables/NOSUCHTABLE1/", "/matches/",
                                  "/matches/?status=aborted", "/matches/{match}/watch/"])
def test_the_translated_pages_read_in_the_language(house_bots, finished_match, language, path):
    response = Client().get(path.format(match=finished_match.pk), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code in (200, 302, 403, 404), response.status_code
    if response.status_code == 302:  # a finished match's watch page goes to its replay
        response = Client().get(response["Location"], HTTP_ACCEPT_LANGUAGE=language)
        assert "/replay/" in response.request["PATH_INFO"]
    names = set(Player.objects.values_list("name", flat=True)) | {"web-table", "pagat"}
    from eights_engine import PRESETS

    from eights_engine.strategies import STRATEGIES

    names |= set(PRESETS) | set(STRATEGIES)  # preset and house strategy names read the same in every language
    page = response.content.decode()
    left = english_left(page, names)
    assert not left, f"English left on {path} in {language}: {left}"


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_a_tables_invite_page_reads_in_the_language(house_bots, language):
    host = Client()
    host.get("/tables/")
    made = host.post("/tables/new/", {"preset": "web-table", "seats": "3", "seat_1": "open", "seat_2": "house:eager",
                                      "csrfmiddlewaretoken": host.cookies["csrftoken"].value})
    page = host.get(made["Location"], HTTP_ACCEPT_LANGUAGE=language).content.decode()
    names = set(Player.objects.values_list("name", flat=True)) | {"web-table", "eager"}
    left = english_left(page, names)
    assert not left, f"English left on a table's invite page in {language}: {left}"


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_a_ladder_page_reads_in_the_language(ladder, language):
    from tournaments.services import ladder_schedule_matches

    for match in ladder_schedule_matches(ladder=ladder, limit=2):  # rated matches: the board, trust and recent rows
        match_advance(match_id=match.pk)
    page = Client().get(f"/ladders/{ladder.slug}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    names = set(Player.objects.values_list("name", flat=True)) | {ladder.name, "pagat"}
    left = english_left(page, names)
    assert not left, f"English left on a ladder's page in {language}: {left}"


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_players_pages_read_in_the_language(ladder, language):
    from tournaments.models import LadderEntry
    from tournaments.services import ladder_schedule_matches

    for match in ladder_schedule_matches(ladder=ladder, limit=2):
        match_advance(match_id=match.pk)
    entry = LadderEntry.objects.filter(ladder=ladder, matches_played__gt=0).select_related("player").first()
    a, b = Player.objects.filter(seats__match__ladder_match__ladder=ladder).distinct()[:2]
    names = set(Player.objects.values_list("name", flat=True)) | {ladder.name, "pagat"}
    from eights_engine.strategies import STRATEGIES

    names |= set(STRATEGIES) | {ladder.slug}  # head to head names a ladder by its slug
    for path in (f"/players/{entry.player.name}/", f"/ladders/{ladder.slug}/entries/{entry.pk}/",
                 f"/players/{a.name}/vs/{b.name}/"):
        response = Client().get(path, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200, path
        left = english_left(response.content.decode(), names)
        assert not left, f"English left on {path} in {language}: {left}"


@pytest.mark.parametrize("language", ["ru", "bg"])
def test_tournament_pages_read_in_the_language(house_bots, language):
    from tournaments import tournament_services as ts

    tournament = ts.tournament_create(name="Winter cup", format="swiss", rounds=2, preset="pagat")
    for bot in house_bots:
        ts.tournament_register(tournament=tournament, player=bot)
    ts.tournament_start(tournament=tournament)
    names = set(Player.objects.values_list("name", flat=True)) | {"Winter cup", "pagat"}
    from eights_engine.strategies import STRATEGIES

    names |= set(STRATEGIES)
    for path in ("/tournaments/", f"/tournaments/{tournament.pk}/", f"/tournaments/{tournament.pk}/rounds/1/"):
        response = Client().get(path, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200, path
        left = english_left(response.content.decode(), names)
        assert not left, f"English left on {path} in {language}: {left}"
