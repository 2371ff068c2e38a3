"""How to play a ``Ruleset``, in plain words: the rules page of every preset, ladder and match is written from this.

``describe_rules(ruleset, seats)`` reads every field of ``Ruleset`` (RULES.md, all systems) and writes the rules the
way seed 001's "How to play" does: how many cards, what fits, the eight and the declared suit, drawing and passing,
the special cards in force, scoring (with the worked example 8, Q, A, 5 = 66 under standard values) and the end of
the match. A field that is not in force under the other options (``draw_limit`` without ``draw="up_to"``, say) is
not mentioned; every field changes the words when it is in force (engine/tests/test_describe.py holds every field
to that, so a new field cannot be forgotten). Pure: no Django, no I/O.

The words are English unless ``words`` says otherwise: a ``Words`` gives ``gettext``, ``ngettext`` and
``number``, so the service can hand in its translation catalogue (``games.matches.rules_words``) while the engine
imports nothing of it. Every sentence is one ``_()`` call with ``%(name)s`` places, so ``makemessages`` finds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Ruleset

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
                 9: "nine", 10: "ten"}


class Words:
    """The words of the rules: English as written here (``gettext`` and ``ngettext`` give their text back,
    ``number`` spells one to ten). A translation overrides all three (``number`` may give digits)."""

    def gettext(self, text: str) -> str:
        return text

    def ngettext(self, one: str, many: str, count: int) -> str:
        return one if count == 1 else many

    def number(self, k: int) -> str:
        return _NUMBER_WORDS.get(k, str(k))


ENGLISH = Words()


@dataclass(frozen=True)
class RulesSection:
    """One part of the rules: a short ``title`` and its ``paragraphs`` (plain text, no markup)."""

    key: str
    title: str
    paragraphs: tuple[str, ...]


def describe_rules(ruleset: Ruleset, seats: int | None = None, words: Words = ENGLISH) -> list[RulesSection]:
    """The rules of ``ruleset`` in plain words, as sections in reading order.

    ``seats``: the number of seats at the table (a ladder's or a match's), or ``None`` for the ruleset in general
    (then seat-dependent facts are given for every seat count the ruleset allows). ``words``: the language
    (``Words``; English by default). Raises ``ValueError`` when ``seats`` is outside ``seats_min..seats_max``.
    Section keys: ``cards``, ``fits``, ``eight``, ``drawing``, ``special``, ``scoring``, ``end``.
    """
    r, w = ruleset, words
    _ = w.gettext
    if seats is not None and not (isinstance(seats, int) and r.seats_min <= seats <= r.seats_max):
        raise ValueError(f"this ruleset is for {r.seats_min} to {r.seats_max} seats, not {seats!r:.20}")
    return [
        RulesSection("cards", _("Players, cards and the deal"), tuple(_cards_section(r, seats, w))),
        RulesSection("fits", _("What you may play"), tuple(_fits_section(r, w))),
        RulesSection("eight", _("The eight and the declared suit"), tuple(_eight_section(r, w))),
        RulesSection("drawing", _("Drawing and passing"), tuple(_drawing_section(r, w))),
        RulesSection("special", _("Special cards"), tuple(_special_section(r, w))),
        RulesSection("scoring", _("Scoring"), tuple(_scoring_section(r, w))),
        RulesSection("end", _("The end of the match"), tuple(_end_section(r, seats, w))),
    ]


def rules_text(ruleset: Ruleset, seats: int | None = None, words: Words = ENGLISH) -> str:
    """``describe_rules`` as one plain text: each section's title, then its paragraphs, separated by blank lines."""
    return "\n\n".join(s.title + "\n\n" + "\n\n".join(s.paragraphs) for s in describe_rules(ruleset, seats, words))


def _cards(w: Words, k: int) -> str:
    return w.ngettext("%(n)s card", "%(n)s cards", k) % {"n": w.number(k)}


# ---- the sections ---------------------------------------------------------------------------------------------
def _deck_words(r: Ruleset, count: int, w: Words) -> str:
    _ = w.gettext
    if r.ranks == "52":
        return (_("one 52-card deck (ace to king in four suits, no jokers)") if count == 1 else
                _("two 52-card decks shuffled together (104 cards)"))
    return (_("one 36-card deck (six to ace in four suits: no twos, threes, fours or fives)") if count == 1 else
            _("two 36-card decks shuffled together (72 cards)"))


def _cards_section(r: Ruleset, seats: int | None, w: Words) -> list[str]:
    _, n = w.gettext, w.number
    out = []
    if r.seats_min == r.seats_max:
        seat_words = _("This game is for exactly %(n)s players.") % {"n": n(r.seats_min)}
    else:
        seat_words = _("This game is for %(low)s to %(high)s players.") % {"low": n(r.seats_min), "high": n(r.seats_max)}
    if seats is not None:
        seat_words += " " + _("This table has %(n)s seats.") % {"n": n(seats)}
    out.append(seat_words)
    if r.partnership:
        out.append(_("Partnership: four players play as two sides of partners sitting opposite each other (seats 0 "
                     "and 2 against seats 1 and 3). A deal goes on until both partners of one side are out, and a "
                     "side's total is the sum of its partners' scores."))
    if r.decks == "auto":
        if seats is not None or r.seats_max < 6 or r.seats_min >= 6:
            deck = _("They play with %(deck)s.") % {"deck": _deck_words(r, r.deck_count(seats or r.seats_min), w)}
        else:
            deck = _("Up to five players use %(one)s; from six players on, %(two)s.") % {
                "one": _deck_words(r, 1, w), "two": _deck_words(r, 2, w)}
    else:
        deck = _("They always play with %(deck)s, whatever the number of players.") % {
            "deck": _deck_words(r, int(r.decks), w)}
    out.append(deck)
    if r.hand_size == "all":
        out.append(_("The whole deck is dealt out, one card at a time: there is no stock to draw from and no "
                     "starter card; the first player leads any card."))
    else:
        if r.hand_size == "auto":
            if seats is not None or r.seats_max == 2 or r.seats_min > 2:
                cards = _cards(w, r.cards_per_hand(seats or r.seats_min))
                hand = (_("Each player is dealt %(cards)s (seven with two players, five with more).")
                        if r.seats_min == 2 < r.seats_max else _("Each player is dealt %(cards)s.")) % {"cards": cards}
            else:
                hand = _("Each player is dealt seven cards with two players, five cards with more.")
        else:
            hand = _("Each player is dealt %(cards)s, whatever the number of players.") % {
                "cards": _cards(w, int(r.hand_size))}
        hand += " " + _("The rest of the cards form the face-down stock, and its top card is turned face up to "
                        "start the discard pile (the starter).")
        out.append(hand)
        out.append({
            "dealer_declares": _("If the starter is an eight, the dealer is taken to have played it and names the "
                                 "suit to follow before anyone plays."),
            "reshuffle": _("If the starter is an eight, it is shuffled back into the stock and a new starter is "
                           "turned."),
            "bury": _("If the starter is an eight, it is put back into the middle of the stock and the next card "
                      "is turned instead."),
            "own_suit": _("If the starter is an eight, it stands for its own printed suit and nobody names a suit."),
        }[r.starter_eight])
    lead = (_("Seat 0 plays first in the first deal (the last seat deals it); from then on the player to the "
              "dealer's left plays first, and play goes round to the left.")
            if r.first_player == "left_of_dealer" else
            _("Seat 0 plays first in the first deal; from then on whoever won the previous deal plays first (after "
              "a blocked deal, the player to the dealer's left)."))
    rotate = (_("The deal passes one seat to the left after every deal.") if r.dealer_rotates
              else _("The same seat deals every deal."))
    out.append(lead + " " + rotate)
    out.append(_("The goal: be the first to get rid of all your cards (to go out).") + " "
               + (_("The deal ends at once when both partners of one side are out.") if r.partnership else
                  _("Going out ends the deal at once.")))
    return out


def _fits_section(r: Ruleset, w: Words) -> list[str]:
    _ = w.gettext
    play = {"anytime": _("On your turn play one card that matches the top card of the discard pile in suit or in "
                         "rank, or any eight: an eight fits on anything."),
            "match_suit": _("On your turn play one card that matches the top card of the discard pile in suit or in "
                            "rank; an eight is not wild here: like any other card it must match the suit to "
                            "follow, or lie on another eight."),
            "no_declare": _("On your turn play one card that matches the top card of the discard pile in suit or in "
                            "rank, or any eight: an eight fits on anything.")}[r.eights]
    example = (_("On the six of hearts go any heart, any other six and any eight.")
               if r.eights != "match_suit" else
               _("On the six of hearts go any heart (the eight of hearts too) and any other six."))
    out = [play + " " + example]
    if r.eights != "no_declare":
        out.append(_("When the top card is an eight that someone played, follow the suit they named, not the suit "
                     "printed on the eight."))
    out.append(_("You may go out on an eight: an eight may be your last card.") if r.go_out_on_eight else
               _("You may not go out on an eight: an eight can never be your last card, so with only an eight left "
                 "you must draw."))
    return out


def _eight_section(r: Ruleset, w: Words) -> list[str]:
    _ = w.gettext
    if r.eights == "no_declare":
        return [_("Eights name no new suit here: after an eight the next player follows the eight's own printed "
                  "suit (or plays another eight).")]
    return [_("Whoever plays an eight names a suit at once: any of the four, its own suit too. From then on the next "
              "player must follow the named suit or play an eight; only another eight changes it. The table shows "
              "the suit to follow in its middle, with the suit's shape and its name in words."),
            _("Tip: name the suit you hold most of.")]


def _drawing_section(r: Ruleset, w: Words) -> list[str]:
    _ = w.gettext
    out = []
    if r.hand_size == "all":
        out.append(_("There is no stock: a player who cannot play passes."))
    else:
        if r.draw == "one":
            out.append(_("If you cannot play, or would rather not, draw one card from the stock: one card per turn.")
                       if r.voluntary_draw else
                       _("If you cannot play, draw one card from the stock: one card per turn."))
        elif r.draw == "until_playable":
            out.append(_("If you cannot play, draw from the stock one card at a time until a card that fits comes."))
        else:
            out.append(_("If you cannot play, draw from the stock: at most %(cards)s per turn (the draw button shows "
                         "how many are left).") % {"cards": _cards(w, r.draw_limit)})
        if r.voluntary_draw:
            out.append(_("Drawing is allowed even when you could play (to hold on to an eight, say); the price is a "
                         "card more in your hand."))
        else:
            out.append(_("Forced play: while you hold a card that fits you must play it; you may draw only when "
                         "nothing fits."))
        out.append({
            "drawn_only": {"one": _("If the card you drew fits, you may play it at once; otherwise your turn ends."),
                           "until_playable": _("When a card that fits comes, play it: after drawing, only the card "
                                               "you drew may be played."),
                           "up_to": _("After drawing, only the card you just drew may be played, if it fits; or "
                                      "keep drawing within the limit.")}[r.draw],
            "any": (_("After drawing you may play any card that fits, the one you drew or another, or keep drawing "
                      "within the limit.") if r.draw == "up_to" else
                    _("After drawing you may play any card that fits, the one you drew or another.")),
            "none": _("Drawing ends your turn: one draw a turn, and a drawn card can be played on your next turn at "
                      "the earliest."),
        }[r.play_after_draw])
        if r.draw == "up_to":
            out.append(_("Passing is allowed only when no card fits and no more may be drawn; if a card fits after "
                         "your last draw, you must play it."))
        out.append(_("When you have drawn and have nothing to play and no draw left, you press Pass: the pass is a "
                     "move of its own.") if r.explicit_pass else
                   _("When a draw leaves you nothing to play and no draw left, your turn ends by itself."))
        if r.empty_stock == "reshuffle":
            out.append(_("When the stock runs out, the top card of the discard pile stays where it is and every card "
                         "under it is shuffled to become the new stock; the suit to follow does not change. If "
                         "nothing lies under the top card there is nothing to draw, and a player who cannot play "
                         "passes."))
            out.append(_("If your draws use up the stock, you stop drawing and your turn ends; the pile is "
                         "reshuffled for the next draw.") if r.stock_out_ends_turn else
                       _("If the stock runs out while you draw, the pile is reshuffled and you go on drawing."))
        else:
            out.append(_("The discard pile is never reshuffled: once the stock is empty, a player who cannot play "
                         "passes."))
    out.append(_("If nobody can play and nobody can draw, so that every player passes in turn, the deal is blocked "
                 "and scored as described under Scoring."))
    return out


def _special_section(r: Ruleset, w: Words) -> list[str]:
    _, n = w.gettext, w.number
    out = []
    if r.twos == "stack":
        out.append(_("Two: the next player must draw two cards and miss the turn, unless they answer with a two of "
                     "their own, which adds two more to the cards owed and passes them on (an eight is no answer). "
                     "Whoever cannot or will not answer draws the whole sum and misses the turn."))
    elif r.twos == "winding":
        out.append(_("Two (winding twos): the next player draws two cards and misses the turn; if the next player "
                     "plays a two straight away, the one after draws four, then six, then eight, as long as the run "
                     "of twos is unbroken."))
    if r.queen_of_spades_draw:
        out.append(_("Queen of spades: the next player draws %(n)s cards and misses the turn; it cannot be "
                     "answered.") % {"n": n(r.queen_of_spades_draw)})
    if r.skip_rank:
        if r.skip_rank == "J":
            out.append(_("Jack: the next player misses the turn; with two players left in the deal you play again."))
        elif r.queen_of_spades_draw:
            out.append(_("Queen (other than the queen of spades, which makes the next player draw): the next player "
                         "misses the turn; with two players left in the deal you play again."))
        else:
            out.append(_("Queen: the next player misses the turn; with two players left in the deal you play "
                         "again."))
    if r.reverse_rank:
        out.append(_("Ace: the direction of play reverses; the table shows the direction with an arrow. With two "
                     "players left in the deal the ace lets you play again.")
                   if r.reverse_two_seats == "skip" else
                   _("Ace: the direction of play reverses; the table shows the direction with an arrow. With two "
                     "players left in the deal the ace does nothing special."))
    if r.last_card_penalty:
        out.append(_("Last card: when you play your second-last card, announce it first (\"Last card!\"); whoever "
                     "gets down to one card without announcing draws %(n)s penalty cards.") % {
                         "n": n(r.last_card_penalty)})
    action = r.twos != "off" or r.queen_of_spades_draw or r.skip_rank or r.reverse_rank
    if action:
        out.append(_("Going out with one of these cards ends the deal at once, without its effect.")
                   if r.action_on_going_out == "void" else
                   _("Going out with one of these cards still has its effect: a two or the queen of spades makes "
                     "the next player draw before the deal is scored."))
    if not out:
        out.append(_("No card other than the eight does anything special."))
    if not r.reverse_rank:
        out.append(_("Play never reverses: it always goes round the same way, so the table shows no direction "
                     "arrow."))
    return out


def _scoring_section(r: Ruleset, w: Words) -> list[str]:
    _ = w.gettext
    out = []
    if r.card_values == "standard":
        out.append(_("Cards left in a hand count: an eight 50 points, a king, queen, jack or ten 10 each, an ace 1, "
                     "every other card its face value."))
        sum_words = "50 + 10 + 1 + 5 = 66"
    else:
        out.append(_("Cards left in a hand count at Hollywood values: an eight 20 points, an ace 15, a king, queen, "
                     "jack or ten 10 each, every other card its face value."))
        sum_words = "20 + 10 + 15 + 5 = 50"
    if r.lower_total_wins:
        out.append(_("Penalty scoring: whoever goes out writes 0; every other player writes the value of the cards "
                     "left in their own hand. The points are penalties, so lower is better, and they add up from "
                     "deal to deal."))
        out.append(_("Worked example: left holding an eight, a queen, an ace and a five, you write %(sum)s penalty "
                     "points.") % {"sum": sum_words})
    elif r.scoring == "winner_collects":
        out.append(_("The winner collects: whoever goes out scores the value of every card left in the other "
                     "players' hands. Higher is better, and the points add up from deal to deal."))
        out.append(_("Worked example: you go out while an opponent holds an eight, a queen, an ace and a five: you "
                     "collect %(sum)s points from them.") % {"sum": sum_words})
    else:
        out.append(_("Hollywood scoring (two players): whoever goes out scores the value of the other player's "
                     "hand, and writes it into the open games: the first deal they win into the first game only, "
                     "the second into the first two games, the third and every later one into all open games."))
        out.append(_("Worked example: you go out while your opponent holds an eight, a queen, an ace and a five: "
                     "you score %(sum)s points.") % {"sum": sum_words})
    if r.partnership and not r.lower_total_wins:
        out.append(_("Partners score together: the side that goes out collects both opponents' hands."))
    # a blocked deal
    if r.blocked == "each_own":
        out.append(_("A blocked deal: every player writes the value of their own hand as penalty points.")
                   if r.lower_total_wins else
                   _("A blocked deal scores nothing: nobody went out."))
    else:
        if r.lower_total_wins:
            out.append(_("A blocked deal: the player with the lowest hand writes 0 and every other player writes "
                         "how much their hand is above the lowest."))
        else:
            out.append(_("A blocked deal: the player with the lowest hand collects from every other player the "
                         "difference between their hands."))
            out.append(_("If two or more players tie for the lowest hand, they split the winnings equally (rounded "
                         "down).") if r.blocked_tie == "split" else
                       _("If two or more players tie for the lowest hand, nobody scores and the next deal is "
                         "dealt."))
    out.append(_("A deal that runs past %(limit)s moves is stopped and scored as blocked (a safeguard of this site, "
                 "not a rule of the game).") % {"limit": r.ply_limit})
    return out


def _end_section(r: Ruleset, seats: int | None, w: Words) -> list[str]:
    _, n = w.gettext, w.number
    if r.target_per_seat:
        if seats is not None:
            target = _("%(per)s points per player, so %(target)s points with %(n)s players") % {
                "per": r.target_per_seat, "target": r.target_for(seats), "n": n(seats)}
        else:
            target = _("%(per)s points per player (%(low_target)s with %(low)s players, %(high_target)s with "
                       "%(high)s)") % {"per": r.target_per_seat, "low_target": r.target_per_seat * r.seats_min,
                                       "low": n(r.seats_min), "high_target": r.target_per_seat * r.seats_max,
                                       "high": n(r.seats_max)}
    else:
        target = _("%(target)s points") % {"target": r.target}
    if r.scoring == "hollywood":
        reach = (_("A game ends when a player's score in it reaches %(target)s: that player wins that game.")
                 if r.target_reached_wins else
                 _("A game ends when a player's score in it reaches %(target)s: that player loses that game.")) % {
                     "target": target}
        games = w.ngettext("%(n)s game is kept at once.", "%(n)s games are kept at once.", r.hollywood_games) % {
            "n": n(r.hollywood_games).capitalize()}
        if r.hollywood_total_games > r.hollywood_games:
            games += " " + _("When one ends, a new game opens in its place, until %(total)s games have been played "
                             "in all.") % {"total": r.hollywood_total_games}
        else:
            games += " " + _("No new game opens when one ends.")
        return [reach + " " + games + " " + _("The match ends when all %(total)s games are finished; whoever won "
                                              "more games wins the match, and an equal number of games won shares "
                                              "first place.") % {"total": r.hollywood_total_games}]
    if r.partnership:
        end = (_("The match ends after the deal in which a side's total reaches %(target)s, and the lowest total "
                 "wins.") if r.lower_total_wins else
               _("The match ends after the deal in which a side's total reaches %(target)s, and the highest total "
                 "wins."))
    else:
        end = (_("The match ends after the deal in which anyone's total reaches %(target)s, and the lowest total "
                 "wins.") if r.lower_total_wins else
               _("The match ends after the deal in which anyone's total reaches %(target)s, and the highest total "
                 "wins."))
    out = [end % {"target": target}]
    out.append(_("Players level on the best total share first place.") if r.match_tie == "share" else
               _("If the best total is shared when the target is reached, play goes on deal by deal until one "
                 "player leads alone."))
    return out
