"""The engine's words in the reader's language: its reasons for refusing a move, and the rules pages (``RulesWords``).

The engine's reasons for refusing a move (``IllegalAction``, ``eights_engine/explain.py``) in the reader's language.

The engine speaks English and imports nothing of the service, so its reasons are translated here, at the API's
edge (``config.api.exception_handler``): each reason the engine can give is matched by its shape, and said again
from the gettext catalogue with the same facts (the card, what would fit, the declared suit, the top card).
``reason_words`` gives English back unchanged, and any reason it does not know too (a new engine message is then
shown in English until it is added here; tests/i18n/test_reasons.py plays every kind of refusal in Russian and
Bulgarian). Card and suit words follow docs/GLOSSARY.md.
"""

from __future__ import annotations

import re
from typing import Callable

from django.utils.translation import get_language, gettext, gettext_noop, ngettext, pgettext

from eights_engine.cards import SUIT_NAMES, SUITS
from eights_engine.describe import Words

_SUIT_CODES = dict(zip(SUIT_NAMES, SUITS))  # "clubs" -> "C", as the engine names them in its reasons
_RANK_CODES = {"ace": "A", "jack": "J", "queen": "Q", "king": "K", "eight": "8", "10": "T"}


def _in_english() -> bool:
    """Whether the active language is English (the engine's own words need no translating)."""
    return (get_language() or "en").split("-")[0] == "en"


def suit_words(code: str) -> str:
    """A suit's name (``"C"`` -> "clubs", Russian "трефы", Bulgarian "спатия"), as the table's suit sign says it."""
    return {"C": gettext("clubs"), "D": gettext("diamonds"), "H": gettext("hearts"), "S": gettext("spades")}[code]


def rank_words(code: str) -> str:
    """A rank's name in words (``"A"`` -> "ace", ``"8"`` -> "eight", ``"T"`` -> "10", ``"5"`` -> "5")."""
    words = {"A": gettext("ace"), "J": gettext("jack"), "Q": gettext("queen"), "K": gettext("king"),
             "8": gettext("eight"), "T": "10"}
    return words.get(code, code)


def card_words(code: str) -> str:
    """A card's name (``"QS"`` -> "queen of spades", Russian "дама пик", Bulgarian "дама пика"); the same words as
    the table's scripts (static/js/cards.js)."""
    of_suit = {"C": pgettext("a card's name: ace of ...", "clubs"),
               "D": pgettext("a card's name: ace of ...", "diamonds"),
               "H": pgettext("a card's name: ace of ...", "hearts"),
               "S": pgettext("a card's name: ace of ...", "spades")}[code[1]]
    return gettext("%(rank)s of %(suit)s") % {"rank": rank_words(code[0]), "suit": of_suit}


def _card_named(rank: str, suit: str) -> str:
    """``describe_card``'s words ("eight of hearts") as a card's name in the reader's language."""
    return card_words(_RANK_CODES.get(rank, rank) + _SUIT_CODES[suit])


def _needs(text: str) -> str:
    """``explain.needs``'s list ("a heart, a 6 or an eight") in the reader's words."""
    items = re.split(r", | or ", text)
    words = []
    for item in items:
        item = item.removeprefix("an ").removeprefix("a ")
        if item + "s" in _SUIT_CODES:
            words.append(gettext("the suit %(suit)s") % {"suit": suit_words(_SUIT_CODES[item + "s"])})
        elif item == "eight":
            words.append(gettext("an eight"))
        else:
            words.append(gettext("the rank %(rank)s") % {"rank": rank_words(_RANK_CODES.get(item, item))})
    if len(words) == 1:
        return words[0]
    return gettext("%(some)s or %(last)s") % {"some": ", ".join(words[:-1]), "last": words[-1]}


def _does_not_fit(m: re.Match) -> str:
    facts = {"card": card_words(m["card"]), "needs": _needs(m["needs"]),
             "top": _card_named(m["top_rank"], m["top_suit"])}
    if m["declared"]:
        return gettext("the %(card)s does not fit: it needs %(needs)s; %(declared)s were declared (top card "
                       "%(top)s)") % {**facts, "declared": suit_words(_SUIT_CODES[m["declared"]])}
    return gettext("the %(card)s does not fit: it needs %(needs)s (top card %(top)s)") % facts


def _penalty(m: re.Match) -> str:
    count = int(m["count"])
    if m["two"]:
        text = ngettext("you must draw the %(count)s penalty card or answer with a two",
                        "you must draw the %(count)s penalty cards or answer with a two", count) % {"count": count}
        return text + (" " + gettext("(an eight is no answer to a two)") if m["eight"] else "")
    return ngettext("you must draw the %(count)s penalty card", "you must draw the %(count)s penalty cards",
                    count) % {"count": count}


def _limit(m: re.Match) -> str:
    limit = int(m["limit"])
    return ngettext("you have drawn the limit of %(limit)s card this turn: play or pass",
                    "you have drawn the limit of %(limit)s cards this turn: play or pass", limit) % {"limit": limit}


_CARD = r"(?P<card>[A2-9TJQK][CDHS])"
_SHAPES: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    (re.compile(rf"^the {_CARD} does not fit: needs (?P<needs>.+?)(?:; (?P<declared>clubs|diamonds|hearts|spades) "
                r"were declared)? \(top card (?P<top_rank>\w+) of (?P<top_suit>\w+)\)$"), _does_not_fit),
    (re.compile(rf"^you cannot pass while you can play \(e\.g\. the {_CARD}\)$"),
     lambda m: gettext("you cannot pass while you can play (the %(card)s, for one)") % {"card": card_words(m["card"])}),
    (re.compile(r"^seat \d+ must draw the (?P<count>\d+) penalty cards(?P<two> or answer with a two)?"
                r"(?P<eight> \(an eight is no answer to a two\))?$"), _penalty),
    (re.compile(r"^you have drawn the limit of (?P<limit>\d+) cards? this turn: play or pass$"), _limit),
    (re.compile(rf"^seat \d+ does not hold the {_CARD}$"),
     lambda m: gettext("you do not hold the %(card)s") % {"card": card_words(m["card"])}),
    (re.compile(rf"^the {_CARD} cannot be played now$"),
     lambda m: gettext("the %(card)s cannot be played now") % {"card": card_words(m["card"])}),
    (re.compile(r"^after drawing only the drawn card(?: \((?P<card>[A2-9TJQK][CDHS])\))? may be played$"),
     lambda m: (gettext("after drawing only the drawn card (the %(card)s) may be played") % {
         "card": card_words(m["card"])}) if m["card"] else gettext("after drawing only the drawn card may be played")),
]


#: The reasons without facts of their own: each is its own msgid, said in the reader's words by ``gettext``
#: (``gettext_noop`` marks them for ``makemessages``).
_FIXED = frozenset((
    gettext_noop("there is nothing to draw: the stock is empty and there is no card under the top card"),
    gettext_noop("you must play: you hold a playable card and drawing is only allowed without one"),
    gettext_noop("you have already drawn your card this turn: play the drawn card or pass"),
    gettext_noop("you drew a playable card: play it"),
    gettext_noop("the stock ran out during your draws: pass (the cards under the top card become the new stock for "
                 "the next seat's draw)"),
    gettext_noop("the stock ran out during your draws: play a card that fits"),
    gettext_noop("after drawing the turn ends without a play under this ruleset"),
    gettext_noop("after drawing the turn ends under this ruleset: pass"),
    gettext_noop("you cannot pass while you can still draw"),
    gettext_noop("going out on an eight is not allowed under this ruleset"),
    gettext_noop("you have already announced your last card this turn"),
    gettext_noop("announce only when you hold two cards and are about to play one of them"),
    gettext_noop("the deal is over: no more actions"),
    gettext_noop("this ruleset has no last-card announcement (last_card_penalty is 0)"),
    gettext_noop('a suit is declared with the eight that is played: {"type": "play", "card": "8H", "suit": "S"}'),
    gettext_noop("the match is over: no more actions"),
))


def reason_words(reason: str) -> str:
    """``reason`` (an ``IllegalAction``'s English message) in the active language; English, and any reason of an
    unknown shape, unchanged."""
    if _in_english():
        return reason
    if reason in _FIXED:
        return gettext(reason)
    for shape, say in _SHAPES:
        m = shape.match(reason)
        if m:
            return say(m)
    return reason


class RulesWords(Words):
    """The rules pages' words (``eights_engine.describe``) from the gettext catalogue in the active language;
    numbers spelled out in English, digits in the other languages (a number word would have to agree in case and
    gender with the words around it)."""

    def gettext(self, text: str) -> str:
        return gettext(text)

    def ngettext(self, one: str, many: str, count: int) -> str:
        return ngettext(one, many, count)

    def number(self, k: int) -> str:
        return super().number(k) if _in_english() else str(k)
