"""The analysis of a finished match (``eights_engine.analysis``) and the ``expert`` house strategy
(``search.expert_strategy``): what they read, what they give, and that they agree with each other."""

import pytest

from eights_engine import HOUSE_STRATEGIES, STRATEGIES, MatchState, Ruleset, choose, fast, referee, search
from eights_engine.actions import ACTIONS
from eights_engine.analysis import analyse, par
from eights_engine.strategies import SEARCH_STRATEGIES, choose_turn, strategy_rng


def _played(preset="pagat", seats=2, seed=3, target=20, names=("heuristic", "tactician", "greedy"), **options):
    rules = Ruleset.preset(preset, target=target, **options)
    match = MatchState.start(rules, seats, seed)
    while not match.is_over:
        seat = match.to_play
        match.apply(choose(names[seat % len(names)], match.view(seat), match.legal_actions(), match.deal.seed))
    return match


def test_the_expert_is_a_house_strategy_apart_from_the_instant_ones():
    assert "expert" in HOUSE_STRATEGIES and "expert" in SEARCH_STRATEGIES and "expert" not in STRATEGIES
    assert HOUSE_STRATEGIES[-1] == "expert"  # the strongest, last


def test_the_expert_needs_the_ruleset_and_plays_a_legal_action_the_same_way_twice():
    rules = Ruleset.preset("web-table")
    match = MatchState.start(rules, 3, 5)
    view, legal = match.view(match.to_play), match.legal_actions()
    with pytest.raises(ValueError, match="ruleset"):
        choose("expert", view, legal, match.deal.seed)
    first = choose("expert", view, legal, match.deal.seed, rules)
    assert first in legal and choose("expert", view, legal, match.deal.seed, rules) == first
    with pytest.raises(ValueError, match="unknown strategy"):
        choose("grandmaster", view, legal, match.deal.seed, rules)


def test_the_expert_plays_whole_matches_of_every_preset_through_the_referee_turn():
    for preset, seats in (("pagat", 2), ("web-table", 3), ("crazy-eights", 4), ("eights-classic", 4)):
        rules = Ruleset.preset(preset, target=15)
        match = MatchState.start(rules, seats, 11)
        while not match.is_over:
            turn = referee.turn_for(match)
            action = choose_turn("expert", turn, strategy_rng(match.deal.seed, turn.ply, turn.seat))
            assert action in turn.legal_actions
            match.apply(action)


def test_the_expert_chooses_alike_on_the_compiled_and_the_pure_path(monkeypatch):
    rules = Ruleset.preset("pagat")
    match = MatchState.start(rules, 2, 9)
    for _ in range(6):  # a few plies in, so the view has a history
        match.apply(choose("heuristic", match.view(match.to_play), match.legal_actions(), match.deal.seed))
    seat = match.to_play
    view, legal = match.view(seat), list(match.deal.legal_ids())
    compiled = search.pimc_values(view, rules, legal, samples=24, seed=5, policy=fast.TACTICAL)
    monkeypatch.setattr(search, "fast_deal", lambda deal: fast.fast_deal(deal, pure=True))
    pure = search.pimc_values(view, rules, legal, samples=24, seed=5, policy=fast.TACTICAL)
    assert compiled == pure


def test_an_analysis_weighs_every_decision_with_a_choice_and_splits_each_deal():
    match = _played()
    record = match.record()
    seen = []
    result = analyse(record, samples=24, progress=lambda done, total: seen.append((done, total)))
    assert result["seats"] == 2 and result["lower_is_better"] is True and result["samples"] == 24
    assert seen == [(n, match.deal_number) for n in range(1, match.deal_number + 1)]
    assert [d["number"] for d in result["deals"]] == list(range(1, match.deal_number + 1))
    for deal, stored in zip(result["deals"], match.results, strict=True):
        assert deal["points"] == list(stored.points) and deal["plies"] == stored.plies
        assert deal["decisions_part"] == [p - q for p, q in zip(deal["points"], deal["par"])]
        for d in deal["decisions"]:
            assert d["options"] >= 2 and d["loss"] >= 0
            assert (d["loss"] == 0) or d["chosen"] != d["best"]
        assert deal["given_up"] == [round(sum(d["loss"] for d in deal["decisions"] if d["seat"] == s), 2)
                                    for s in range(2)]
    decisions = sum(len(d["decisions"]) for d in result["deals"])
    assert decisions == sum(result["totals"]["decisions"]) and decisions > 0


def test_the_analysis_prefers_what_the_expert_would_play():
    match = _played(seed=8)
    result = analyse(match.record(), samples=24)
    replayed = MatchState.start(match.ruleset, 2, 8)
    decisions = {(d["number"], x["ply"]): x for d in result["deals"] for x in d["decisions"]}
    checked = 0
    for number, deal in enumerate(match.record()["deals"], start=1):
        for action in deal["actions"]:
            found = decisions.get((number, replayed.deal.ply))
            if found is not None and checked < 12:
                seat = replayed.to_play
                ids = list(replayed.deal.legal_ids())
                seed = strategy_rng(replayed.deal.seed, replayed.deal.ply, seat).next()
                best = search.pimc_action(replayed.view(seat), match.ruleset, ids, samples=24, seed=seed,
                                          policy=search.EXPERT_POLICY, others_weight=search.EXPERT_OTHERS_WEIGHT)
                assert ACTIONS[best] == found["best"]
                checked += 1
            replayed.apply(action)
    assert checked == 12


def test_a_deal_cut_off_by_the_ply_limit_is_flagged():
    match = _played(preset="crazy-eights", seats=3, seed=2, target=30, names=("random",), ply_limit=40)
    result = analyse(match.record(), samples=8)
    limited = [d for d in result["deals"] if d["plies"] is not None and d["plies"] >= 40]
    assert limited and all(d["ply_limit"] for d in limited)
    assert all(not d["ply_limit"] for d in result["deals"] if d["plies"] is not None and d["plies"] < 40)


def test_par_plays_the_expert_at_every_seat_from_the_deal_as_it_stands():
    rules = Ruleset.preset("pagat")
    match = MatchState.start(rules, 2, 4)
    start = match.deal.clone()
    points = par(start, samples=8)
    assert len(points) == 2 and start.ply == 0 and start.result is None  # the deal given is not changed
    assert par(start, samples=8) == points  # deterministic


def test_an_unfinished_match_or_a_bad_record_is_refused_with_the_reason():
    rules = Ruleset.preset("pagat")
    match = MatchState.start(rules, 2, 4)
    match.apply(match.legal_actions()[0])
    with pytest.raises(ValueError, match="not over"):
        analyse(match.record(), samples=4)
    with pytest.raises(ValueError, match="samples"):
        analyse(match.record(), samples=0)
    with pytest.raises(ValueError):
        analyse({"deals": "nope"}, samples=4)


def test_a_match_ended_by_a_forfeit_is_analysed_up_to_it():
    match = _played(target=20)
    record = match.record()
    record["deals"][-1]["actions"] = record["deals"][-1]["actions"][:5]  # a seat forfeits at ply 6 of the last deal
    record["deals"][-1].pop("points", None)
    with pytest.raises(ValueError, match="not over"):
        analyse(record, samples=4)
    result = analyse({**record, "result": {"forfeited": 0}}, samples=4)
    *played, cut_off = result["deals"]
    assert len(result["deals"]) == len(record["deals"]) and all(d["points"] is not None for d in played)
    assert cut_off["points"] is None and cut_off["par"] is None and cut_off["decisions_part"] is None
    assert all(d["ply"] < 5 for d in cut_off["decisions"])


def test_the_plies_a_fallback_played_are_no_decisions():
    record = _played(target=20).record()
    plain = analyse(record, samples=4)
    chosen = [(n, d["ply"]) for n, deal in enumerate(plain["deals"], start=1) for d in deal["decisions"]][:3]
    for number, ply in chosen:  # the record says the clock ran out at these plies: the referee played them
        record["deals"][number - 1].setdefault("faults", []).append([ply + 1, "clock"])
    weighed = analyse(record, samples=4)
    left = [(n, d["ply"]) for n, deal in enumerate(weighed["deals"], start=1) for d in deal["decisions"]]
    assert not set(chosen) & set(left) and len(left) == sum(plain["totals"]["decisions"]) - 3


@pytest.mark.parametrize("preset", ["web-table", "pagat"])
def test_at_the_web_table_the_expert_keeps_the_tacticians_choice_unless_the_search_is_clearly_better(
        preset, monkeypatch):
    from eights_engine.rng import SplitMix64
    from eights_engine.tactics import tactician_strategy

    rules = Ruleset.preset(preset)
    match = MatchState.start(rules, 2, 5)
    while True:  # a decision where the tactician's choice is not the first legal action
        seat, legal = match.to_play, match.legal_actions()
        view = match.view(seat)
        prior = tactician_strategy(view, legal, SplitMix64(1))
        if len(legal) > 2 and prior != legal[0]:
            break
        match.apply(choose("heuristic", view, legal, match.deal.seed))
    other = next(a for a in legal if a != prior)
    for lead, expected_up_to in ((0.5, prior), (1.5, other)):  # the search rates `other` ahead by `lead` points
        def values(view, ruleset, ids, **kwargs):
            return [lead if ACTIONS[i] == other else 0.0 for i in ids]

        monkeypatch.setattr(search, "pimc_values", values)
        chosen = search.expert_strategy(view, legal, SplitMix64(1), rules)
        assert chosen == (expected_up_to if rules.draw == "up_to" else other), (preset, lead)
