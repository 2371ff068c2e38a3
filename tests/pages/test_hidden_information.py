"""Nobody sees what they should not: walk every page and endpoint of a running match as its person, as a stranger,
anonymously and as the owner of the bot the person plays, and check that no hidden card (another hand, the stock)
and no seed or deal code appears."""

import re
from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from django.utils import timezone

from bots_api.models import Bot
from bots_api.services import bot_register
from match_secrets import match_secrets
from eights_engine import Ruleset
from eights_engine.cards import card_code
from games.models import Match
from games.selectors import match_state
from games.services import match_advance, match_create, player_for_user

from bot_servers import BotServer
from run_cache import clear_this_runs_cache
from personas import press_deal, table_of


def _card_tokens(body: str) -> set[str]:
    """Every card code standing alone in ``body``. A percent-escape is not a card: the match list's cursor links
    end in ``%3D`` (a base64 "=", URL-encoded), which would read as the three of diamonds."""
    return set(re.findall(r"(?<![A-Za-z0-9%])[A2-9TJQK][CDHS](?![A-Za-z0-9])", body))


def _match_list_urls(match, players: list[str], ladder: str | None) -> list[str]:
    """The match list (issue 11) with each of its filters, as a page and over the API, each including ``match``."""
    day = match.created_at.date().isoformat()
    queries = ["", "status=running", "preset=pagat", "order=oldest", f"from={day}", f"to={day}",
               f"from={day}&to={day}&status=running", "player=me", "page_size=1",
               *(f"player={quote(p)}" for p in players), *([f"ladder={ladder}"] if ladder else [])]
    return [f"{root}?{q}" for q in queries for root in ("/matches/", "/api/matches/")]


@pytest.fixture
def bot_server():
    server = BotServer("good")
    yield server
    server.stop()


def _tournament_of(match):
    """A running Swiss tournament whose round 1 is ``match`` (its two players registered)."""
    from tournaments.models import Tournament, TournamentEntry, TournamentMatch, TournamentRound
    from tournaments.tournament_services import tournament_create

    tournament = tournament_create(name="Hidden cup", format="swiss", rounds=2)
    for i, seat in enumerate(match.seats.order_by("index"), start=1):
        TournamentEntry.objects.create(tournament=tournament, player=seat.player, seed=i)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING, started_at=timezone.now())
    TournamentMatch.objects.create(round=TournamentRound.objects.create(tournament=tournament, number=1), match=match,
                                   pod=0)
    tournament.refresh_from_db()
    return tournament


@pytest.mark.django_db
@pytest.mark.parametrize("opponent", ["house", "bot"])
def test_no_response_of_a_running_match_shows_a_hidden_card(house_bots, ladder, bot_server, opponent, caplog):
    caplog.set_level("DEBUG")
    person = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    stranger = get_user_model().objects.create_user("eve", password="pw-eve-12345")
    owner = get_user_model().objects.create_user("ada", password="pw-ada-12345")
    bot, _secret = bot_register(owner=owner, name="Probe", endpoint_url=bot_server.url)
    Bot.objects.filter(pk=bot.pk).update(secret="s3cret", verified_at=timezone.now())
    other = bot.player if opponent == "bot" else house_bots[3]
    match = match_create(players=[player_for_user(user=person), other], ruleset=Ruleset.preset("pagat"),
                         seed=31337)
    match_advance(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    tournament = _tournament_of(match)  # the match is a running tournament match: its pages are walked too
    state = match_state(match=match)
    deal = state.deal
    public = {h["card"] for h in deal.history if "card" in h} | {deal.top_card}
    bot_hand = set(deal.hand(1)) - public
    stock = {card_code(c) for c in deal.stock} - public
    own = set(deal.hand(0))
    secrets_ = match_secrets(match)  # the secret and keys that open the commitments (docs/FAIRNESS.md)
    assert match.secret in secrets_ and all(d.key and d.commitment for d in match.deals.all())
    urls = ["/", "/matches/", f"/matches/{match.pk}/", f"/matches/{match.pk}/play/", "/ladders/test/",
            f"/players/{other.name}/", "/players/ruth/", f"/api/matches/{match.pk}/seats/0/",
            f"/api/matches/{match.pk}/seats/1/", f"/api/matches/{match.pk}/deals/1/", "/api/players/ruth/",
            f"/api/matches/{match.pk}/record/", f"/api/matches/{match.pk}/record/?download=1",
            f"/matches/{match.pk}/replay/", f"/matches/{match.pk}/replay/?deal=1&ply=1",
            f"/api/players/{other.name}/", "/api/schema/", "/bots/", f"/bots/{bot.pk}/", "/api/bots/",
            f"/api/bots/{bot.pk}/", f"/api/bots/{bot.pk}/matches/", f"/api/bots/{bot.pk}/health/",
            *_match_list_urls(match, ["ruth", other.name, str(other.pk)], ladder="test"),
            "/tournaments/", f"/tournaments/{tournament.pk}/", f"/tournaments/{tournament.pk}/rounds/1/",
            "/api/tournaments/", f"/api/tournaments/{tournament.pk}/",
            f"/api/matches/{match.pk}/", "/api/ladders/", "/api/ladders/test/", f"/api/players/{other.pk}/"]
    secrets_.append(str(tournament.seed))
    clients = {"person": Client(), "stranger": Client(), "anonymous": Client(), "owner": Client()}
    clients["person"].force_login(person)
    clients["stranger"].force_login(stranger)
    clients["owner"].force_login(owner)  # owns the bot in seat 1 (when it plays) but sits nowhere
    for who, client in clients.items():
        for url in urls:
            clear_this_runs_cache()  # the walk is many API calls per client: the throttles are not under test here
            body = client.get(url).content.decode(errors="replace")
            if url.startswith(("/matches/?status=running", "/api/matches/?status=running")):
                assert f"/matches/{match.pk}/" in body, f"the match list does not show the running match to {who}"
            tokens = _card_tokens(body)
            if url == "/api/schema/":
                tokens = set()  # a static document: its examples ("8H") are not this deal's cards
            leaked = (tokens & (bot_hand | stock)) - (own if who == "person" else set())
            assert not leaked, f"{who} sees {sorted(leaked)} at {url}"
            if who != "person":
                assert not (tokens & own - public), f"{who} sees the person's hand at {url}"
            for secret in secrets_:
                assert secret not in body, f"{who} sees a seed, salt or deal code at {url}"
    # the commitment is safe to show, and the person's seat view shows the current deal's
    current = match.deals.get(number=state.deal_number)
    seen = clients["person"].get(f"/api/matches/{match.pk}/seats/0/").json()
    assert (seen["deal_number"], seen["commitment"]) == (current.number, current.commitment)
    if opponent == "bot":  # the person moves, the bot is asked: its request carries the commitment, never the salt
        moved = clients["person"].post(f"/api/matches/{match.pk}/seats/0/actions/", {
            "ply": seen["ply"], "action": seen["legal_actions"][0]}, content_type="application/json")
        assert moved.status_code == 200, moved.content
        match_advance(match_id=match.pk)
        turns = bot_server.bodies("turn")
        assert turns and {t["commitment"] for t in turns} <= {d.commitment for d in match.deals.all()}
    hidden = match_secrets(match)  # the secret, and each deal's key and code
    for _headers, raw in bot_server.requests:
        assert not any(h in raw.decode(errors="replace") for h in hidden), "a bot's request holds a secret or key"
    # nor does a secret or key go into a log line
    assert not any(h in record.getMessage() for record in caplog.records for h in hidden)


@pytest.mark.django_db
def test_no_response_of_a_running_guest_match_shows_a_hidden_card(house_bots, ladder):
    """The same walk for a guest's seat (issue 10): the guest's browser sees its own hand and nothing else; another
    guest, a person, a browser with a forged session cookie and an anonymous one see no hand, no stock, no seed."""
    from games.models import Seat

    def deal(client: Client) -> int:
        return table_of(press_deal(client, preset="pagat", seats="3"))

    clients = {"guest": Client(), "other guest": Client(), "stranger": Client(), "anonymous": Client(),
               "forged": Client()}
    match = Match.objects.get(pk=deal(clients["guest"]))
    deal(clients["other guest"])
    clients["stranger"].force_login(get_user_model().objects.create_user("eve", password="pw-eve-12345"))
    clients["forged"].cookies["sessionid"] = "x" * 32
    match_advance(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    guest = Seat.objects.get(match=match, index=0).player
    state = match_state(match=match)
    deal_ = state.deal
    public = {h["card"] for h in deal_.history if "card" in h} | {deal_.top_card}
    bots = (set(deal_.hand(1)) | set(deal_.hand(2))) - public
    stock = {card_code(c) for c in deal_.stock} - public
    own = set(deal_.hand(0))
    secrets_ = match_secrets(match)  # the secret and keys that open the commitments (docs/FAIRNESS.md)
    assert match.secret in secrets_ and all(d.key and d.commitment for d in match.deals.all())
    urls = ["/", "/matches/", f"/matches/{match.pk}/", f"/matches/{match.pk}/play/", f"/players/{guest.name}/",
            *(f"/api/matches/{match.pk}/seats/{s}/" for s in range(3)), f"/api/matches/{match.pk}/deals/1/",
            f"/api/players/{guest.name}/", f"/api/matches/{match.pk}/record/", f"/matches/{match.pk}/replay/",
            *_match_list_urls(match, [guest.name, str(guest.pk)], ladder=None)]
    for who, client in clients.items():
        for url in urls:
            clear_this_runs_cache()  # the walk is many API calls per client: the throttles are not under test here
            body = client.get(url).content.decode(errors="replace")
            if url.startswith(("/matches/?status=running", "/api/matches/?status=running")):
                assert f"/matches/{match.pk}/" in body, f"the match list does not show the running match to {who}"
            tokens = _card_tokens(body)
            leaked = (tokens & (bots | stock)) - (own if who == "guest" else set())
            assert not leaked, f"{who} sees {sorted(leaked)} at {url}"
            if who != "guest":
                assert not (tokens & own - public), f"{who} sees the guest's hand at {url}"
            for secret in secrets_:
                assert secret not in body, f"{who} sees a seed, salt or deal code at {url}"
    # the commitment is safe to show, and the guest's seat view shows the current deal's
    current = match.deals.get(number=state.deal_number)
    seen = clients["guest"].get(f"/api/matches/{match.pk}/seats/0/").json()
    assert (seen["deal_number"], seen["commitment"]) == (current.number, current.commitment)
    assert clients["guest"].get(f"/api/matches/{match.pk}/seats/0/").status_code == 200
    for who in ("other guest", "stranger"):
        assert clients[who].get(f"/api/matches/{match.pk}/seats/0/").status_code == 403
    for who in ("anonymous", "forged"):
        assert clients[who].get(f"/api/matches/{match.pk}/seats/0/").status_code == 401


@pytest.mark.django_db
def test_a_finished_duplicate_match_shows_nothing_of_its_running_mirror(house_bots, tmp_path):
    """Duplicate play (issue 12): the two matches of a mirror are dealt from one seed. While one runs, the finished one
    is as secret as the running one: no seed, deal code, hand or stock card of the running deal appears anywhere
    (pages, deal code pages, the record API, deal score cards, the set page, the NDJSON export), and "Play this deal"
    refuses the code. Once both are over, all of it is public."""
    from django.core.management import call_command
    from run_cache import clear_this_runs_cache

    from games.models import Deal
    from tournaments.models import DuplicateSet
    from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches

    ladder = ladder_create(name="Dup", slug="dup", preset="pagat", seats_per_match=2, duplicate=True)
    for bot in house_bots[2:]:
        ladder_entry_create(ladder=ladder, player=bot)
    finished, running = ladder_schedule_matches(ladder=ladder)
    dup = DuplicateSet.objects.get()
    assert match_advance(match_id=finished.pk) == "finished"
    finished_deals = finished.deals.count()
    # play the mirror on into a deal that the finished match also played, and stop in the middle of it
    while True:
        match_advance(match_id=running.pk, ply_budget=7)
        running.refresh_from_db()
        assert running.status == Match.Status.RUNNING, "the mirror ended before the test could look at it"
        state = match_state(match=running)
        if state.deal.history and state.deal_number <= finished_deals:
            break
    deal = state.deal
    public = {h["card"] for h in deal.history if "card" in h} | {deal.top_card}
    hidden = (set(deal.hand(0)) | set(deal.hand(1)) | {card_code(c) for c in deal.stock}) - public
    codes = {d.code for d in Deal.objects.filter(match__in=[finished, running])}
    secrets_ = [str(running.seed), *codes, *(str(d.seed) for d in Deal.objects.filter(match__in=[finished, running]))]
    person = get_user_model().objects.create_user("ruth", password="pw-ruth-12345")
    urls = ["/", "/matches/", "/matches/?status=finished", "/ladders/dup/", f"/ladders/dup/duplicates/{dup.pk}/",
            *(f"/matches/{m.pk}/" for m in (finished, running)),
            *(f"/api/matches/{m.pk}/record/" for m in (finished, running)),
            f"/api/matches/{finished.pk}/record/?download=1",
            *(f"/api/matches/{m.pk}/deals/{n}/" for m in (finished, running) for n in range(1, finished_deals + 1)),
            *(f"/deals/{code}/" for code in codes), *(f"/players/{b.name}/" for b in house_bots[2:]),
            *(f"/api/players/{b.name}/" for b in house_bots[2:]),
            *(f"/api/matches/{m.pk}/" for m in (finished, running)), "/api/ladders/dup/"]
    clients = {"anonymous": Client(), "person": Client()}
    clients["person"].force_login(person)
    for who, client in clients.items():
        for url in urls:
            clear_this_runs_cache()  # a long match makes the walk longer than the throttles allow: not under test
            response = client.get(url)
            body = response.content.decode(errors="replace")
            tokens = set(re.findall(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])", body))
            assert not tokens & hidden, f"{who} sees {sorted(tokens & hidden)} at {url}"
            for secret in secrets_:
                assert secret not in body, f"{who} sees a seed or deal code at {url}"
            assert response.status_code != 429, f"throttled at {url}: the walk saw nothing"
        clear_this_runs_cache()  # the API's per-client limits: each client's walk starts afresh
    assert clients["anonymous"].get(f"/api/matches/{finished.pk}/record/").status_code == 403
    assert clients["anonymous"].get(f"/api/matches/{finished.pk}/deals/1/").status_code == 403
    assert clients["anonymous"].get(f"/deals/{next(iter(codes))}/").status_code == 404
    code = Deal.objects.get(match=finished, number=1).code
    replayed = Match.objects.count()
    clients["person"].post(f"/deals/{code}/play/", {"seat": "0"})
    assert Match.objects.count() == replayed  # "Play this deal" refuses a secret code
    export = tmp_path / "export.ndjson"
    call_command("export_matches", str(export))
    assert all(secret not in export.read_text() for secret in secrets_)

    assert match_advance(match_id=running.pk) == "finished"  # the whole set is over: all of it is public
    assert clients["anonymous"].get(f"/api/matches/{finished.pk}/record/").status_code == 200
    assert clients["anonymous"].get(f"/api/matches/{finished.pk}/deals/1/").status_code == 200
    assert code in clients["anonymous"].get(f"/matches/{finished.pk}/").content.decode()
    assert code in clients["anonymous"].get(f"/ladders/dup/duplicates/{dup.pk}/").content.decode()
    assert clients["anonymous"].get(f"/deals/{code}/").status_code == 200
    call_command("export_matches", str(export))
    assert len(export.read_text().splitlines()) == 2
