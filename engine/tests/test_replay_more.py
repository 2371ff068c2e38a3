"""``replay_more``: a state brought up to date with the plies stored after it equals a replay from the start, from
any position (the seat view's state cache, games.state_cache, stands on it)."""

import pytest

from eights_engine import MatchState, ReplayMismatch, Ruleset, choose, replay, replay_more


def _played(preset, seats, seed):
    state = MatchState.start(Ruleset.preset(preset), seats, seed)
    while not state.is_over:
        seat = state.to_play
        state.apply(choose("eager", state.view(seat), state.legal_actions(), state.deal.seed))
    return state.record()


def _tail(record, deal_number, done):
    """The record's deals from ``deal_number`` on, the first without its ``done`` first actions."""
    deals = [dict(d) for d in record["deals"][deal_number - 1:]]
    deals[0]["actions"] = deals[0]["actions"][done:]
    return deals


def _upto(record, plies):
    """A replay of the record's first ``plies`` plies (every deal's points kept where the deal is whole)."""
    cut, left = [], plies
    for deal in record["deals"]:
        if left <= 0:
            break
        part = {**deal, "actions": deal["actions"][:left]}
        if left < len(deal["actions"]):
            part.pop("points", None)
        cut.append(part)
        left -= len(deal["actions"])
    return replay({**record, "deals": cut or record["deals"][:1]})


@pytest.mark.parametrize("preset,seats,seed", [("pagat", 2, 3), ("web-table", 3, 11), ("eights-classic", 4, 7), ("hollywood", 2, 4)])
def test_a_state_brought_forward_from_any_ply_equals_a_replay_from_the_start(preset, seats, seed):
    record = _played(preset, seats, seed)
    total = sum(len(d["actions"]) for d in record["deals"])
    whole = replay(record)
    for plies in sorted({0, 1, 2, total // 3, total // 2, total - 1, total} | set(range(0, total, 37))):
        state = _upto(record, plies)
        brought = replay_more(state, _tail(record, state.deal_number, len(state.deal_ids[-1])))
        assert brought.record() == whole.record()
        assert brought.totals == whole.totals and brought.is_over
        assert [brought.view(s) for s in range(seats)] == [whole.view(s) for s in range(seats)]


def test_it_refuses_a_tail_that_does_not_follow_the_state():
    record = _played("pagat", 2, 3)
    state = _upto(record, 5)
    with pytest.raises(ReplayMismatch):  # the plies from the deal's start again: the first is not legal any more,
        replay_more(state, _tail(record, 1, 0))  # or the deal does not end where its points say
    state = _upto(record, 5)
    with pytest.raises(ReplayMismatch, match="key"):
        replay_more(state, [{**_tail(record, 1, 5)[0], "key": "00" * 32}])
