"""The reshuffle as a public history entry of its own (issue 10, part 3): when the stock runs out and the cards
under the discard pile's top card are shuffled into a new stock, ``Deal.history`` records ``{"seat", "type":
"reshuffle", "count"}`` (``seat``: whose draw found the stock empty; ``count``: cards that went back). It is not
a ply, every seat's view shows it, and it comes before the draw that needed it (RULES.md B C D, the reshuffle)."""

from engine_test_helpers import DRAW, play, pos, rules
from eights_engine import MatchState, Ruleset, replay

RESHUFFLE = {"type": "reshuffle"}


def reshuffles(deal):
    return [e for e in deal.history if e["type"] == "reshuffle"]


def test_a_draw_from_an_empty_stock_records_the_reshuffle_before_the_draw_and_not_as_a_ply():
    deal = pos(rules(), [["KC", "4S"], ["3D"]], [], ["2H", "3H", "4C", "8C"], declared_suit="H")
    deal.apply(DRAW)
    assert deal.ply == 1  # one ply: the draw; the reshuffle is an event, not a ply
    assert deal.history[0] == {"seat": 0, "type": "reshuffle", "count": 3}
    assert deal.history[1] == {"seat": 0, "type": "draw"}
    assert len(deal.history) == 2
    for seat in range(2):
        assert deal.view(seat)["history"][0] == {"seat": 0, "type": "reshuffle", "count": 3}
        assert deal.view(seat)["ply"] == 1


def test_no_entry_while_the_stock_has_cards():
    deal = pos(rules(), [["KC", "4S"], ["3D"]], ["9D"], ["2H", "3H", "4C", "8C"], declared_suit="H")
    deal.apply(DRAW)
    assert reshuffles(deal) == []


def test_a_penalty_draw_that_empties_the_stock_records_the_reshuffle_inside_it():
    r = rules(twos="stack")
    deal = pos(r, [["KC"], ["3D", "9S"]], ["5C"], ["7H", "JD", "4S", "2H"], to_play=0, pending_draw=2)
    deal.apply(DRAW)  # 5C from the stock, then the reshuffle of 7H JD 4S under the 2H, then one more
    assert deal.ply == 1
    assert deal.history == [{"seat": 0, "type": "reshuffle", "count": 3},
                            {"seat": 0, "type": "draw", "count": 2, "penalty": True}]
    assert len(deal.hand(0)) == 3 and deal.stock_count == 2


def test_the_last_card_penalty_records_the_reshuffle():
    r = rules(last_card_penalty=2)
    deal = pos(r, [["3H", "9C"], ["4D"]], ["KS"], ["JD", "QC", "5H"])
    deal.apply(play("3H"))  # forgot to announce: KS, then the pile under the 3H (JD QC 5H) goes back
    assert deal.ply == 1
    assert deal.history == [{"seat": 0, "type": "play", "card": "3H"},
                            {"seat": 0, "type": "reshuffle", "count": 3},
                            {"seat": 0, "type": "penalty", "count": 2}]


def test_the_entry_counts_every_reshuffle_of_a_long_penalty():
    r = rules(twos="stack")
    deal = pos(r, [["KC"], ["3D", "9S"]], [], ["7H", "2S", "2H"], to_play=0, pending_draw=4)
    deal.apply(DRAW)  # 7H 2S go back, both drawn; the stock is empty again with only the 2H: the rest lapses
    assert deal.history == [{"seat": 0, "type": "reshuffle", "count": 2},
                            {"seat": 0, "type": "draw", "count": 2, "penalty": True}]


def test_a_replayed_match_shows_the_reshuffle_and_keeps_its_ply_numbers():
    rules_ = Ruleset.preset("pagat")
    for seed in range(1, 400):
        state = MatchState.start(rules_, 2, seed)
        while state.deal_number == 1 and not state.is_over and not state.deal.reshuffles:
            state.apply(state.legal_actions()[-1] if state.deal.ply % 3 == 0 else state.legal_actions()[0])
        if state.deal_number == 1 and state.deal.reshuffles:
            break
    else:
        raise AssertionError("no seed reshuffles")
    deal = state.deal
    entry = reshuffles(deal)[0]
    assert entry["count"] >= 1 and set(entry) == {"seat", "type", "count"}
    assert deal.ply == sum(1 for e in deal.history if e["type"] not in ("reshuffle", "penalty"))
    again = replay(state.record())
    assert again.deal.history == deal.history and again.deal.ply == deal.ply
    assert again.view(0)["history"] == again.view(1)["history"] == deal.history
