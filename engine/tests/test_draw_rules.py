"""Draw rules on hand-built positions: ``draw`` (one / until_playable / up_to with ``draw_limit``),
``play_after_draw`` (drawn_only / any / none), ``voluntary_draw`` (false = forced play) and ``empty_stock``
(reshuffle / pass), with their IllegalAction messages (RULES.md systems A B C D; DESIGN.md "Ruleset fields")."""

import pytest

from engine_test_helpers import (
    DRAW, PASS, all_cards, assert_illegal, cards_played, play, plays_of, pos, rules, stock_codes,
)
from eights_engine import Deal
from eights_engine.cards import card_code, parse_card
from eights_engine.rng import SplitMix64

UNTIL = rules(draw="until_playable")
UP_TO_2 = rules(draw="up_to", draw_limit=2, play_after_draw="any")
WEB = rules("web-table")


def reshuffled(discard_codes, k, seed=0):
    """The documented k-th reshuffle of a deal with ``seed``: every card under the top, shuffled by
    SplitMix64(seed, k) (Fisher-Yates); the new stock's top is the list's last item."""
    cards = [parse_card(c) for c in discard_codes[:-1]]
    SplitMix64(seed, k).shuffle(cards)
    return cards


# ---- draw = "one" with play_after_draw any / none ----------------------------------------------------------

def test_one_any_after_a_voluntary_draw_any_legal_card_may_be_played():
    deal = pos(rules(play_after_draw="any"), [["2H", "3C"], ["3D"]], ["9S", "4D"], ["5H"])
    deal.apply(DRAW)  # 9S does not fit, but 2H does: the turn goes on
    assert deal.to_play == 0
    assert deal.legal_actions() == [play("2H"), PASS]
    assert deal.view(0)["draws_left"] == 0
    assert_illegal(deal, DRAW, "already drawn your card this turn")
    assert_illegal(deal, play("9S"), "does not fit", "needs a heart")
    deal.apply(play("2H"))
    assert deal.to_play == 1 and sorted(deal.hand(0)) == ["3C", "9S"]


def test_one_any_unplayable_draw_with_nothing_else_ends_the_turn():
    deal = pos(rules(play_after_draw="any"), [["2C", "3C"], ["3D"]], ["9S", "4D"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 1


def test_one_none_the_turn_ends_even_when_the_drawn_card_fits():
    deal = pos(rules(play_after_draw="none"), [["2C"], ["3D"]], ["9H", "4D"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 1
    assert sorted(deal.hand(0)) == ["2C", "9H"]
    assert deal.top_card == "5H"


def test_up_to_none_message_after_draw():
    deal = pos(rules(draw="up_to", play_after_draw="none"), [["2H"], ["3D"]], ["9H", "4D", "6D"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 1  # "none": drawing ends the turn, whatever the draw limit
    deal = Deal.from_position(rules(draw="up_to", play_after_draw="none"), [["2H", "9H"], ["3D"]], ["4D"], ["5H"],
                              0, drawn_this_turn=1, drawn_card="9H")
    assert plays_of(deal) == []
    assert_illegal(deal, play("2H"), "after drawing the turn ends without a play")


# ---- draw = "until_playable" -----------------------------------------------------------------------------

def test_until_playable_draws_until_a_card_fits_then_must_play_it():
    deal = pos(UNTIL, [["2C"], ["3D"]], ["9S", "KD", "4H", "6D"], ["5H"])
    assert deal.view(0)["draws_left"] is None
    for n in (1, 2):
        deal.apply(DRAW)
        assert deal.to_play == 0 and deal.legal_actions() == [DRAW], n
        assert_illegal(deal, PASS, "cannot pass while you can still draw")
    deal.apply(DRAW)  # 4H fits
    assert deal.legal_actions() == [play("4H")]
    assert_illegal(deal, DRAW, "you drew a playable card: play it")
    assert_illegal(deal, PASS, "cannot pass while you can play", "4H")
    assert_illegal(deal, play("2C"), "after drawing only the drawn card (4H) may be played")
    deal.apply(play("4H"))
    assert deal.to_play == 1 and sorted(deal.hand(0)) == ["2C", "9S", "KD"]
    assert deal.stock_count == 1


def test_until_playable_voluntary_draw_allowed_with_a_playable_card():
    deal = pos(UNTIL, [["2H"], ["3D"]], ["9S", "4H"], ["5H"])
    assert deal.legal_actions() == [play("2H"), DRAW]
    deal.apply(DRAW)  # 9S: the drawn card does not fit, so the seat goes on drawing (2H is not the drawn card)
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("4H")]


def test_until_playable_with_play_after_draw_any():
    deal = pos(rules(draw="until_playable", play_after_draw="any"), [["2H"], ["3D"]], ["9S", "4H"], ["5H"])
    deal.apply(DRAW)  # 9S; 2H fits and any card may be played: no more drawing, no pass
    assert deal.legal_actions() == [play("2H")]


def test_until_playable_stock_used_up_with_empty_stock_pass_ends_the_turn():
    deal = pos(rules(draw="until_playable", empty_stock="pass"), [["2C"], ["3D"]], ["9S"], ["4D", "5H"])
    deal.apply(DRAW)  # the stock is used up, nothing fits, nothing to reshuffle under "pass"
    assert deal.to_play == 1
    assert deal.stock_count == 0 and len(deal.discard) == 2


def test_until_playable_reshuffles_and_goes_on_drawing():
    discard = ["KC", "4H", "5H"]
    deal = pos(UNTIL, [["2C"], ["3D"]], ["9S"], discard)
    deal.apply(DRAW)  # 9S
    deal.apply(DRAW)  # reshuffle of KC 4H
    expected = reshuffled(discard, 1)
    drawn = card_code(expected[-1])
    assert drawn in deal.hand(0)
    assert deal.discard == [parse_card("5H")]
    if drawn == "4H":
        assert deal.legal_actions() == [play("4H")]
    else:
        assert deal.legal_actions() == [DRAW]
    assert all_cards(deal) == sorted(parse_card(c) for c in ["2C", "3D", "9S", "KC", "4H", "5H"])


def test_forced_play_under_until_playable_eights_classic():
    deal = pos(rules("eights-classic"), [["2H", "3C"], ["3D"]], ["9S"], ["5H"])
    assert deal.legal_actions() == [play("2H")]
    assert_illegal(deal, DRAW, "you must play", "playable card")


# ---- draw = "up_to" ----------------------------------------------------------------------------------------

def test_up_to_counts_draws_and_ends_the_turn_at_the_limit_without_a_play():
    deal = pos(UP_TO_2, [["2C"], ["3D"]], ["9S", "KD", "4H"], ["5H"])
    assert deal.view(0)["draws_left"] == 2
    deal.apply(DRAW)
    assert deal.to_play == 0 and deal.view(0)["draws_left"] == 1
    assert deal.legal_actions() == [DRAW]
    deal.apply(DRAW)  # the limit: nothing fits, the turn ends
    assert deal.to_play == 1
    assert deal.view(1)["draws_left"] == 2
    assert stock_codes(deal) == ["4H"]


def test_up_to_may_keep_drawing_with_a_playable_card_then_must_play_after_the_limit():
    deal = pos(UP_TO_2, [["2H"], ["3D"]], ["9S", "KD", "4H"], ["5H"])
    assert deal.legal_actions() == [play("2H"), DRAW]  # voluntary draw
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("2H"), DRAW]
    deal.apply(DRAW)  # limit of 2 reached, a play exists: must play
    assert deal.to_play == 0
    assert deal.legal_actions() == [play("2H")]
    assert_illegal(deal, DRAW, "you have drawn the limit of 2 cards this turn")
    assert_illegal(deal, PASS, "cannot pass while you can play", "2H")


def test_up_to_limit_counts_across_a_reshuffle():
    deal = pos(UP_TO_2, [["2C"], ["3D"]], ["9S"], ["KD", "4C", "JS", "5H"])
    deal.apply(DRAW)  # 9S: the stock is empty now
    assert deal.drawn_this_turn == 1 and deal.stock_count == 0
    deal.apply(DRAW)  # reshuffles KD 4C JS, draws the second card of the turn: the limit
    assert deal.to_play == 1  # nothing fits and the limit is used up although the new stock has cards
    assert deal.stock_count == 2
    assert deal.discard == [parse_card("5H")]
    expected = reshuffled(["KD", "4C", "JS", "5H"], 1)
    assert card_code(expected[-1]) in deal.hand(0)


def test_up_to_pass_only_when_nothing_playable_and_nothing_to_draw():
    deal = pos(WEB, [["2C"], ["3D"]], [], ["5H"])
    assert deal.legal_actions() == [PASS]
    assert deal.view(0)["draws_left"] == 3  # passing uses none of the limit
    assert_illegal(deal, DRAW, "nothing to draw")
    deal = pos(WEB, [["2C"], ["3D"]], ["9S"], ["5H"])
    assert deal.legal_actions() == [DRAW]
    assert_illegal(deal, PASS, "cannot pass while you can still draw")


def test_up_to_stock_runs_dry_within_the_limit_ends_the_turn():
    deal = pos(rules("web-table", empty_stock="pass", explicit_pass=False), [["2C"], ["3D"]], ["9S"], ["KD", "5H"])
    deal.apply(DRAW)
    assert deal.to_play == 1


def test_up_to_forced_play_after_drawing_a_playable_card():
    deal = pos(rules(draw="up_to", draw_limit=3, play_after_draw="any", voluntary_draw=False),
               [["2C"], ["3D"]], ["9H", "KD", "4H"], ["5H"])
    deal.apply(DRAW)  # 9H fits: forced play, no more drawing
    assert deal.legal_actions() == [play("9H")]
    assert_illegal(deal, DRAW, "you must play")


def test_up_to_drawn_only_keeps_drawing_past_a_playable_card():
    deal = pos(rules(draw="up_to", draw_limit=3), [["2C"], ["3D"]], ["9H", "KD", "4D"], ["5H"])
    deal.apply(DRAW)  # 9H fits
    assert deal.legal_actions() == [play("9H"), DRAW]
    assert_illegal(deal, PASS, "cannot pass while you can play")
    deal.apply(DRAW)  # KD: only the last drawn card may be played, and it does not fit
    assert deal.legal_actions() == [DRAW]


def test_web_table_draw_three_then_must_play():
    deal = pos(WEB, [["3C"], ["3D"]], ["9D", "KS", "4H", "6D"], ["5H"])
    for left in (2, 1):
        deal.apply(DRAW)
        assert deal.view(0)["draws_left"] == left
    deal.apply(DRAW)  # 4H fits after the third card
    assert deal.legal_actions() == [play("4H")]


# ---- voluntary_draw = false (forced play) ------------------------------------------------------------------

def test_forced_play_draw_one():
    r = rules(voluntary_draw=False)
    deal = pos(r, [["8C", "3C"], ["3D"]], ["9S"], ["5H"])
    assert deal.legal_actions() == [play("8C", s) for s in "CDHS"]  # only the eight fits: it must be played
    assert_illegal(deal, DRAW, "you must play: you hold a playable card")
    deal = pos(r, [["2C", "3C"], ["3D"]], ["9H"], ["5H"])
    assert deal.legal_actions() == [DRAW]  # nothing fits: drawing is allowed
    deal = pos(r, [["2C", "3C"], ["3D"]], ["9S", "4D"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 1  # the drawn card does not fit: the turn ends


def test_forced_play_draw_one_drawn_playable_card_must_be_played():
    deal = pos(rules(voluntary_draw=False), [["2C", "3C"], ["3D"]], ["9H"], ["5H"])
    deal.apply(DRAW)
    assert deal.legal_actions() == [play("9H")]
    assert_illegal(deal, PASS, "cannot pass while you can play")


def test_until_playable_with_play_after_draw_none_ends_the_turn_after_drawing():
    deal = pos(rules(draw="until_playable", play_after_draw="none"), [["2C"], ["3D"]], ["9H", "4D", "6D"], ["5H"])
    deal.apply(DRAW)  # 9H would fit, but no card may be played after drawing
    assert deal.to_play == 1
    assert deal.stock_count == 2


# ---- empty stock -------------------------------------------------------------------------------------------

def test_reshuffle_order_is_the_documented_kth_shuffle_and_keeps_top_and_declared_suit():
    r = rules()
    discard = ["2C", "3C", "4C", "5H"]
    deal = pos(r, [["9H", "KS"], ["TH", "QS"]], [], discard)
    first = reshuffled(discard, 1)
    x = card_code(first[-1])
    deal.apply(DRAW)  # reshuffle 1: a club, it does not fit 5H: the turn ends
    assert deal.discard == [parse_card("5H")]
    assert deal.stock == first[:-1]
    assert x in deal.hand(0) and deal.to_play == 1
    deal.apply(play("TH"))
    deal.apply(play("9H"))
    deal.apply(DRAW)  # seat 1 draws the second club
    deal.apply(DRAW)  # seat 0 the third: the stock is empty again
    assert deal.stock_count == 0
    assert [card_code(c) for c in deal.discard] == ["5H", "TH", "9H"]
    second = reshuffled(["5H", "TH", "9H"], 2)  # the second reshuffle of the deal: purpose 2
    deal.apply(DRAW)
    assert deal.stock == second[:-1]
    assert card_code(second[-1]) in deal.hand(1)
    assert deal.discard == [parse_card("9H")]


def test_reshuffle_keeps_the_declared_suit():
    deal = pos(rules(), [["KC", "4S"], ["3D"]], [], ["2H", "3H", "4C", "8C"], declared_suit="D")
    deal.apply(DRAW)
    assert deal.top_card == "8C" and deal.active_suit == "D" and deal.view(1)["declared"] is True


def test_reshuffle_with_one_card_in_the_discard_pile_means_nothing_to_draw():
    for r in (rules(), UNTIL, UP_TO_2):
        deal = pos(r, [["2C"], ["3D"]], [], ["5H"])
        assert deal.legal_actions() == [PASS]
        assert_illegal(deal, DRAW, "there is nothing to draw")


def test_empty_stock_pass_never_reshuffles_and_blocks_when_all_pass():
    r = rules(empty_stock="pass")
    deal = pos(r, [["2C"], ["3D", "KS"]], [], ["4C", "6D", "5H"])
    assert deal.legal_actions() == [PASS]
    assert_illegal(deal, DRAW, "nothing to draw")
    deal.apply(PASS)
    deal.apply(PASS)
    assert deal.is_over and deal.result.outcome == "blocked"
    assert deal.result.points == [2, 13]
    assert len(deal.discard) == 3


def test_empty_stock_pass_a_seat_that_can_play_must_play():
    deal = pos(rules(empty_stock="pass"), [["2H"], ["3D"]], [], ["4C", "5H"])
    assert deal.legal_actions() == [play("2H")]
    assert cards_played(deal) == ["2H"]


# ---- issue 9 fault 1: crazy-eights (C) stops drawing when the stock is used up ------------------------------

def test_crazy_eights_turn_ends_when_the_stock_runs_out_during_the_draws():
    """System C: "draw one card at a time until a playable card comes or the stock is used up; then pass". The
    seat draws the last stock card (3H, no fit on 7S) and its turn ends there: no draw from the reshuffled pile."""
    deal = pos(rules("crazy-eights"), [["KH"], ["2C", "5C"]], ["3H"], ["9C", "2D", "6S", "7S"])
    deal.apply(DRAW)
    assert deal.hand(0) == ["3H", "KH"]
    assert deal.to_play == 1
    assert deal.history[-1] == {"seat": 0, "type": "draw"}
    # the next seat that must draw gets the reshuffled pile (all but the top card) and draws on from it
    deal.apply(DRAW)
    assert deal.reshuffles == 1 and deal.discard == [parse_card("7S")]


def test_crazy_eights_stock_out_with_a_playable_last_card_is_played_as_usual():
    deal = pos(rules("crazy-eights"), [["KH"], ["2C", "5C"]], ["3S"], ["9C", "2D", "6S", "7S"])
    deal.apply(DRAW)  # the last stock card fits: draw-until-playable plays it
    assert deal.to_play == 0 and deal.legal_actions() == [play("3S")]


def test_stock_out_ends_turn_explains_why_no_draw_when_the_seat_still_has_the_turn():
    r = rules("crazy-eights", play_after_draw="any", explicit_pass=True)
    deal = pos(r, [["KH"], ["2C", "5C"]], ["3H"], ["9C", "2D", "6S", "7S"])
    deal.apply(DRAW)
    assert deal.to_play == 0 and deal.legal_actions() == [PASS]
    assert_illegal(deal, DRAW, "stock ran out", "pass")


def test_other_systems_draw_on_from_the_reshuffled_pile():
    deal = pos(UNTIL, [["KH"], ["2C", "5C"]], ["3H"], ["9C", "2D", "6S", "7S"])
    deal.apply(DRAW)
    assert deal.to_play == 0 and deal.legal_actions() == [DRAW]  # D's add-on "draw until playable" reshuffles


# ---- issue 9 fault 6: web-table (B): pass is a ply of its own after the draw limit ---------------------------

def test_web_table_after_three_unplayable_draws_the_seat_must_pass():
    """System B: "pass becomes legal only after the limit is used and there is still no play": the third
    unplayable draw does not end the turn; the same seat is to play and its one legal action is pass."""
    deal = pos(WEB, [["3C"], ["3D"]], ["9D", "KS", "4C", "6D"], ["5H"])
    for _ in range(3):
        deal.apply(DRAW)
    assert deal.to_play == 0
    assert deal.legal_actions() == [PASS]
    assert deal.view(0)["draws_left"] == 0
    assert_illegal(deal, DRAW, "limit of 3")
    deal.apply(PASS)
    assert deal.to_play == 1 and deal.history[-1] == {"seat": 0, "type": "pass"}
    assert deal.passes_in_row == 0  # a pass after drawing is no step towards a blocked deal


def test_web_table_stock_dry_within_the_limit_the_seat_passes():
    deal = pos(rules("web-table", empty_stock="pass"), [["2C"], ["3D"]], ["9S"], ["KD", "5H"])
    deal.apply(DRAW)
    assert deal.to_play == 0 and deal.legal_actions() == [PASS]


def test_russian_36_one_unplayable_draw_then_pass():
    deal = pos(rules("russian-36"), [["JC"], ["7D"]], ["9S", "6D"], ["7H"])
    deal.apply(DRAW)
    assert deal.to_play == 0 and deal.legal_actions() == [PASS]


@pytest.mark.parametrize("preset", ["pagat", "eights-classic", "points-game", "hollywood"])
def test_systems_where_the_turn_ends_keep_the_automatic_end(preset):
    deal = pos(rules(preset, empty_stock="pass"), [["2C"], ["3D"]], ["9S"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 1  # D: "otherwise the turn ends"; A: the stock is exhausted, the seat passes


def test_explicit_pass_is_an_option_of_its_own():
    assert rules("web-table").explicit_pass and rules("russian-36").explicit_pass
    assert not rules("pagat").explicit_pass and not rules("crazy-eights").explicit_pass
    deal = pos(rules("pagat", explicit_pass=True), [["2C"], ["3D"]], ["9S", "4D"], ["5H"])
    deal.apply(DRAW)  # D's one card, no fit: with explicit_pass the seat passes as its own ply
    assert deal.to_play == 0 and deal.legal_actions() == [PASS]


# ---- issue 9 structure: a refused draw says the draw rule's own reason -------------------------------------------

def test_play_after_draw_none_a_further_draw_is_refused_because_the_turn_ends():
    """With ``play_after_draw="none"`` and ``explicit_pass`` the seat that drew stays to pass; a draw is refused
    because drawing ended the turn (the old message told it to play a playable card it could not play)."""
    deal = pos(rules(draw="until_playable", play_after_draw="none", explicit_pass=True),
               [["2H", "3C"], ["3D"]], ["9S", "4H"], ["5H"])
    deal.apply(DRAW)
    assert deal.to_play == 0 and deal.legal_actions() == [PASS]
    assert_illegal(deal, DRAW, "after drawing the turn ends", "pass")
    assert_illegal(deal, play("2H"), "after drawing the turn ends without a play")


def _draw_refusal_agrees_with_the_position(deal, message):
    """What a draw-refusal message claims must be true of the position it was given in."""
    r, drawn = deal.ruleset, deal.drawn_this_turn
    plays = [a for a in deal.legal_actions() if a["type"] == "play"]
    if "nothing to draw" in message:
        return not deal.stock and (r.empty_stock == "pass" or len(deal.discard) <= 1)
    if "you must play" in message or "you drew a playable card" in message:
        return bool(plays) and (r.play_after_draw != "none" or not drawn)
    if "limit of" in message:
        return r.draw == "up_to" and drawn >= r.draw_limit and f"limit of {r.draw_limit} " in message
    if "already drawn your card" in message:
        return r.draw == "one" and drawn >= 1
    if "stock ran out" in message:
        return r.stock_out_ends_turn and drawn >= 1 and not deal.stock
    if "after drawing the turn ends" in message:
        return r.play_after_draw == "none" and drawn >= 1
    return False


def test_every_refused_draw_says_a_reason_true_of_the_position():
    """Random play over option mixes (both explicit_pass settings, so the seat often stays to play after its
    draws): wherever DRAW is not legal in an ordinary turn, its message names a reason that holds."""
    import random

    from eights_engine import IllegalAction

    rng = random.Random(9)
    checked = 0
    for case in range(60):
        options = {"draw": rng.choice(["one", "until_playable", "up_to"]), "draw_limit": rng.randint(1, 3),
                   "play_after_draw": rng.choice(["drawn_only", "any", "none"]),
                   "voluntary_draw": rng.random() < 0.5, "empty_stock": rng.choice(["reshuffle", "pass"]),
                   "stock_out_ends_turn": rng.random() < 0.5, "explicit_pass": rng.random() < 0.7,
                   "hand_size": rng.choice(["auto", 3, 7])}
        deal = Deal.start(rules("pagat", **options), rng.randint(2, 4), case)
        while not deal.is_over:
            if {"type": "draw"} not in deal.legal_actions() and not deal.pending_draw \
                    and not deal.awaiting_declaration:
                try:
                    deal.clone().apply(DRAW)
                except IllegalAction as refusal:
                    assert _draw_refusal_agrees_with_the_position(deal, str(refusal)), (options, str(refusal))
                    checked += 1
            deal.apply(rng.choice(deal.legal_actions()))
    assert checked > 200


def test_stock_out_with_a_playable_drawn_card_the_refused_draw_says_play_it():
    """Breaker F7: the draw that emptied the stock brought a card that fits; drawing is refused, and the reason must
    not send the seat to pass (a pass is refused too while it can play)."""
    deal = Deal.from_position(rules("crazy-eights"), [["5C", "KD", "9H"], ["2S", "3S", "4S"]], [], ["7D", "QD", "TC"],
                              0, drawn_this_turn=1, drawn_card="5C")
    assert deal.legal_actions() == [play("5C")]
    assert_illegal(deal, DRAW, "play it")
    assert_illegal(deal, PASS, "cannot pass while you can play")
    r = rules("crazy-eights", draw="up_to", play_after_draw="any")  # a later draw may be voluntary here
    deal = Deal.from_position(r, [["5C", "KD", "9H"], ["2S", "3S", "4S"]], [], ["7D", "QD", "TC"],
                              0, drawn_this_turn=1, drawn_card="5C")
    assert DRAW not in deal.legal_ids()
    assert_illegal(deal, DRAW, "stock ran out", "play")


def test_the_draw_limit_refusal_counts_one_card_in_the_singular():
    """russian-36 draws up to 1: "the limit of 1 card", not "1 cards" (breaker F8)."""
    deal = pos(rules(draw="up_to", draw_limit=1, play_after_draw="any"), [["2H"], ["3D"]], ["9S", "KD"], ["5H"])
    deal.apply(DRAW)
    assert_illegal(deal, DRAW, "you have drawn the limit of 1 card this turn: play or pass")
