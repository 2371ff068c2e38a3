"""Issue 27 item 2: notifications. Each kind is made by its real event (a challenge, a table invitation, a person
away on their turn noticed by the watchdog, a tournament and its next round starting, a season closing, a bot's
check failing and passing, a bot suspended by its failed matches), shows in the list page, the bell and
``GET /api/notifications/``, and is e-mailed to those who opted in (the outbox), with an unsubscribe link that
works without logging in and cannot be made for another account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from eights_engine import Ruleset
from games.models import Match, Notification, Player
from games.services import match_create, player_for_user
from personas import api_client, user


@pytest.fixture
def _mail_now(settings):
    settings.TASKS = "eager"  # the e-mail task runs when the event's transaction commits, in this thread
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def _opt_in(account, address):
    account.email = address
    account.save(update_fields=["email"])
    Player.objects.filter(pk=player_for_user(user=account).pk).update(email_notifications=True)


def _kinds(account) -> list[str]:
    return list(Notification.objects.filter(user=account).values_list("kind", flat=True))


@pytest.mark.django_db
def test_a_challenge_is_notified_listed_belled_and_emailed_with_a_working_unsubscribe_link(
        person, owner, _mail_now, django_capture_on_commit_callbacks):
    from tables.services import challenge_create

    player_for_user(user=person)
    _opt_in(person, "lin@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        table = challenge_create(challenger=player_for_user(user=owner), name="lin")
    assert _kinds(person) == ["challenge"]
    [sent] = mail.outbox
    assert sent.to == ["lin@example.org"] and "ada challenges you" in sent.subject
    assert f"/tables/{table.code}/" in sent.body and "List-Unsubscribe" in sent.extra_headers
    client = Client()
    client.force_login(person)
    page = client.get("/notifications/").content.decode()
    assert "ada challenges you to a match of web-table." in page and f"/tables/{table.code}/" in page
    assert "1 notification" in client.get("/tables/").content.decode()  # the bell on every page
    listed = client.get("/api/notifications/").json()
    assert listed["unread"] == 1 and listed["results"][0]["kind"] == "challenge"
    assert listed["results"][0]["text"].startswith("ada challenges you")
    assert client.post("/api/notifications/read/", {}, content_type="application/json").json() == {
        "marked": 1, "unread": 0}
    # the unsubscribe link: no log-in; a GET only asks; a POST stops the e-mails
    leave = sent.extra_headers["List-Unsubscribe"].strip("<>").split("://", 1)[1].split("/", 1)[1]
    anonymous = Client()
    assert "Stop e-mailing me" in anonymous.get(f"/{leave}").content.decode()
    assert Player.objects.get(user=person, kind="human").email_notifications
    assert "no more notification e-mails" in anonymous.post(f"/{leave}").content.decode()
    assert not Player.objects.get(user=person, kind="human").email_notifications
    forged = leave.rstrip("/").rsplit("/", 1)[0] + "/eyJ1Ijo1fQ:forged/"
    assert anonymous.post(f"/{forged}").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=player_for_user(user=owner), name="lin")
    assert len(mail.outbox) == 1 and _kinds(person) == ["challenge", "challenge"]  # listed, not e-mailed


@pytest.mark.django_db
def test_a_table_invitation_and_a_person_away_on_their_turn(person, owner, house_bots, _mail_now,
                                                           django_capture_on_commit_callbacks):
    from games.tasks import watchdog
    from tables.services import table_create

    player_for_user(user=person)
    _opt_in(person, "lin@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        table_create(creator=player_for_user(user=owner), preset="web-table",
                     seats=[{"kind": "invited", "name": "lin"}, {"kind": "house", "strategy": "heuristic"}])
    assert _kinds(person) == ["table_invite"]
    assert [m.subject for m in mail.outbox] == ["Eights Ladder: ada keeps you a seat at their table (web-table)."]
    me = player_for_user(user=person)
    match = match_create(players=[me, house_bots[0]], ruleset=Ruleset.preset("pagat"), seed=4,
                         move_seconds=3600)  # away, and the move clock not run out (no fallback played)
    from games.services import match_advance

    match_advance(match_id=match.pk)  # the house plays until it is the person's turn
    match.refresh_from_db()
    assert match.awaiting_human
    watchdog()
    assert _kinds(person).count("your_turn") == 0  # not away yet
    Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=True):
        watchdog()
        watchdog()  # noticed again: still one notification for this turn
    assert _kinds(person).count("your_turn") == 1
    assert len(mail.outbox) == 2 and mail.outbox[1].subject.startswith("Eights Ladder: It is your turn in match")
    row = Notification.objects.get(user=person, kind="your_turn")
    assert row.url == f"/matches/{match.pk}/play/" and house_bots[0].name in row.params["others"]


@pytest.mark.django_db
def test_a_tournament_and_its_next_round_starting_are_notified_to_a_bots_owner(owner, servers, house_bots, _mail_now,
                                                                             django_capture_on_commit_callbacks):
    from games.services import match_advance
    from personas import bot_of
    from tournaments.tournament_services import (tournament_advance, tournament_create, tournament_register,
                                                 tournament_start)

    bot = bot_of(owner, servers("good"), "Cupbot", active=True)
    player_for_user(user=owner)
    _opt_in(owner, "ada@example.org")
    t = tournament_create(name="Cup", format="swiss", rounds=2, target=15, entrants="bots")
    for player in [bot.player, *house_bots[:3]]:
        tournament_register(tournament=t, player=player)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_start(tournament=t)  # its matches are played at once here (the tasks run in this thread)
    assert "tournament_start" in _kinds(owner)
    for m in Match.objects.filter(tournament_match__round__tournament=t, status=Match.Status.RUNNING):
        match_advance(match_id=m.pk)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_advance(tournament_id=t.pk)
    assert sorted(_kinds(owner)) == ["round_start", "tournament_start"]
    assert sorted(m.subject for m in mail.outbox) == ["Eights Ladder: Round 2 of Cup has started: Cupbot plays.",
                                                      "Eights Ladder: The tournament Cup has started: Cupbot is "
                                                      "playing."]
    row = Notification.objects.get(user=owner, kind="round_start")
    assert row.params["round"] == 2 and row.url == f"/tournaments/{t.pk}/rounds/2/"
    assert not Notification.objects.exclude(user=owner).exists()  # house bots have nobody to tell


@pytest.mark.django_db
def test_a_season_closing_tells_each_person_and_bot_owner_where_they_finished(person, owner, servers, house_bots,
                                                                            _mail_now,
                                                                            django_capture_on_commit_callbacks):
    from personas import bot_of
    from tournaments.models import Ladder
    from tournaments.seasons import season_open, seasons_roll
    from tournaments.services import ladder_create, ladder_entry_create, ladder_schedule_matches

    ladder = ladder_create(name="Seasonal", slug="seasonal", preset="pagat", seats_per_match=2)
    Ladder.objects.filter(pk=ladder.pk).update(season_length=timedelta(hours=1))
    ladder.refresh_from_db()
    bot = bot_of(owner, servers("good"), "Seasoned", active=True)
    for player in (player_for_user(user=person), bot.player, house_bots[0]):
        ladder_entry_create(ladder=ladder, player=player)
    ladder_schedule_matches(ladder=ladder)
    _opt_in(person, "lin@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        seasons_roll(ladder=ladder, now=season_open(ladder=ladder).ends_at)
    assert _kinds(person) == ["season_end"] and _kinds(owner) == ["season_end"]
    assert [m.to for m in mail.outbox] == [["lin@example.org"]]  # only the one who opted in
    assert "Season 1 of Seasonal has ended: lin was not ranked yet." in mail.outbox[0].subject
    text = Client()
    text.force_login(owner)
    assert "Season 1 of Seasonal has ended: Seasoned was not ranked yet." in text.get("/notifications/").content.decode()


@pytest.mark.django_db
def test_a_bot_failing_its_check_suspended_and_playing_again_tells_its_owner(owner, servers, house_bots, settings,
                                                                           _mail_now,
                                                                           django_capture_on_commit_callbacks):
    from bots_api.services import bot_check_request, bot_check_run
    from games.services import match_advance
    from personas import bot_of

    settings.BOT_TIME_BANK_MS = 0
    settings.BOT_SUSPEND_AFTER_FAILED_MATCHES = 2
    server = servers("status:500")
    bot = bot_of(owner, server, "Wobbly", active=True)
    player_for_user(user=owner)
    _opt_in(owner, "ada@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(2):
            match_advance(match_id=match_create(players=[bot.player, house_bots[0]],
                                                ruleset=Ruleset.preset("pagat"), seed=1 + n).pk)
    assert _kinds(owner) == ["bot_suspended"]
    with django_capture_on_commit_callbacks(execute=True):
        bot_check_run(check_id=bot_check_request(bot=bot).pk)  # still broken
    assert _kinds(owner)[0] == "bot_check_failed"
    server.behaviour = "good"
    with django_capture_on_commit_callbacks(execute=True):
        bot_check_run(check_id=bot_check_request(bot=bot).pk)
    assert _kinds(owner)[0] == "bot_recovered"
    assert [m.subject.split(":")[1].strip().split(" ")[3] for m in mail.outbox] == ["is", "failed", "passed"]
    listed = api_client(owner).get("/api/notifications/").json()
    assert [r["kind"] for r in listed["results"]] == ["bot_recovered", "bot_check_failed", "bot_suspended"]
    assert all(r["url"] == f"/bots/{bot.pk}/" for r in listed["results"])
    assert "Wobbly" in listed["results"][2]["text"] and "suspended" in listed["results"][2]["text"]


@pytest.mark.django_db
def test_the_api_needs_a_log_in_and_refuses_bad_ids(person):
    assert api_client().get("/api/notifications/").status_code in (401, 403)
    bad = api_client(person).post("/api/notifications/read/", {"ids": ["x"]}, format="json")
    assert bad.status_code == 400 and "ids" in bad.content.decode()
    huge = api_client(person).post("/api/notifications/read/", {"ids": [2**63]}, format="json")
    assert huge.status_code == 400 and "ids" in huge.content.decode()
    other = user("someone")
    Notification.objects.create(user=other, kind="challenge", params={"name": "x", "preset": "pagat"})
    assert api_client(person).post("/api/notifications/read/", {}, format="json").json()["marked"] == 0
    assert api_client(person).get("/api/notifications/").json()["count"] == 0  # nobody sees another's


@pytest.mark.django_db
def test_the_email_opt_in_needs_a_real_address(person):
    client = Client()
    client.force_login(person)
    player_for_user(user=person)
    page = client.post("/notifications/email/", {"address": "not-an-address", "wanted": "1"}, follow=True)
    assert "is not an e-mail address" in page.content.decode()
    page = client.post("/notifications/email/", {"address": "", "wanted": "1"}, follow=True)
    assert "Give an e-mail address" in page.content.decode()
    client.post("/notifications/email/", {"address": "lin@example.org", "wanted": "1"})
    assert Player.objects.get(user=person, kind="human").email_notifications


@pytest.mark.django_db
def test_a_person_away_is_told_while_the_default_move_clock_still_runs_and_once_an_absence(person, house_bots):
    """Found by a newcomer's trial: with the default 60 s move clock, a person away was never told (the sweep
    waited 60 s, and by then the clock's fallback had moved for them). Now a third of the clock: 20 s."""
    import time

    from games.matches.leavers import presence_note
    from games.notices import away_seconds, turns_waiting_sweep
    from games.services import match_advance

    match = match_create(players=[player_for_user(user=person), house_bots[0]], ruleset=Ruleset.preset("pagat"),
                         seed=4)
    match_advance(match_id=match.pk)
    match.refresh_from_db()
    assert match.awaiting_human and match.move_clock_seconds == 60 and away_seconds(match) == 20

    def waited(seconds):
        Match.objects.filter(pk=match.pk).update(last_progress_at=timezone.now() - timedelta(seconds=seconds))

    waited(15)
    assert turns_waiting_sweep() == 0  # not away long enough
    waited(25)
    assert turns_waiting_sweep() == 1 and _kinds(person) == ["your_turn"]  # told with 35 s of the clock left
    waited(61)
    assert match_advance(match_id=match.pk) in ("waiting", "ran")  # the clock's fallback moves for them
    match.refresh_from_db()
    assert match.awaiting_human and match.ply_count > 1
    waited(25)
    assert turns_waiting_sweep() == 0 and _kinds(person) == ["your_turn"]  # the same absence: not told again
    presence_note(match_id=match.pk, seat=0)  # back at the table, then away again
    assert turns_waiting_sweep() == 0
    assert turns_waiting_sweep(now=time.time() + 21) == 1 and _kinds(person) == ["your_turn", "your_turn"]


@pytest.mark.django_db
def test_a_bots_first_check_passing_is_not_told_as_playing_again(owner, servers):
    """Found by a newcomer's trial: the first verification of a new bot told its owner it "plays again"."""
    from bots_api.services import bot_check_request, bot_check_run, bot_register
    from bots_api.models import Bot

    server = servers("good")
    bot, _secret = bot_register(owner=owner, name="Newbie", endpoint_url=server.url)
    Bot.objects.filter(pk=bot.pk).update(secret=server.secret)
    assert bot_check_run(check_id=bot_check_request(bot=bot).pk).state == "passed"
    assert "bot_recovered" not in _kinds(owner)


@pytest.mark.django_db
def test_a_rated_challenge_says_it_is_rated_and_on_which_ladder(person, owner):
    """Found by a newcomer's trial: a rated challenge's notice read like a casual one's."""
    from tables.services import challenge_create
    from tournaments.services import ladder_create

    ladder_create(name="Rated Pagat", slug="rated", preset="pagat", seats_per_match=2)
    player_for_user(user=person)
    challenge_create(challenger=player_for_user(user=owner), name="lin", ladder="rated")
    [text] = [r["text"] for r in api_client(person).get("/api/notifications/").json()["results"]]
    assert text == "ada challenges you to a rated match on the ladder Rated Pagat."


@pytest.mark.django_db
def test_the_zero_setup_loop_sweeps_for_people_away_every_few_seconds(monkeypatch, settings):
    """Found by a breaker: the loop swept once a minute with the guest housekeeping, so with the 60 s move clock
    every turn of some people began just after a sweep and ran out before the next: they were never told."""
    import time

    from games.notices import AWAY_SECONDS, away_seconds
    from tournaments.management.commands import ladder_run

    assert 2 * ladder_run.TURN_SWEEP_SECONDS <= away_seconds(Match(move_seconds=None)) <= AWAY_SECONDS
    settings.GUEST_HOUSEKEEPING_SECONDS = 3600
    monkeypatch.setattr(ladder_run, "TURN_SWEEP_SECONDS", 0.2)
    sweeps = []

    def sweep():
        sweeps.append(time.monotonic())
        if len(sweeps) == 4:
            raise ladder_run._Stop()
        return 0

    monkeypatch.setattr(ladder_run, "turns_waiting_sweep", sweep)
    monkeypatch.setattr(ladder_run, "guest_housekeeping", lambda: None)
    worker = ladder_run._Worker(ladder_run.Command(), ladders=[], matches=0, forever=True, interval=3600, poll=0.05,
                                timeout=600)
    with pytest.raises(ladder_run._Stop):
        worker.run()
    assert len(sweeps) == 4 and sweeps[-1] - sweeps[0] < 3, sweeps
