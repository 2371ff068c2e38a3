"""The referee (eights_engine.referee): a seat's Turn shows only what the seat may see; one judge checks every
answer, plays the fallback on a fault, counts consecutive faults and declares the forfeit."""

from __future__ import annotations

import dataclasses
import json

import pytest

from eights_engine import STRATEGIES, IllegalAction, MatchState, PRESETS, Ruleset, choose
from eights_engine.cards import card_code
from eights_engine.referee import (
    AGENT, FALLBACK, ILLEGAL, Answer, Fault, FaultPolicy, Ruling, Turn, judge, play_turn, turn_for,
)
from eights_engine.strategies import choose_turn, fallback_action, strategy_rng

#: The fault kinds the askers report (eights_engine.bots.protocol.FAULT_KINDS without "illegal", which the referee finds
#: itself, plus a person's "clock").
ASKER_FAULTS = ["timeout", "connection", "address", "http_status", "redirect", "oversize", "bad_json", "schema",
                "disabled", "clock"]
#: Every key a view may have (DESIGN.md, "Hidden information"; docs/BOT_PROTOCOL.md, "The view").
PUBLIC_VIEW_KEYS = {"seat", "to_play", "dealer", "hand", "hand_counts", "top_card", "active_suit", "declared",
                    "stock_count", "discard_count", "draws_left", "drawn_card", "awaiting_declaration",
                    "pending_draw", "direction", "announced", "out", "ply", "history", "result", "deal_number",
                    "totals", "target", "hollywood"}


def match_where(predicate, preset="pagat", seats=2, seeds=range(1, 400), max_plies=400, **overrides) -> MatchState:
    """The first position (seeded matches, the random house strategy at every seat) where ``predicate(state)``."""
    rules = Ruleset.preset(preset, **overrides)
    for seed in seeds:
        state = MatchState.start(rules, seats, seed)
        for _ in range(max_plies):
            if state.is_over:
                break
            if predicate(state):
                return state
            state.apply(choose("random", state.view(state.to_play), state.legal_actions(), state.deal.seed))
    raise AssertionError("no position found")


def legal_types(state):
    return [a["type"] for a in state.legal_actions()]


def illegal_play(state) -> dict:
    """A play of a card the seat to play holds but may not play now."""
    legal = state.legal_actions()
    for card in state.deal.hand(state.to_play):
        action = {"type": "play", "card": card}
        if card[0] != "8" and action not in legal:
            return action
    raise AssertionError("every card is playable here")


def has_illegal_play(state) -> bool:
    legal = state.legal_actions()
    return any(c[0] != "8" and {"type": "play", "card": c} not in legal for c in state.deal.hand(state.to_play))


def unchanged(state):
    return json.dumps([state.view(s) for s in range(state.seats)], sort_keys=True), state.legal_actions()


# -- the turn ----------------------------------------------------------------------------------------------------

def test_a_turn_holds_the_seats_view_its_legal_actions_and_the_match_facts():
    state = match_where(lambda s: s.deal_number == 2 and s.deal.ply == 3)
    turn = turn_for(state, match_id=7, deadline_ms=1000, time_bank_ms=5000, last_latency_ms=12)
    seat = state.to_play
    assert turn.seat == seat and turn.view == state.view(seat)
    assert list(turn.legal_actions) == state.legal_actions()
    assert (turn.ply, turn.deal_number, turn.totals) == (3, 2, tuple(state.totals))
    assert turn.ruleset == state.ruleset
    assert (turn.match_id, turn.deadline_ms, turn.time_bank_ms, turn.last_latency_ms) == (7, 1000, 5000, 12)
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.seat = 1  # type: ignore[misc]


def test_a_turn_has_exactly_the_documented_fields():
    """A new field must be looked at here (and in the walk below) before any agent gets it."""
    assert [f.name for f in dataclasses.fields(Turn)] == [
        "seat", "view", "legal_actions", "ply", "deal_number", "totals", "ruleset", "deadline_ms", "time_bank_ms",
        "last_latency_ms", "match_id", "commitment"]


def _walk(value, strings: set, ints: set, path: str, history_ok: bool = False) -> None:
    """Every string and int anywhere in ``value`` (dataclasses, dicts, lists, tuples), except inside the view's
    public ``history`` (checked on its own: after a reshuffle, cards once played are back in the stock)."""
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), strings, ints, f"{path}.{f.name}")
    elif isinstance(value, dict):
        for key, item in value.items():
            strings.add(key)
            if key == "history" and path.endswith(".view"):
                for entry in item:
                    assert set(entry) <= {"seat", "type", "card", "suit", "count", "penalty"}, entry
                    assert entry["type"] == "play" or "card" not in entry, f"{path}.history shows a drawn card"
                continue
            _walk(item, strings, ints, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for item in value:
            _walk(item, strings, ints, path)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        ints.add(value)
    elif isinstance(value, str):
        strings.add(value)
    else:
        raise AssertionError(f"{path} holds a {type(value).__name__}: look at what it may show")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_turn_shows_no_other_hand_no_stock_and_no_seed(preset):
    """Every field of every turn of seeded matches, walked: no card of another hand or of the stock, no seed."""
    rules = Ruleset.preset(preset)
    seats = max(rules.seats_min, min(3, rules.seats_max))  # one deck: a card code names one card
    seed = 8_765_432_123 + len(preset)
    state = MatchState.start(rules, seats, seed)
    for _ in range(150):
        if state.is_over:
            break
        deal = state.deal
        turn = turn_for(state, match_id=1, deadline_ms=1000, time_bank_ms=5000, last_latency_ms=3)
        strings, ints = set(), set()
        _walk(turn, strings, ints, "turn")
        hidden = {card_code(c) for c in deal.stock}
        for other in range(seats):
            if other != turn.seat:
                hidden |= set(deal.hand(other))
        assert not strings & hidden, f"ply {deal.ply}: the turn shows hidden cards {strings & hidden}"
        assert set(turn.view) <= PUBLIC_VIEW_KEYS
        assert not ints & {seed, deal.seed}, "the turn shows a seed"
        state.apply(choose("random", turn.view, list(turn.legal_actions), deal.seed))


def test_there_is_no_turn_once_the_match_is_over():
    state = MatchState.start(Ruleset.preset("pagat"), 2, 1, single_deal={"key": "05" * 32, "dealer": 1})
    while not state.is_over:
        state.apply(fallback_action(state.legal_actions()))
    with pytest.raises(ValueError, match="the match is over"):
        turn_for(state)
    with pytest.raises(IllegalAction, match="the match is over"):
        judge(state, Answer(action={"type": "draw"}))
    with pytest.raises(ValueError, match="deadline_ms"):
        turn_for(MatchState.start(Ruleset.preset("pagat"), 2, 1), deadline_ms=-1)


# -- the judge ---------------------------------------------------------------------------------------------------

def test_an_answer_that_stands_is_played_as_given_and_clears_the_fault_count():
    state = match_where(lambda s: s.deal.ply == 2)
    before = unchanged(state)
    action = state.legal_actions()[-1]
    ruling = judge(state, Answer(action=action, think_ms=40, time_bank_ms=4900), faults_before=2,
                   policy=FaultPolicy(max_faults=3))
    assert isinstance(ruling, Ruling)
    assert (ruling.source, ruling.action, ruling.fault, ruling.faults, ruling.forfeit) == (AGENT, action, None, 0,
                                                                                          False)
    assert (ruling.fault_kind, ruling.fault_text) == ("", "")
    assert (ruling.seat, ruling.ply, ruling.deal_number) == (state.to_play, 2, state.deal_number)
    assert ruling.answer.think_ms == 40 and ruling.answer.time_bank_ms == 4900
    assert unchanged(state) == before, "judge changes nothing"


def test_an_illegal_answer_is_an_illegal_fault_with_the_engines_reason_and_the_fallback_is_played():
    state = match_where(has_illegal_play)
    bad = illegal_play(state)
    with pytest.raises(IllegalAction) as reason:
        state.deal.action_id(bad)
    ruling = judge(state, Answer(action=bad), faults_before=0, policy=FaultPolicy(max_faults=3))
    assert ruling.source == FALLBACK and ruling.fault.kind == ILLEGAL == "illegal"
    assert ruling.fault_text == f"illegal: illegal action {json.dumps(bad)}: {reason.value}"
    assert ruling.action == fallback_action(state.legal_actions()) and ruling.faults == 1 and not ruling.forfeit


@pytest.mark.parametrize("action", [None, "draw", {"type": "fly"}, {"type": "play"}, {"type": "play", "card": "ZZ"}])
def test_a_malformed_answer_is_an_illegal_fault(action):
    state = MatchState.start(Ruleset.preset("pagat"), 2, 3)
    ruling = judge(state, Answer(action=action))
    assert ruling.fault_kind == "illegal" and ruling.source == FALLBACK


@pytest.mark.parametrize("kind", ASKER_FAULTS)
def test_every_fault_an_asker_reports_plays_the_fallback_and_keeps_the_cause(kind):
    state = match_where(lambda s: s.deal.ply == 1)
    legal = state.legal_actions()
    ruling = judge(state, Answer(action=legal[0], fault=Fault(kind, "what went wrong"), think_ms=1001),
                   faults_before=1, policy=FaultPolicy(max_faults=3))
    assert ruling.source == FALLBACK and ruling.action == fallback_action(legal), "a faulted answer's action is ignored"
    assert (ruling.fault_kind, ruling.fault_text) == (kind, f"{kind}: what went wrong")
    assert ruling.faults == 2 and not ruling.forfeit and ruling.answer.think_ms == 1001


def test_the_fallback_draws_when_it_may():
    state = match_where(lambda s: "draw" in legal_types(s) and legal_types(s)[0] != "draw")
    assert judge(state, Answer(fault=Fault("timeout", "slow"))).action == {"type": "draw"}


def test_the_fallback_passes_when_it_may_not_draw():
    state = match_where(lambda s: "draw" not in legal_types(s) and "pass" in legal_types(s)
                        and legal_types(s)[0] != "pass")
    assert judge(state, Answer(fault=Fault("timeout", "slow"))).action == {"type": "pass"}


def test_the_fallback_is_the_first_legal_action_when_it_may_neither_draw_nor_pass():
    state = match_where(lambda s: "draw" not in legal_types(s) and "pass" not in legal_types(s), preset="web-table")
    assert judge(state, Answer(fault=Fault("timeout", "slow"))).action == state.legal_actions()[0]


def test_a_dealer_who_must_declare_falls_back_on_the_first_suit():
    state = match_where(lambda s: legal_types(s) == ["declare"] * 4, max_plies=1, seeds=range(2000))
    ruling = judge(state, Answer(fault=Fault("clock", "no move within 60 s")))
    assert ruling.action == {"type": "declare", "suit": "C"}


@pytest.mark.parametrize("faults_before, faults, forfeit", [(0, 1, False), (1, 2, False), (2, 3, True), (5, 6, True)])
def test_consecutive_faults_forfeit_at_the_policys_limit(faults_before, faults, forfeit):
    state = match_where(lambda s: s.deal.ply == 1)
    ruling = judge(state, Answer(fault=Fault("timeout", "slow")), faults_before=faults_before,
                   policy=FaultPolicy(max_faults=3))
    assert (ruling.faults, ruling.forfeit) == (faults, forfeit)


def test_a_seat_without_a_fault_limit_never_forfeits():
    state = match_where(lambda s: s.deal.ply == 1)
    ruling = judge(state, Answer(fault=Fault("illegal", "x")), faults_before=999, policy=FaultPolicy())
    assert ruling.faults == 1000 and not ruling.forfeit
    with pytest.raises(ValueError, match="max_faults"):
        FaultPolicy(max_faults=0)


def test_a_persons_illegal_move_is_refused_with_the_reason_and_is_no_fault():
    state = match_where(has_illegal_play)
    before = unchanged(state)
    bad = illegal_play(state)
    person = FaultPolicy(max_faults=3, refuse_illegal=True)
    with pytest.raises(IllegalAction) as refused:
        judge(state, Answer(action=bad), faults_before=2, policy=person)
    with pytest.raises(IllegalAction) as reason:
        state.deal.action_id(bad)
    assert str(refused.value) == str(reason.value)
    assert unchanged(state) == before
    # a person's clock running out is still a fault: the fallback is played and counted
    ruling = judge(state, Answer(fault=Fault("clock", "no move within 60 s")), faults_before=2, policy=person)
    assert ruling.source == FALLBACK and ruling.faults == 3 and ruling.forfeit


# -- play_turn: ask, judge, apply ------------------------------------------------------------------------------

def test_play_turn_asks_the_agent_with_the_turn_only_and_applies_the_ruling():
    state = match_where(lambda s: s.deal.ply == 4)
    expected = turn_for(state, deadline_ms=500)
    asked = []

    def agent(turn):
        asked.append(turn)
        return turn.legal_actions[0]  # a bare action is an answer

    ruling = play_turn(state, agent, deadline_ms=500)
    assert asked == [expected] and type(asked[0]) is Turn
    assert ruling.source == AGENT and ruling.action == expected.legal_actions[0]
    assert state.deal.ply == 5 or state.deal_number == expected.deal_number + 1


def test_play_turn_leaves_the_state_alone_when_the_agent_has_no_answer_yet():
    state = match_where(lambda s: s.deal.ply == 4)
    before = unchanged(state)
    assert play_turn(state, lambda turn: None) is None
    assert unchanged(state) == before


def test_play_turn_applies_the_fallback_and_reports_the_forfeit():
    state = match_where(lambda s: s.deal.ply == 4)
    fallback = fallback_action(state.legal_actions())
    twin = MatchState.start(state.ruleset, state.seats, state.seed)
    for actions in state.deal_actions:
        for action in actions:
            twin.apply(action)
    twin.apply(fallback)
    ruling = play_turn(state, lambda turn: Answer(fault=Fault("bad_json", "not JSON")), faults_before=2,
                       policy=FaultPolicy(max_faults=3))
    assert ruling.forfeit and ruling.action == fallback
    assert state.record() == twin.record()


# -- house strategies answer the same Turn --------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_house_strategy_given_the_turn_chooses_as_from_the_view(name):
    state = MatchState.start(Ruleset.preset("pagat"), 3, 4242)
    for _ in range(200):
        if state.is_over:
            break
        turn = turn_for(state)
        seen = []
        real = STRATEGIES[name]
        try:
            STRATEGIES[name] = lambda view, legal, rng: seen.append((view, legal)) or real(view, legal, rng)
            action = choose_turn(name, turn, strategy_rng(state.deal.seed, turn.ply, turn.seat))
        finally:
            STRATEGIES[name] = real
        assert seen == [(turn.view, list(turn.legal_actions))], "the strategy sees the turn's view and legal actions"
        assert action == choose(name, state.view(turn.seat), state.legal_actions(), state.deal.seed)
        state.apply(action)
    with pytest.raises(ValueError, match="unknown strategy"):
        choose_turn("nope", turn_for(MatchState.start(Ruleset.preset("pagat"), 2, 1)), strategy_rng(1, 0, 0))
