"""Tournament writes played in-process: every format to the end, duplicate seatings, idempotent advancing,
withdrawals, and the commands."""

from collections import Counter
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Deal, Match
from games.services import match_advance, player_house_create
from tournaments.models import Tournament, TournamentMatch, TournamentRound
from tournaments.tournament_selectors import tournament_rounds, tournament_standings
from tournaments.tournament_rounds import pod_results
from tournaments.tournament_services import (TournamentError, tournament_advance, tournament_create,
                                             tournament_register, tournament_start, tournament_withdraw)

STRATEGIES = ["random", "eager", "greedy", "heuristic", "tactician", "random", "eager", "greedy"]


@pytest.fixture
def houses(db):
    return [player_house_create(name=f"H{i}", strategy=s) for i, s in enumerate(STRATEGIES)]


def _play(t: Tournament) -> list[int]:
    """Play every running match of ``t`` and advance until it finishes; the match ids in the order created."""
    for _ in range(200):
        tournament_advance(tournament_id=t.pk)
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            return list(TournamentMatch.objects.filter(round__tournament=t)
                        .order_by("round__number", "pod", "game").values_list("match_id", flat=True))
        # in creation order: a duplicate pod's later rotation waits for the earlier one (Match.after)
        for m in Match.objects.filter(tournament_match__round__tournament=t, status=Match.Status.RUNNING).order_by("pk"):
            assert match_advance(match_id=m.pk) == "finished"
    raise AssertionError("the tournament did not finish")


def _make(houses, n, **kw):
    kw.setdefault("target", 30)
    t = tournament_create(name=kw.pop("name", "Test cup"), **kw)
    for p in houses[:n]:
        tournament_register(tournament=t, player=p)
    return tournament_start(tournament=t)


@pytest.mark.django_db
def test_a_swiss_of_five_plays_three_rounds_with_a_bye_each_round_and_no_rematch(houses):
    t = _make(houses, 5, format="swiss", rounds=3)
    _play(t)
    t.refresh_from_db()
    rounds = list(TournamentRound.objects.filter(tournament=t))
    assert [len(r.byes) for r in rounds] == [1, 1, 1]
    assert len({r.byes[0] for r in rounds}) == 3  # nobody sits out twice
    pairs = Counter(frozenset(r.players) for r in pod_results(t))
    assert len(pairs) == 6 and set(pairs.values()) == {1}
    table = tournament_standings(tournament=t)
    assert [r.rank for r in table] == sorted(r.rank for r in table)
    assert sum(r.points for r in table) == pytest.approx(6 + 3)  # 6 matches, 3 byes


@pytest.mark.django_db
def test_a_round_robin_of_pods_of_three_meets_every_trio(houses):
    t = _make(houses, 4, format="round_robin", seats_per_match=3, preset="web-table")
    ids = _play(t)
    assert len(ids) == 4
    assert all(Match.objects.get(pk=i).seat_count == 3 for i in ids)
    table = tournament_standings(tournament=t)
    assert sum(r.played for r in table) == 12


@pytest.mark.django_db
def test_a_knockout_of_six_seeds_byes_and_crowns_a_champion(houses):
    t = _make(houses, 6, format="knockout")
    assert t.rounds == 3
    first = TournamentRound.objects.get(tournament=t, number=1)
    assert len(first.byes) == 2  # seeds 1 and 2
    _play(t)
    table = tournament_standings(tournament=t)
    assert table[0].rank == 1 and table[1].rank == 2
    final = TournamentRound.objects.get(tournament=t, number=3)
    assert len(final.slots) == 2
    assert table[0].player.pk in final.slots and table[1].player.pk in final.slots
    views = tournament_rounds(tournament=t)
    assert [len(v.matches) for v in views] == [2, 2, 1]


@pytest.mark.django_db
def test_a_duplicate_swiss_plays_each_pod_mirrored_with_the_same_cards(houses):
    t = _make(houses, 4, format="swiss", rounds=2, duplicate=True)
    _play(t)
    by_pod = {}
    for tm in TournamentMatch.objects.filter(round__tournament=t).select_related("match", "round"):
        by_pod.setdefault((tm.round.number, tm.pod), []).append(tm.match)
    assert len(by_pod) == 4 and all(len(ms) == 2 for ms in by_pod.values())
    for a, b in by_pod.values():
        assert a.secret == b.secret and len(a.secret) == 64  # one fresh secret a pod
        assert [s.player_id for s in a.seats.order_by("index")] == [s.player_id for s in b.seats.order_by("-index")]
        common = min(a.deal_number, b.deal_number)
        deals_a = list(Deal.objects.filter(match=a, number__lte=common).values_list("key", "dealer"))
        deals_b = list(Deal.objects.filter(match=b, number__lte=common).values_list("key", "dealer"))
        assert deals_a == deals_b  # the same deal keys and dealers, deal by deal: seat s holds the same cards
    assert len(pod_results(t)) == 4  # one combined result per pod


@pytest.mark.django_db
def test_advancing_is_idempotent_and_every_pod_is_dealt_from_a_fresh_secret(houses):
    """A retried message makes one round 1 only. Each pod's matches are dealt from a secret of their own, drawn
    from the operating system (engine version 2): no tournament-wide seed decides the cards, so playing the same
    tournament again deals other cards."""
    def run():
        t = _make(houses, 6, format="swiss", rounds=3, name="Again")
        TournamentMatch.objects.filter(round__tournament=t).delete()
        TournamentRound.objects.filter(tournament=t).delete()
        for _ in range(3):
            tournament_advance(tournament_id=t.pk)  # a retried message: one round 1 only
        assert TournamentRound.objects.filter(tournament=t).count() == 1
        _play(t)
        secrets_ = [m.secret for m in Match.objects.filter(tournament_match__round__tournament=t)]
        assert all(len(s) == 64 for s in secrets_) and len(set(secrets_)) == len(secrets_)
        assert len(tournament_standings(tournament=t)) == 6
        return set(secrets_)

    assert not run() & run()


@pytest.mark.django_db
def test_a_withdrawal_before_the_start_removes_the_entry_and_during_play_stops_pairing(houses):
    t = tournament_create(name="W", format="swiss", rounds=2, target=30)
    for p in houses[:5]:
        tournament_register(tournament=t, player=p)
    tournament_withdraw(tournament=t, player=houses[4])
    assert t.entries.count() == 4
    t = tournament_start(tournament=t)
    tournament_withdraw(tournament=t, player=houses[0])
    for m in Match.objects.filter(tournament_match__round__tournament=t, status=Match.Status.RUNNING):
        match_advance(match_id=m.pk)
    tournament_advance(tournament_id=t.pk)
    second = TournamentRound.objects.get(tournament=t, number=2)
    seated = {s.player_id for tm in second.tournament_matches.all() for s in tm.match.seats.all()}
    assert houses[0].pk not in seated and houses[0].pk not in second.byes


@pytest.mark.django_db
def test_starting_with_too_few_entrants_says_how_many_are_needed(houses):
    t = tournament_create(name="Few", format="round_robin", seats_per_match=3, preset="web-table")
    tournament_register(tournament=t, player=houses[0])
    tournament_register(tournament=t, player=houses[1])
    with pytest.raises(TournamentError, match="needs at least 3") as exc:
        tournament_start(tournament=t)
    assert exc.value.code == "too_few_entrants" and exc.value.status == 409


@pytest.mark.django_db
@pytest.mark.parametrize("kw,words", [
    ({"format": "ladder"}, "choose one of round_robin, swiss, knockout"),
    ({"format": "knockout", "seats_per_match": 3, "preset": "web-table"}, "2 seats"),
    ({"format": "swiss", "seats_per_match": 9}, "seats 2 to"),
    ({"format": "swiss", "rounds": 0}, "1 to 30 rounds"),
    ({"format": "round_robin", "rounds": 3}, "leave it out"),
    ({"format": "swiss", "preset": "nope"}, "not valid"),
])
def test_bad_tournament_settings_are_refused_with_what_is_allowed(kw, words):
    with pytest.raises(TournamentError, match=words) as exc:
        tournament_create(name="Bad", **kw)
    assert exc.value.status == 400


@pytest.mark.django_db
def test_the_commands_create_and_run_a_tournament_of_house_bots(houses):
    out = StringIO()
    call_command("tournament_create", "--format", "swiss", "--preset", "pagat", "--seats", "2", "--target", "30",
                 "--entrants", ",".join(p.name for p in houses[:4]), "--rounds", "2", stdout=out)
    tid = int(out.getvalue().strip())
    out = StringIO()
    call_command("tournament_run", str(tid), stdout=out)
    text = out.getvalue()
    assert "4/4 matches" in text and "final standings" in text and "buchholz" in text
    assert Tournament.objects.get(pk=tid).status == Tournament.Status.FINISHED
    with pytest.raises(CommandError, match="no player named 'Nobody'"):
        call_command("tournament_create", "--format", "swiss", "--entrants", "H1,Nobody", stdout=StringIO())
    out = StringIO()
    call_command("tournament_create", "--format", "knockout", "--duplicate", "--seats", "2", "--target", "20",
                 "--entrants", ",".join(p.name for p in houses[:3]), stdout=out)
    tid = int(out.getvalue().strip())
    call_command("tournament_run", str(tid), stdout=StringIO())
    assert TournamentMatch.objects.filter(round__tournament_id=tid).count() == 4  # 2 pods, mirrored


@pytest.mark.django_db
def test_the_demo_includes_a_finished_swiss_of_house_bots_once():
    out = StringIO()
    call_command("demo_setup", stdout=out)
    t = Tournament.objects.get(slug="demo-swiss")
    assert t.status == Tournament.Status.FINISHED and t.round_set.count() == 3
    assert "Demo Swiss: final standings" in out.getvalue()
    call_command("demo_setup", stdout=StringIO())  # idempotent: not played again
    assert Tournament.objects.filter(name="Demo Swiss").count() == 1


@pytest.mark.django_db
def test_the_match_list_filters_by_tournament_slug_or_id_and_refuses_an_unknown_one(houses, client):
    t = _make(houses, 4, format="round_robin", name="Filter cup")
    played = _play(t)
    _make(houses[4:], 2, format="round_robin", name="Other cup")  # its matches must not show
    for key in (t.slug, str(t.pk)):
        answer = client.get(f"/api/matches/?tournament={key}&order=oldest&page_size=100")
        assert answer.status_code == 200, answer.content[:300]
        assert [row["id"] for row in answer.json()["results"]] == sorted(played)
    page = client.get(f"/matches/?tournament={t.slug}")
    assert page.status_code == 200 and all(f"/matches/{pk}/" in page.content.decode() for pk in played)
    wrong = client.get("/api/matches/?tournament=no-such-cup")
    assert wrong.status_code == 400
    assert "there is no tournament 'no-such-cup'" in wrong.json()["detail"] and t.slug in wrong.json()["detail"]


@pytest.mark.django_db
def test_a_duplicate_pod_publishes_nothing_of_its_seeds_while_its_mirror_runs(houses, client):
    """Both matches of a duplicate pod are dealt the same cards: the one that ends first keeps its record, replay,
    deal codes, starting hands and seeds secret until its mirror has ended too."""
    t = _make(houses, 2, format="round_robin", duplicate=True, name="Mirror cup")
    tournament_advance(tournament_id=t.pk)
    first, second = (tm.match for tm in TournamentMatch.objects.filter(round__tournament=t)
                     .select_related("match").order_by("game"))
    assert first.reveal_group and first.reveal_group == second.reveal_group
    assert match_advance(match_id=first.pk) == "finished"
    secrets_ = {str(first.seed), *(str(s) for s in Deal.objects.filter(match=first).values_list("seed", flat=True)),
                *Deal.objects.filter(match=first).values_list("code", flat=True),
                *(s for s in Deal.objects.filter(match=first).values_list("salt", flat=True) if s)}
    assert client.get(f"/api/matches/{first.pk}/record/").status_code == 403
    assert client.get(f"/matches/{first.pk}/replay/").status_code == 403
    page = client.get(f"/matches/{first.pk}/").content.decode()
    assert not [s for s in secrets_ if s in page] and 'id="hands"' not in page
    assert match_advance(match_id=second.pk) == "finished"
    assert client.get(f"/api/matches/{first.pk}/record/").status_code == 200
    assert client.get(f"/matches/{first.pk}/replay/").status_code == 200
    assert 'id="hands"' in client.get(f"/matches/{first.pk}/").content.decode()


@pytest.mark.django_db
def test_a_tournament_match_page_names_its_tournament_and_round(houses, client):
    t = _make(houses, 2, format="round_robin", name="Link cup")
    tournament_advance(tournament_id=t.pk)
    tm = TournamentMatch.objects.filter(round__tournament=t).first()
    page = client.get(f"/matches/{tm.match_id}/").content.decode()
    assert f'href="/tournaments/{t.pk}/">Link cup</a>' in page and f'href="/tournaments/{t.pk}/rounds/1/">round 1</a>' in page
    assert "casual match" not in page


@pytest.mark.django_db
def test_an_oversized_round_robin_is_refused_before_its_schedule_is_built():
    """C(17, 8) = 24,310 matches: counted, never built (building and packing them took seconds under the row lock)."""
    import time

    players = [player_house_create(name=f"P{i}", strategy="random") for i in range(17)]
    t = tournament_create(name="Big pods", format="round_robin", seats_per_match=8, preset="pagat", target=30)
    for p in players:
        tournament_register(tournament=t, player=p)
    began = time.perf_counter()
    with pytest.raises(TournamentError) as refused:
        tournament_start(tournament=t)
    assert time.perf_counter() - began < 2
    assert refused.value.code == "too_many_matches"
    assert refused.value.detail.startswith("17 entrants would make 24310 matches; a tournament makes at most 2000: "
                                           "with these settings at most 13 entrants fit")
    t.refresh_from_db()
    assert t.status == Tournament.Status.REGISTERING and not t.round_set.exists()


@pytest.mark.django_db
def test_a_duplicate_pod_is_decided_by_swings_over_the_common_deals_as_a_duplicate_ladder_set_is(houses):
    """One rule for every duplicate result (docs/DUPLICATE_PLAY.md, "Scoring"): a tournament pod's rotations are
    combined by ``duplicate.combined_places`` like a ladder's set, not by match points and card points summed over
    deals only one rotation reached. Here the two rules disagree: X won rotation A, Y won rotation B; summed card
    points favour Y only through deal 3 of B, which A never dealt; over the two common deals X did 85 points better."""
    from tournaments.duplicate import SetMatch, combined_places

    t = _make(houses, 2, format="round_robin", duplicate=True, name="Swing cup")
    _play(t)
    a, b = (tm.match for tm in TournamentMatch.objects.filter(round__tournament=t).select_related("match")
            .order_by("game"))
    x, y = [s.player_id for s in a.seats.order_by("index")]
    assert [s.player_id for s in b.seats.order_by("index")] == [y, x]
    scenario = {a: [[0, 20], [0, 90]], b: [[0, 30], [5, 0], [0, 100]]}  # points by seat, deal by deal (penalty)
    for match, deals in scenario.items():
        Deal.objects.filter(match=match, number__gt=len(deals)).delete()
        for number, points in enumerate(deals, start=1):
            Deal.objects.update_or_create(match=match, number=number, defaults={
                "points": points, "dealer": 0, "code": f"c{match.pk}-{number}", "engine_version": "2"})
        totals = [sum(d[s] for d in deals) for s in range(2)]
        for seat in match.seats.all():
            seat.total, seat.place, seat.forfeited = totals[seat.index], 1 + (totals[seat.index] > min(totals)), False
            seat.save(update_fields=["total", "place", "forfeited"])
    expected = combined_places([SetMatch.of([x, y], scenario[a]), SetMatch.of([y, x], scenario[b])],
                               lower_is_better=True)
    assert expected == {x: 1, y: 2}
    (result,) = pod_results(t)
    assert result.players == (x, y)
    assert dict(zip(result.players, result.places)) == expected
    table = tournament_standings(tournament=t)
    assert [row.player.pk for row in table] == [x, y] and table[0].rank == 1 and table[1].rank == 2
