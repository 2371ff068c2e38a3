"""Issue 27 item 3: fair play. A signed-in person reports a player from its page, a match, or ``POST /api/reports/``;
bad reports are refused saying why; staff work the queue in the admin (warn, hide, ban); a banned account cannot
play a rated match or enter a tournament, and its results stay, marked; the automatic signals flag for review and
never punish."""

from __future__ import annotations

import pytest
from django.test import Client

from eights_engine import Ruleset
from games.models import Match, MatchAnalysis, Notification, Player, Report
from games.people.fairplay import arranged_results, fairplay_scan
from games.services import match_advance, match_create, player_for_user
from personas import api_client, user


@pytest.mark.django_db
def test_a_report_goes_through_the_admin_to_a_ban_and_the_banned_account_is_refused_rated_play(
        person, owner, servers, house_bots, settings):
    from personas import bot_of
    from tournaments.services import ladder_create, ladder_entry_create, ladder_play_now
    from tournaments.tournament_services import tournament_create, tournament_register
    from tournaments.errors import TournamentError

    cheat = player_for_user(user=person)
    bot = bot_of(person, servers("good"), "CheatBot", active=True)
    match = match_create(players=[cheat, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=3)
    answer = api_client(owner).post("/api/reports/", {"player": "lin", "reason": "engine_help",
                                                      "note": "too good", "match": match.pk}, format="json")
    assert answer.status_code == 201, answer.content
    report = Report.objects.get(pk=answer.json()["id"])
    assert report.reporter == owner and report.match == match and report.status == "open"
    staff = user("staffer")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    admin = Client()
    admin.force_login(staff)
    queue = admin.get("/admin/games/report/").content.decode()
    assert "lin" in queue and f"/matches/{match.pk}/" in queue and f"/matches/{match.pk}/replay/" in queue
    from tables.models import Table
    from tables.services import challenge_create
    from tournaments.services import ladder_create as make_ladder

    make_ladder(name="Rated Before", slug="before", preset="pagat", seats_per_match=2)
    player_for_user(user=owner)
    pending = [challenge_create(challenger=cheat, name="ada", ladder="before"),  # made before the ban
               challenge_create(challenger=player_for_user(user=owner), name="lin", ladder="before"),
               challenge_create(challenger=player_for_user(user=owner), name="lin")]  # casual: it stands
    done = admin.post("/admin/games/report/", {"action": "ban", "_selected_action": [report.pk]}, follow=True)
    assert done.status_code == 200
    report.refresh_from_db()
    assert report.status == "banned" and report.handled_by == staff
    assert Player.objects.get(pk=cheat.pk).banned_at is not None
    # found by a breaker: rated challenges made before the ban stayed open to join (and then failed)
    assert [Table.objects.get(pk=t.pk).status for t in pending] == ["cancelled", "cancelled", "waiting"]
    assert Player.objects.get(pk=bot.player_id).banned_at is not None and not Player.objects.get(pk=bot.player_id).is_active
    ladder = ladder_create(name="Rated", slug="rated", preset="pagat", seats_per_match=2)
    for b in house_bots[:2]:
        ladder_entry_create(ladder=ladder, player=b)
    with pytest.raises(ValueError, match="banned from rated play"):
        ladder_play_now(ladder=ladder, user=person, match_with="bots")
    refused = Client()
    refused.force_login(person)
    page = refused.post("/ladders/rated/play/", {"match_with": "bots"}, follow=True)
    assert "banned from rated play" in page.content.decode()
    player_for_user(user=owner)
    for challenger, challenged in ((person, "ada"), (owner, "lin")):  # a rated challenge, either way: refused now
        asked = api_client(challenger).post("/api/challenges/", {"player": challenged, "ladder": "rated"},
                                            format="json")
        assert asked.status_code == 400 and "lin is banned from rated play" in asked.json()["detail"], asked.content
    casual = api_client(owner).post("/api/challenges/", {"player": "lin"}, format="json")
    assert casual.status_code == 201, casual.content  # a casual one stands
    t = tournament_create(name="Open", format="swiss", rounds=1, target=15)
    with pytest.raises(TournamentError, match="banned"):
        tournament_register(tournament=t, player=Player.objects.get(pk=cheat.pk))
    match_advance(match_id=match.pk)  # an earlier match plays on to its end: results stay, marked
    assert Match.objects.filter(pk=match.pk).exists()
    assert "banned" in Client().get(f"/matches/{match.pk}/").content.decode()


@pytest.mark.django_db
def test_warn_and_hide_from_the_admin(person, owner, house_bots):
    from tournaments.selectors import ladder_leaderboard
    from tournaments.services import ladder_create, ladder_entry_create

    me = player_for_user(user=person)
    ladder = ladder_create(name="Board", slug="board", preset="pagat", seats_per_match=2)
    for player in (me, house_bots[0]):
        ladder_entry_create(ladder=ladder, player=player)
    report = Report.objects.create(player=me, reporter=owner, reason="abuse")
    staff = user("staffer")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    admin = Client()
    admin.force_login(staff)
    admin.post("/admin/games/report/", {"action": "warn", "_selected_action": [report.pk]})
    assert Notification.objects.filter(user=person, kind="fair_play_warning").exists()
    again = Report.objects.create(player=me, reporter=owner, reason="abuse")
    admin.post("/admin/games/report/", {"action": "hide", "_selected_action": [again.pk]})
    assert me.name not in [e.player.name for e in ladder_leaderboard(ladder=ladder)]
    assert Player.objects.get(pk=me.pk).banned_at is None  # hidden, not banned


@pytest.mark.django_db
def test_bad_reports_are_refused_saying_why_and_reports_are_limited_per_day(person, owner, servers, settings,
                                                                            house_bots):
    from personas import bot_of

    player_for_user(user=person)
    mine = bot_of(owner, servers("good"), "MyBot", active=True)
    api = api_client(owner)
    player_for_user(user=owner)
    cases = [({"player": "ada", "reason": "abuse"}, 400, "yourself"),
             ({"player": mine.player.name, "reason": "abuse"}, 400, "your own bots"),
             ({"player": "nobody-here", "reason": "abuse"}, 404, "no such player"),
             ({"player": "lin", "reason": "because"}, 400, "is not a reason: use one of engine_help"),
             ({"player": "lin", "reason": "other", "note": "x" * 501}, 400, "note"),
             ({"player": "lin", "reason": "other", "match": 999999}, 404, "no match"),
             ({"player": house_bots[0].name, "reason": "abuse"}, 400, "is a house bot")]  # found by a newcomer
    for body, code, words in cases:
        answer = api.post("/api/reports/", body, format="json")
        assert answer.status_code == code and words in answer.content.decode(), (body, answer.content)
    assert api_client().post("/api/reports/", {"player": "lin", "reason": "abuse"}, format="json").status_code in (401, 403)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "report": "2/day"}}
    others = [player_for_user(user=user(f"p{i}")) for i in range(3)]
    codes = [api.post("/api/reports/", {"player": p.name, "reason": "abuse"}, format="json").status_code
             for p in others]
    assert codes == [201, 201, 429]
    again = api.post("/api/reports/", {"player": others[0].name, "reason": "other"}, format="json")
    assert again.status_code == 200 and "reported this player already" in again.json()["detail"]
    assert Report.objects.filter(player=others[0]).count() == 1  # reported twice: one open report
    assert api.post("/api/reports/", {"player": "9" * 30, "reason": "abuse"}, format="json").status_code == 404
    assert api.post("/api/reports/", {"player": "lin", "reason": "abuse", "match": 2**64},
                    format="json").status_code == 400


@pytest.mark.django_db
def test_the_report_form_from_a_players_page(person, owner, house_bots):
    player_for_user(user=person)
    player_for_user(user=owner)
    client = Client()
    client.force_login(owner)
    assert "/players/lin/report/" in client.get("/players/lin/").content.decode()
    form = client.get("/players/lin/report/").content.decode()
    assert 'name="reason"' in form and "engine_help" in form
    bad = client.post("/players/lin/report/", {"reason": "stalling", "match": "abc"}, follow=True)
    assert "There is no match abc" in bad.content.decode() and not Report.objects.exists()
    done = client.post("/players/lin/report/", {"reason": "stalling", "note": "leaves every match"}, follow=True)
    assert "the staff will look at your report" in done.content.decode()
    assert Report.objects.get(player__name="lin").note == "leaves every match"
    again = client.post("/players/lin/report/", {"reason": "other"}, follow=True)
    assert "You reported this player already" in again.content.decode()
    assert client.get(f"/players/{Player.objects.filter(kind='house').first().name}/report/").status_code == 404
    own = client.get("/players/ada/report/", follow=True)
    assert "You cannot report yourself" in own.content.decode() and 'name="reason"' not in own.content.decode()


@pytest.mark.django_db
def test_the_signals_flag_an_expert_like_person_and_an_arranged_looking_bot_for_review_only(
        owner, house_bots, servers, monkeypatch):
    from games.people import fairplay
    from personas import bot_of

    people = [player_for_user(user=user(f"fp{i}")) for i in range(4)]
    monkeypatch.setattr(fairplay, "SIGNAL_MIN_DECISIONS", 10)
    shares = {people[0].pk: 0.98, people[1].pk: 0.55, people[2].pk: 0.6, people[3].pk: 0.5}
    for seed, person in enumerate(people, start=1):
        match = match_create(players=[person, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=seed)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
        agree = int(40 * shares[person.pk])
        decisions = [{"seat": 0, "chosen": 1, "best": 1 if i < agree else 2} for i in range(40)]
        MatchAnalysis.objects.create(match=match, status="done", data={"deals": [{"decisions": decisions}]})
    # a bot that loses every match to another owner's bot and wins its others
    thrower = bot_of(owner, servers("good"), "Thrower", active=True)
    other_owner = user("beneficiary")
    taker = bot_of(other_owner, servers("good"), "Taker", active=True)
    from games.models import Seat

    def finished(players, places):
        match = match_create(players=players, ruleset=Ruleset.preset("pagat"), seed=len(places) + Match.objects.count())
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
        for index, place in enumerate(places):
            Seat.objects.filter(match=match, index=index).update(place=place)

    for _ in range(10):
        finished([thrower.player, taker.player], [2, 1])
        finished([thrower.player, house_bots[1]], [1, 2])
    assert [(p, o) for p, o, _n, _l in arranged_results()] == [(thrower.player_id, other_owner.pk)]
    flags = fairplay_scan()
    flagged = {r.player_id for r in flags}
    assert flagged == {people[0].pk, thrower.player_id}
    assert all(r.reason == "signal" and r.reporter is None and r.status == "open" for r in flags)
    assert not fairplay_scan()  # flagged once while open
    assert not Player.objects.filter(banned_at__isnull=False).exists()  # never punished automatically


@pytest.mark.django_db
def test_the_expert_agreement_signal_compares_a_person_with_people_of_their_rating(house_bots, monkeypatch):
    from games.people import fairplay
    from tournaments.models import LadderEntry
    from tournaments.services import ladder_create

    monkeypatch.setattr(fairplay, "SIGNAL_MIN_DECISIONS", 10)
    ladder = ladder_create(name="Band", slug="band", preset="pagat", seats_per_match=2)
    rows = [("low1", 0.0, 0.5), ("low2", 0.0, 0.52), ("low3", 0.0, 0.48), ("suspect", 1.0, 0.92),
            ("high1", 30.0, 0.9), ("high2", 30.0, 0.91), ("high3", 30.0, 0.92)]
    players = {}
    for seed, (name, rating, share) in enumerate(rows, start=1):
        person = player_for_user(user=user(name))
        players[name] = person
        LadderEntry.objects.create(ladder=ladder, player=person, mu=rating + 6, sigma=2.0, ordinal=rating)
        match = match_create(players=[person, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=seed)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
        agree = round(50 * share)
        decisions = [{"seat": 0, "chosen": 1, "best": 1 if i < agree else 2} for i in range(50)]
        MatchAnalysis.objects.create(match=match, status="done", data={"deals": [{"decisions": decisions}]})
    # against everyone the suspect's 92 % is ordinary (the strong people agree as often); against people of their
    # rating (46-52 %) it stands out
    assert {r.player_id for r in fairplay_scan()} == {players["suspect"].pk}


@pytest.mark.django_db
def test_two_bots_of_one_owner_at_a_table_are_one_meeting_and_people_are_not_bots(owner, house_bots, servers):
    from games.models import Seat
    from personas import bot_of

    thrower = bot_of(owner, servers("good"), "Thrower3", active=True)
    friend = user("friend")
    first, second = (bot_of(friend, servers("good"), name, active=True) for name in ("TakerA", "TakerB"))
    person = player_for_user(user=user("bystander"))

    def finished(players, places):
        match = match_create(players=players, ruleset=Ruleset.preset("web-table"), seed=Match.objects.count() + 1,
                             same_owner_ok=True)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
        for index, place in enumerate(places):
            Seat.objects.filter(match=match, index=index).update(place=place)

    for _ in range(10):
        finished([thrower.player, first.player, second.player], [3, 1, 2])
        finished([thrower.player, person, house_bots[1]], [1, 2, 3])
    assert [(p, o, n) for p, o, n, _l in arranged_results()] == [(thrower.player_id, friend.pk, 10)]
