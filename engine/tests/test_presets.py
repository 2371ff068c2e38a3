"""Every preset of RULES.md ("Presets the engine must ship"): its key options, and a behaviour that shows each."""

import pytest

from engine_test_helpers import DRAW, PASS, all_cards, full_deck, play, pos, rules
from eights_engine import PRESETS, Deal, MatchState, Ruleset

KEY_OPTIONS = {
    "pagat": dict(draw="one", play_after_draw="drawn_only", voluntary_draw=True, starter_eight="dealer_declares",
                  scoring="penalty", target=100, target_per_seat=0, first_player="left_of_dealer",
                  empty_stock="reshuffle", blocked="each_own", hand_size="auto", decks="auto", ranks="52"),
    "web-table": dict(draw="up_to", draw_limit=3, voluntary_draw=True, starter_eight="own_suit",
                      first_player="previous_winner", scoring="penalty", target=100, empty_stock="reshuffle",
                      play_after_draw="any", go_out_on_eight=True),
    "eights-classic": dict(draw="until_playable", starter_eight="reshuffle", scoring="winner_collects",
                           blocked="lowest_collects_difference", blocked_tie="split", decks="auto",
                           empty_stock="pass"),
    "crazy-eights": dict(draw="until_playable", starter_eight="bury", scoring="winner_collects", target=300,
                         seats_max=4, hand_size=5, empty_stock="reshuffle"),
    "points-game": dict(scoring="winner_collects", target_per_seat=50, dealer_rotates=True,
                        blocked="lowest_collects_difference", blocked_tie="nobody", draw="until_playable"),
    "hollywood": dict(seats_min=2, seats_max=2, card_values="hollywood", scoring="hollywood", hollywood_games=3,
                      hollywood_total_games=3, target=100, target_reached_wins=True),
    "no-draw": dict(seats_min=4, seats_max=4, hand_size="all", empty_stock="pass"),
    "russian-36": dict(ranks="36", hand_size=5, draw="up_to", draw_limit=1),
}


def test_every_preset_is_tested_here():
    assert set(KEY_OPTIONS) == set(PRESETS)


@pytest.mark.parametrize("name", sorted(KEY_OPTIONS))
def test_preset_key_options(name):
    r = Ruleset.preset(name)
    for field, value in KEY_OPTIONS[name].items():
        assert getattr(r, field) == value, f"{name}.{field}"
    assert Ruleset.from_dict(r.to_dict()) == r
    assert Ruleset.preset(name, target=123).target == 123


def test_unknown_preset_and_field():
    with pytest.raises(ValueError, match="unknown preset"):
        Ruleset.preset("canasta")
    with pytest.raises(ValueError, match="'jokers'"):
        Ruleset.preset("pagat", jokers=True)
    with pytest.raises(ValueError, match="'draw_limit'"):
        Ruleset.preset("web-table", draw_limit=0)


@pytest.mark.parametrize("name,seats", [("pagat", 2), ("pagat", 8), ("web-table", 3), ("eights-classic", 7),
                                        ("crazy-eights", 4), ("points-game", 7), ("hollywood", 2), ("no-draw", 4),
                                        ("russian-36", 6)])
def test_preset_deals_whole_deck(name, seats):
    deal = Deal.start(Ruleset.preset(name), seats, 21)
    assert all_cards(deal) == full_deck(deal)
    m = MatchState.start(Ruleset.preset(name), seats, 21)
    assert m.deal.seats == seats


def test_pagat_behaviour_draw_one_keep_playable():
    deal = pos(rules("pagat"), [["2H", "3C"], ["3D"]], ["9H", "4D"], ["5H"])
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("9H"), PASS]


def test_web_table_behaviour_voluntary_draw_any_card_after_drawing():
    deal = pos(rules("web-table"), [["2H", "3C"], ["3D"]], ["9S", "4D", "6D", "7D"], ["5H"])
    assert deal.legal_actions() == [play("2H"), DRAW]
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("2H"), DRAW]  # the drawn 9S does not fit, 2H still may be played


def test_eights_classic_behaviour_double_deck_and_forced_play():
    assert Ruleset.preset("eights-classic").deck_count(6) == 2
    assert Ruleset.preset("eights-classic").deck_count(5) == 1
    deal = pos(rules("eights-classic"), [["2H", "3C"], ["3D"]], ["9S"], ["5H"])
    assert deal.legal_actions() == [play("2H")]


def test_crazy_eights_behaviour_draw_until_playable_target_300():
    deal = pos(rules("crazy-eights"), [["2C"], ["3D"]], ["9S", "4H"], ["5H"])
    deal.apply(DRAW)
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("4H")]
    assert MatchState.start(rules("crazy-eights"), 4, 1).target == 300


def test_points_game_behaviour_target_per_seat():
    assert MatchState.start(rules("points-game"), 4, 1).target == 200


def test_hollywood_behaviour_three_games():
    m = MatchState.start(rules("hollywood"), 2, 1)
    assert [g["game"] for g in m.hollywood.open] == [1, 2, 3]


def test_no_draw_behaviour_thirteen_each_no_stock():
    deal = Deal.start(rules("no-draw"), 4, 2)
    assert [len(deal.hand(s)) for s in range(4)] == [13] * 4 and deal.stock_count == 0


def test_russian_36_behaviour_draw_at_most_one_then_must_play_or_pass():
    deal = pos(rules("russian-36"), [["JC", "KH"], ["7D"]], ["9S", "6D"], ["7H"])
    assert deal.legal_actions() == [play("KH"), DRAW]
    deal.apply(DRAW)  # the one card: 9S does not fit, but KH does (play_after_draw "any")
    assert deal.legal_actions() == [play("KH")]  # limit used up and a play exists: must play
    deal = pos(rules("russian-36"), [["JC"], ["7D"]], ["9S", "6D"], ["7H"])
    deal.apply(DRAW)
    assert deal.legal_actions() == [PASS]  # B: pass is legal once the limit is used and no play exists
    deal.apply(PASS)
    assert deal.to_play == 1


def test_hollywood_is_system_a_with_a1_changes_only():
    """A1 changes only the number of players, the card values and the three-game ledger: everything else is
    System A (eights-classic): forced play, draw until playable, pass when the stock is exhausted, lowest
    collects the difference on a blocked deal (issue 9 fault 5)."""
    a, a1 = rules("eights-classic").to_dict(), rules("hollywood").to_dict()
    changed = {k for k in a if a[k] != a1[k]}
    assert changed == {"seats_max", "scoring", "card_values"}


def test_hollywood_forced_play_and_pass_on_exhausted_stock():
    deal = pos(rules("hollywood"), [["2H", "3C"], ["3D"]], ["9S"], ["5H"])
    assert deal.legal_actions() == [play("2H")]  # forced play: no draw while holding a playable card
    deal = pos(rules("hollywood"), [["2C"], ["3D"]], [], ["KD", "5H"])
    assert deal.legal_actions() == [PASS]  # the stock is exhausted: no reshuffle, the seat passes


def test_hollywood_blocked_deal_lowest_collects_the_difference():
    deal = pos(rules("hollywood"), [["2C"], ["KD"]], [], ["5H"])
    deal.apply(PASS)
    deal.apply(PASS)
    assert deal.result.outcome == "blocked"
    assert deal.result.hand_values == [2, 10] and deal.result.points == [8, 0]


def test_hollywood_match_where_a_fourth_game_opens():
    """RULES.md A1: "when one game ends at 100, a new game opens in its place; how many games to play is agreed
    before the first deal" (``hollywood_total_games``, default 3: with the default no fourth game opens)."""
    from eights_engine.strategies import choose
    state = MatchState.start(rules("hollywood", hollywood_total_games=4), 2, 5)
    opened = set()
    while not state.is_over:
        opened |= {g["game"] for g in state.hollywood.open}
        seat = state.to_play
        state.apply(choose("heuristic", state.view(seat), state.legal_actions(), state.deal.seed))
    h = state.hollywood
    assert 4 in opened and h.opened == 4
    assert len(h.finished) == 4 and sum(h.games_won) == 4 and state.totals == h.games_won
    assert sorted(g["game"] for g in h.finished) == [1, 2, 3, 4]
