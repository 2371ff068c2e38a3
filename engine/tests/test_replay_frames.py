"""The replay viewer's data (``eights_engine.frames``, issue 11 item 3): for every golden playthrough the frames,
decoded ply by ply, equal the engine's own state after each ply (hands, top card, suit to follow and whether it was
declared, stock and discard sizes, the seat to play, pending draws, direction, match totals, the public log)."""

import json

import pytest

from eights_engine import MatchState
from eights_engine.frames import positions, replay_frames
from eights_engine.match import ReplayMismatch, start_from_record
from eights_engine.playthrough import SCENARIOS
from eights_engine.strategies import choose


def played(sc) -> MatchState:
    """The scenario's match played to its end exactly as its golden playthrough file shows it."""
    state = MatchState.start(sc.ruleset(), sc.seats, sc.seed, version=sc.version)
    strategies = sc.seat_strategies()
    while not state.is_over:
        seat = state.to_play
        state.apply(choose(strategies[seat], state.view(seat), state.legal_actions(), state.deal.seed))
    return state


def engine_positions(record: dict):
    """Per deal, per ply (0 = as dealt), what the engine itself says, read through its public API (views)."""
    state = start_from_record({**record, "ruleset": played_ruleset(record).to_dict()})
    for deal_record in record["deals"]:
        deal = state.deal
        rows = [_facts(state, deal)]
        for action in deal_record["actions"]:
            logged = len(deal.history)
            state.apply(action)
            rows.append({**_facts(state, deal), "log": deal.history[logged:]})
        yield rows


def played_ruleset(record):
    from eights_engine import Ruleset

    return Ruleset.from_dict(record["ruleset"])


def _facts(state: MatchState, deal) -> dict:
    view = deal.view(0)
    return {"hands": [deal.hand(s) for s in range(deal.seats)], "top": view["top_card"], "suit": view["active_suit"],
            "declared": view["declared"], "stock": view["stock_count"], "discard": view["discard_count"],
            "to_play": view["to_play"], "pending": view["pending_draw"], "direction": view["direction"],
            "awaiting": view["awaiting_declaration"], "out": view["out"], "totals": list(state.totals)}


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: sc.name)
def test_the_frames_equal_the_engine_ply_by_ply(sc):
    state = played(sc)
    record = state.record()
    frames = json.loads(json.dumps(replay_frames(record)))  # as the page receives them
    assert frames["seats"] == sc.seats and len(frames["deals"]) == state.deal_number
    for number, (deal_frames, expected) in enumerate(zip(frames["deals"], engine_positions(record), strict=True), 1):
        shown = positions(deal_frames)
        assert len(shown) == len(expected) == len(record["deals"][number - 1]["actions"]) + 1
        for ply, (got, want) in enumerate(zip(shown, expected)):
            for key in want.keys() - {"log"}:
                assert got[key] == want[key], f"{sc.name} deal {number} ply {ply}: {key} {got[key]!r} != {want[key]!r}"
            if ply:
                assert deal_frames["plies"][ply - 1]["log"] == want["log"], f"{sc.name} deal {number} ply {ply}"
        result = state.results[number - 1]
        assert deal_frames["result"] == {"outcome": result.outcome, "winner": result.winner,
                                         "hand_values": result.hand_values, "points": result.points,
                                         "totals": expected[-1]["totals"]}
        assert deal_frames["dealer"] == record["deals"][number - 1].get("dealer", deal_frames["dealer"])
    assert frames["deals"][-1]["result"]["totals"] == state.totals


def test_frames_carry_think_times_and_faults_where_given():
    state = played(SCENARIOS[0])
    record = state.record()
    moves = [[{"think_ms": 0, "source": "agent", "fault_kind": "", "fault": ""} for _ in d["actions"]]
             for d in record["deals"]]
    moves[0][2] = {"think_ms": 1500, "source": "fallback", "fault_kind": "timeout", "fault": "no answer in 1000 ms"}
    moves[1][0]["think_ms"] = 42
    frames = replay_frames(record, moves)
    assert frames["deals"][0]["plies"][2]["fault"] == {"kind": "timeout", "detail": "no answer in 1000 ms"}
    assert frames["deals"][0]["plies"][2]["ms"] == 1500 and frames["deals"][1]["plies"][0]["ms"] == 42
    assert all("fault" not in p for d in frames["deals"] for i, p in enumerate(d["plies"]) if (d["number"], i) != (1, 2))
    assert all("ms" not in p for p in frames["deals"][0]["plies"][3:])


def test_a_record_that_does_not_replay_is_refused_naming_the_ply():
    record = played(SCENARIOS[0]).record()
    record["deals"][0]["actions"][3] = {"type": "play", "card": "8S", "suit": "H"} \
        if record["deals"][0]["actions"][3] != {"type": "play", "card": "8S", "suit": "H"} else {"type": "pass"}
    with pytest.raises(ReplayMismatch, match="deal 1 ply 4"):
        replay_frames(record)


def test_a_reshuffle_shows_in_the_frames():
    """The stock refills from the discard pile in one delta, with its log entry, as the engine logs it."""
    sc = next(s for s in SCENARIOS if s.name == "double-deck-6")
    frames = replay_frames(played(sc).record())
    shuffles = [(d, p) for d in frames["deals"] for p in d["plies"] if any(e["type"] == "reshuffle" for e in p["log"])]
    assert shuffles, "the scenario is chosen because its stock runs out"
    for deal_frames, delta in shuffles:
        count = next(e["count"] for e in delta["log"] if e["type"] == "reshuffle")
        assert delta["discard"] == 1 and delta["stock"] >= count - sum(len(c) for c in delta.get("gain", {}).values())
