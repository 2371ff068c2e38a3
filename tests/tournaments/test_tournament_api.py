"""Tournament API: create, register (yourself, your bot), withdraw, start, read; and the bad input it refuses."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from bots_api.models import Bot
from games.models import Match
from games.services import match_advance, player_for_user
from tournaments.models import Tournament, TournamentEntry
from personas import bot_of


@pytest.fixture
def people(db):
    User = get_user_model()
    return {name: User.objects.create_user(name, password=f"pw-{name}-12345") for name in ("olga", "pete", "sam")}


def client_for(user=None):
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


def _create(user, **body):
    body = {"name": "Spring cup", "format": "round_robin", "target": 20, **body}
    return client_for(user).post("/api/tournaments/", body, format="json")


@pytest.mark.django_db
def test_a_newcomer_creates_a_round_robin_registers_two_bots_and_it_finishes_with_standings(people, house_bots):
    olga, pete = people["olga"], people["pete"]
    made = _create(olga)
    assert made.status_code == 201, made.content
    tid = made.json()["id"]
    a, b = bot_of(olga, None, "OlgaBot", active=True), bot_of(pete, None, "PeteBot", active=True)
    assert client_for(olga).post(f"/api/tournaments/{tid}/entries/", {"bot_id": a.pk}, format="json").status_code == 201
    assert client_for(pete).post(f"/api/tournaments/{tid}/entries/", {"bot_id": b.pk}, format="json").status_code == 201
    from tournaments.tournament_services import tournament_register
    tournament_register(tournament=Tournament.objects.get(pk=tid), player=house_bots[3])
    assert client_for(pete).post(f"/api/tournaments/{tid}/start/").status_code == 403  # not the organiser
    started = client_for(olga).post(f"/api/tournaments/{tid}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"
    # the bots' endpoints are down: their turns fault and they forfeit; the tournament still ends
    for _ in range(10):
        for m in Match.objects.filter(tournament_match__round__tournament_id=tid, status=Match.Status.RUNNING):
            match_advance(match_id=m.pk)
        from tournaments.tournament_services import tournament_advance
        tournament_advance(tournament_id=tid)
    detail = client_for().get(f"/api/tournaments/{tid}/").json()
    assert detail["status"] == "finished"
    assert len(detail["standings"]) == 3 and detail["standings"][0]["rank"] == 1
    assert {s["player"]["label"] for s in detail["standings"]} == {"bot", "house bot"}
    matches = [m for r in detail["rounds_played"] for m in r["matches"]]
    assert len(matches) == 3
    assert all(m["replay_url"] == f"/matches/{m['match_id']}/replay/" and m["seats"][0]["place"] for m in matches)
    listed = client_for().get("/api/tournaments/?status=finished").json()
    assert [t["id"] for t in listed["results"]] == [tid]


@pytest.mark.django_db
def test_registering_twice_after_the_start_or_a_suspended_bot_is_refused_with_a_reason(people, house_bots):
    olga, pete, sam = people["olga"], people["pete"], people["sam"]
    tid = _create(olga, format="swiss", rounds=2).json()["id"]
    url = f"/api/tournaments/{tid}/entries/"
    misspelt = client_for(pete).post(url, {"botid": 3}, format="json")  # refused, never read as "enter yourself"
    assert misspelt.status_code == 400 and misspelt.json()["error"] == "unknown_field" and "bot_id" in \
        misspelt.json()["detail"]
    assert client_for(pete).post(url, {}, format="json").status_code == 201
    twice = client_for(pete).post(url, {}, format="json")
    assert twice.status_code == 409 and twice.json()["error"] == "already_registered"
    bad = bot_of(sam, None, "Naughty", active=True)
    Bot.objects.filter(pk=bad.pk).update(suspended_reason="3 failed matches in a row")
    bad.player.is_active = False
    bad.player.save(update_fields=["is_active"])
    refused = client_for(sam).post(url, {"bot_id": bad.pk}, format="json")
    assert refused.status_code == 409 and refused.json()["error"] == "suspended"
    assert "3 failed matches in a row" in refused.json()["detail"]
    other = client_for(pete).post(url, {"bot_id": bad.pk}, format="json")
    assert other.status_code == 404  # another owner's bot looks missing
    assert client_for().post(url, {}, format="json").status_code == 401
    few = client_for(olga).post(f"/api/tournaments/{tid}/start/")
    assert few.status_code == 409 and few.json()["error"] == "too_few_entrants"
    assert "needs at least 2" in few.json()["detail"]
    assert client_for(sam).post(url, {}, format="json").status_code == 201
    assert client_for(olga).post(f"/api/tournaments/{tid}/start/").status_code == 200
    late = client_for(olga).post(url, {}, format="json")
    assert late.status_code == 409 and late.json()["error"] == "registration_closed"


@pytest.mark.django_db
def test_one_owners_two_bots_are_refused_where_they_would_meet_and_kept_apart_in_swiss(people, house_bots):
    olga = people["olga"]
    a, b = bot_of(olga, None, "One", active=True), bot_of(olga, None, "Two", active=True)
    tid = _create(olga).json()["id"]
    url = f"/api/tournaments/{tid}/entries/"
    assert client_for(olga).post(url, {"bot_id": a.pk}, format="json").status_code == 201
    same = client_for(olga).post(url, {"bot_id": b.pk}, format="json")
    assert same.status_code == 409 and same.json()["error"] == "same_owner" and "Swiss" in same.json()["detail"]
    swiss = _create(olga, name="Swiss cup", format="swiss", rounds=1).json()["id"]
    for bot in (a, b):
        assert client_for(olga).post(f"/api/tournaments/{swiss}/entries/", {"bot_id": bot.pk},
                                     format="json").status_code == 201
    alone = client_for(olga).post(f"/api/tournaments/{swiss}/start/")  # only one owner: no pod possible
    assert alone.status_code == 409 and alone.json()["error"] == "same_owner"
    from tournaments.tournament_services import tournament_register
    for p in house_bots[:2]:
        tournament_register(tournament=Tournament.objects.get(pk=swiss), player=p)
    assert client_for(olga).post(f"/api/tournaments/{swiss}/start/").status_code == 200
    for m in Match.objects.filter(tournament_match__round__tournament_id=swiss):
        assert {s.player_id for s in m.seats.all()} != {a.player_id, b.player_id}


@pytest.mark.django_db
@pytest.mark.parametrize("body,code,words", [
    ({"format": "league"}, "invalid", "format"),
    ({"format": "knockout", "seats_per_match": 3}, "bad_settings", "knockout plays 2 seats"),
    ({"format": "swiss", "preset": "pagat", "seats_per_match": 8, "rounds": 2}, None, None),
    ({"format": "round_robin", "rounds": 4}, "bad_settings", "leave it out"),
    ({"format": "swiss", "matches_per_pairing": 2}, "bad_settings", "round robin only"),
    ({"format": "swiss", "seats_per_match": 9}, "invalid", "seats_per_match"),
    ({"format": "swiss", "name": "日本カップ"}, None, None),  # a name without ASCII letters gets a plain slug
    ({"format": "swiss", "name": "   "}, "invalid", "name"),
])
def test_bad_settings_answer_400_saying_what_is_allowed(people, body, code, words):
    answer = _create(people["olga"], **body)
    if code is None:
        assert answer.status_code == 201
        return
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"] == code and words in str(answer.json()["detail"])


@pytest.mark.django_db
def test_withdraw_before_the_start_and_people_who_want_no_bots(people, house_bots):
    olga, pete = people["olga"], people["pete"]
    tid = _create(olga, format="swiss").json()["id"]
    url = f"/api/tournaments/{tid}/entries/"
    assert client_for(pete).post(url, {}, format="json").status_code == 201
    me = player_for_user(user=pete)
    assert client_for(olga).delete(f"{url}{me.pk}/").status_code == 204  # the organiser may
    assert client_for(pete).post(url, {}, format="json").status_code == 201
    assert client_for(people["sam"]).delete(f"{url}{me.pk}/").status_code == 403
    assert client_for(pete).delete(f"{url}{me.pk}/").status_code == 204
    assert not TournamentEntry.objects.filter(tournament_id=tid).exists()
    gone = client_for(pete).delete(f"{url}{me.pk}/")
    assert gone.status_code == 404 and gone.json()["error"] == "not_registered"
    me.match_with = "people"
    me.save(update_fields=["match_with"])
    refused = client_for(pete).post(url, {}, format="json")
    assert refused.status_code == 409 and refused.json()["error"] == "match_with"
    bots_only = _create(olga, name="Bots", entrants="bots").json()["id"]
    no = client_for(olga).post(f"/api/tournaments/{bots_only}/entries/", {}, format="json")
    assert no.status_code == 409 and no.json()["error"] == "not_admitted"
    assert client_for().get("/api/tournaments/999999/").json()["error"] == "not_found"


@pytest.mark.django_db
def test_the_pages_list_the_tournament_its_standings_bracket_and_round_links(client, people, house_bots):
    from tournaments.tournament_services import tournament_create, tournament_register, tournament_start

    t = tournament_create(name="Cup <b>", format="knockout", target=20)
    for p in house_bots:
        tournament_register(tournament=t, player=p)
    tournament_start(tournament=t)
    first = Match.objects.filter(tournament_match__round__tournament=t).first()
    assert client.get("/").content.decode().count('href="/tournaments/"') >= 1
    page = client.get("/tournaments/").content.decode()
    assert "Cup &lt;b&gt;" in page and f'href="/tournaments/{t.pk}/"' in page
    detail = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "Bracket" in detail and "house bot" in detail and f"/tournaments/{t.pk}/rounds/1/" in detail
    rnd = client.get(f"/tournaments/{t.pk}/rounds/1/").content.decode()
    assert f'href="/matches/{first.pk}/"' in rnd and f'href="/matches/{first.pk}/watch/"' in rnd  # running: watch it
    assert client.get(f"/tournaments/{t.pk}/rounds/9/").status_code == 404


@pytest.mark.django_db
def test_an_organiser_creates_a_tournament_in_the_admin_and_bad_seats_are_refused(client):
    admin = get_user_model().objects.create_superuser("root", password="pw-root-12345")
    client.force_login(admin)
    form = {"name": "Admin cup", "slug": "admin-cup", "format": "swiss", "preset": "pagat", "ruleset": "",
            "seats_per_match": "2", "rounds": "3", "matches_per_pairing": "1", "target": "50",
            "turn_timeout_ms": "1000", "move_seconds": "60", "entrants": "both", "max_entrants": "64",
            "status": "registering", "note": "", "entries-TOTAL_FORMS": "0", "entries-INITIAL_FORMS": "0"}
    answer = client.post("/admin/tournaments/tournament/add/", form)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    t = Tournament.objects.get(slug="admin-cup")
    assert t.created_by == admin and t.ruleset["target"] == 50 and t.seed > 0
    refused = client.post("/admin/tournaments/tournament/add/", {**form, "slug": "ko", "format": "knockout",
                                                                   "seats_per_match": "3"})
    assert refused.status_code == 200 and "a knockout plays 2 seats per match" in refused.content.decode()


@pytest.mark.django_db
def test_people_enter_withdraw_and_the_organiser_starts_from_the_tournament_page(client, people, house_bots):
    from django.test import Client

    olga, pete = people["olga"], people["pete"]
    tid = _create(olga, format="swiss", rounds=1).json()["id"]
    bot = bot_of(pete, None, "PagePete", active=True)
    pete_c, olga_c = Client(), Client()
    pete_c.force_login(pete)
    olga_c.force_login(olga)
    page = pete_c.get(f"/tournaments/{tid}/").content.decode()
    assert f'<option value="{bot.pk}">my bot PagePete</option>' in page and "Start now" not in page
    assert pete_c.post(f"/tournaments/{tid}/enter/", {"bot_id": str(bot.pk)}).status_code == 302
    again = pete_c.post(f"/tournaments/{tid}/enter/", {"bot_id": str(bot.pk)}, follow=True).content.decode()
    assert "PagePete is registered already" in again
    assert pete_c.post(f"/tournaments/{tid}/enter/", {}).status_code == 302
    assert TournamentEntry.objects.filter(tournament_id=tid).count() == 2
    me = player_for_user(user=pete)
    pete_c.post(f"/tournaments/{tid}/withdraw/", {"player_id": str(me.pk)})
    assert TournamentEntry.objects.filter(tournament_id=tid).count() == 1
    assert "Start now" in olga_c.get(f"/tournaments/{tid}/").content.decode()
    few = olga_c.post(f"/tournaments/{tid}/start/", follow=True).content.decode()
    assert "needs at least 2 to start" in few
    olga_c.post(f"/tournaments/{tid}/enter/", {})
    olga_c.post(f"/tournaments/{tid}/start/")
    assert Tournament.objects.get(pk=tid).status == "running"
    assert client.post(f"/tournaments/{tid}/enter/").status_code == 302  # anonymous: to the login page


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["\u00b2", "\u2460", "\u0661", "9" * 30])
def test_enter_and_withdraw_forms_take_only_ascii_ids(people, value):
    """Superscript two and circled one pass str.isdigit() but not int() (a 500); the forms answer as for any id
    that names nothing."""
    from django.test import Client

    olga = people["olga"]
    tid = _create(olga).json()["id"]
    c = Client()
    c.force_login(olga)
    entered = c.post(f"/tournaments/{tid}/enter/", {"bot_id": value}, follow=True)
    assert entered.status_code == 200 and "Choose yourself or one of your bots" in entered.content.decode()
    left = c.post(f"/tournaments/{tid}/withdraw/", {"player_id": value}, follow=True)
    assert left.status_code == 200 and "Choose an entrant to withdraw" in left.content.decode()
    assert not TournamentEntry.objects.filter(tournament_id=tid).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["limit=" + "9" * 30, "limit=1000", "limit=-1&offset=" + "9" * 30, "limit=abc"])
def test_the_list_caps_limit_at_100(people, query):
    _create(people["olga"])
    answer = client_for().get(f"/api/tournaments/?{query}")
    assert answer.status_code == 200 and answer.json()["count"] == 1



@pytest.mark.django_db
def test_starting_an_oversized_round_robin_is_a_409_saying_what_fits(people):
    from games.services import player_house_create
    from tournaments.tournament_services import tournament_register

    tid = _create(people["olga"], seats_per_match=8, preset="pagat").json()["id"]
    for i in range(17):
        tournament_register(tournament=Tournament.objects.get(pk=tid), player=player_house_create(name=f"Big{i}",
                                                                                                  strategy="random"))
    answer = client_for(people["olga"]).post(f"/api/tournaments/{tid}/start/")
    assert answer.status_code == 409 and answer.json()["error"] == "too_many_matches"
    assert "at most 2000: with these settings at most 13 entrants fit" in answer.json()["detail"]
    assert Tournament.objects.get(pk=tid).status == "registering"


@pytest.mark.django_db
def test_the_enter_form_offers_only_what_would_be_taken_and_says_why_not(people):
    """The page's choices come from the same rules as the entry itself (tournament_services.entry_refusal): a person
    is not offered a duplicate tournament, a second bot of one owner is not offered a round robin, an entered bot is
    not offered again; each is listed with the reason instead."""
    from django.test import Client

    olga, pete = people["olga"], people["pete"]
    first, second = bot_of(pete, None, "FirstBot", active=True), bot_of(pete, None, "SecondBot", active=True)
    tid = _create(olga, format="round_robin", duplicate=True).json()["id"]
    c = Client()
    c.force_login(pete)
    page = c.get(f"/tournaments/{tid}/").content.decode()
    assert '<option value="">myself</option>' not in page
    assert "Myself cannot enter: a duplicate tournament deals every pod" in page
    assert f'<option value="{first.pk}">my bot FirstBot</option>' in page
    assert c.post(f"/tournaments/{tid}/enter/", {"bot_id": str(first.pk)}).status_code == 302
    page = c.get(f"/tournaments/{tid}/").content.decode().split("</header>", 1)[1]  # the language switcher aside
    assert "<option" not in page and "<select" not in page  # nothing left that would be taken: no form at all
    assert "My bot FirstBot cannot enter: FirstBot is registered already" in page
    assert "My bot SecondBot cannot enter: SecondBot has the owner of FirstBot" in page
    refused = c.post(f"/tournaments/{tid}/enter/", {"bot_id": str(second.pk)}, follow=True).content.decode()
    assert "SecondBot has the owner of FirstBot" in refused  # the service still refuses it (same rule, same words)
