"""The tactician: a house strategy that plays the web table's own tactics (seed 001, "Tactics"; RULES.md system B).

The document's advice, one tactic each, in the order the strategy weighs them:

1. **Go out** whenever a play empties the hand.
2. **An opponent down to one card** (``LAST_CARD_ALERT``): "either change the suit to one they most likely do not
   hold, or shed your most expensive card at once". Every play is rated by how many unseen cards would fit after it
   for that opponent (``fit_chance``): the unseen cards of the suit it leaves active, discounted by how sure we are
   that the opponent lacks that suit (``void_confidence``: a seat that drew when a suit was to be followed had none),
   plus the unseen cards of its rank and the unseen eights. Among the plays within one card of the safest, the most
   expensive goes. No voluntary draws while an opponent holds two cards or fewer: a longer hand only costs.
3. **Eights**: "the only card that always fits, but it costs 50 points: hold it while the hand is long and spend it
   when three or four cards are left and the end is in sight" (``SPEND_EIGHTS_AT``). A plain card that fits always
   goes before an eight. With a long hand an eight that is the only play is held by drawing one card first ("drawing
   is allowed even when a legal play exists: the lever by which one holds an eight"); with four cards or fewer it
   is spent. "Spend" is read as "use when needed", not "play first": playing the eight ahead of plain cards at four
   cards lost clearly to the house heuristic (BENCHMARKS.md). An eight names the suit the hand holds most of ("then
   the next move finds itself"); a tie goes to the suit with fewer unseen cards, which the others are less likely to
   follow.
4. **Once a suit is gone** from the hand, "pull the play into your longest suit: the others will have to draw": the
   plain play that leaves the most cards of its suit in hand wins, then the higher value. While every suit is still
   in hand the highest value is shed first, the longer suit breaking ties.
5. **"Drawing by choice is often cheaper than laying down a king"**: with a long hand and nobody close to going out,
   a high card (10 points or more) that would leave nothing in hand to follow it (no card of its suit or rank, no
   eight) is kept and one card is drawn instead, once a turn.

Voluntary draws (tactics 3 and 5) are taken only where the turn goes on after a draw (two or more draws left, as at
the web table); under pagat's single draw a drawn card that does not fit ends the turn, which costs more than the
card.

What it reads: only the seat's view (DESIGN.md, hidden information) and the legal actions, never another hand.
The deck is told from the card count (``stock_count + discard_count + hand_counts``: 36, 52 or 104 cards); the
cards on the discard pile are the last ``discard_count`` plays of the public history (a starter covered by a play is
no longer in any view, and a reshuffle puts the played cards back among the unseen). It keeps no state between
turns and uses no randomness, so a replay makes the same choices. It prices cards at the standard values (eight 50,
ten to king 10, ace 1): the view does not carry the ruleset, so under hollywood values it still sheds as if at the
web table. It knows nothing of partnerships (the view does
not say who is a partner): a partner with one card is watched like an opponent.
"""

from __future__ import annotations

from collections import Counter

from .cards import SUITS
from .rng import SplitMix64

#: "hold it while there are many cards, spend it when three or four are left": with more cards than this the hand is
#: long (an eight that is the only play is held by drawing, a king kept); with this many or fewer an eight is played
#: whenever no plain card fits.
SPEND_EIGHTS_AT = 4
#: "someone has one card left": the end-game guard watches opponents holding this many cards or fewer.
LAST_CARD_ALERT = 1
#: no voluntary draws while an opponent holds this many cards or fewer (a drawn card is one more to pay for).
CLOSE_TO_OUT = 2
#: a "king": a card worth this much or more, kept rather than played into a suit the hand cannot follow.
KING_VALUE = 10

#: The house strategies a beginner's guest table seats, in seat order (``settings.GUEST_OPPONENTS`` takes
#: its default from here): one on one the first, three seats both. Chosen from BENCHMARKS.md ("House strategies against
#: each other"), with ``eager`` standing in for a beginner (it plays the first card that fits and draws only when stuck,
#: as someone who has just read the rules does). One on one against ``eager`` such a player wins about half (by
#: symmetry): the first minute should be winnable. At three seats against ``eager`` and ``greedy`` it wins 26 %
#: (22-30 %, fair share 33 %): it loses more often than not but wins sometimes. Against ``greedy`` one on one it wins
#: 32 % (27-37 %), against ``heuristic`` 18 %, against ``tactician`` 14 %; ``random`` loses nearly every match (it draws
#: at random) and would teach nothing.
GUEST_OPPONENTS = ("eager", "greedy")

_RANKS = "A23456789TJQK"
_VALUES = {r: (50 if r == "8" else 10 if r in "TJQK" else 1 if r == "A" else int(r)) for r in _RANKS}


def tactician_strategy(view: dict, legal: list[dict], rng: SplitMix64 | None = None) -> dict:
    """The action seed 001's tactics take in ``view`` (a seat's view dict) among ``legal`` (the engine's legal
    actions, canonical order, not empty). Returns one of ``legal``; ``rng`` is unused (the choice is a function of
    the view). Works under every preset and option; the tactics are those of system B."""
    hand = view["hand"]
    plays = [a for a in legal if a["type"] == "play"]
    for action in legal:
        if action["type"] == "declare":  # the dealer under a starter eight (system D)
            return {"type": "declare", "suit": _declaration(view, hand)}
    if not plays:
        return _draw_or_pass(legal)
    if len(hand) == 1:
        return _with_declaration(view, plays[0], [])
    alert = [s for s, n in enumerate(view["hand_counts"])
             if s != view["seat"] and 0 < n <= LAST_CARD_ALERT and not _is_out(view, s)]
    if alert and not view.get("pending_draw"):
        return _guard(view, plays, _nearest(view, alert))
    eights = [a for a in plays if a["card"][0] == "8"]
    plain = [a for a in plays if a["card"][0] != "8"]
    may_draw = _may_draw_voluntarily(view, legal) and len(hand) > SPEND_EIGHTS_AT
    if not plain:
        # hold the eight while the hand is long: one card drawn is cheaper than 50 points spent early
        return {"type": "draw"} if may_draw else _play_eight(view, eights)
    best = _lead(hand, plain)
    if may_draw and _gives_up_a_king(best["card"], hand):
        return {"type": "draw"}
    return best


# ---- the tactics ---------------------------------------------------------------------------------------------------

def _guard(view: dict, plays: list[dict], target: int) -> dict:
    """An opponent (``target``) has one card: the play after which it is least likely to fit, the most expensive
    one among those within one card of the safest."""
    unseen = unseen_cards(view)
    void = void_confidence(view, target)
    rated = []
    for action in plays:
        action = _with_declaration(view, action, [c for c in view["hand"] if c != action["card"]], unseen, void)
        rated.append((fit_chance(action, unseen, void), action))
    safest = min(f for f, _ in rated)
    near = [(f, a) for f, a in rated if f <= safest + 1.0]
    return max(near, key=lambda fa: (_VALUES[fa[1]["card"][0]], -fa[0], fa[1]["card"]))[1]


def _lead(hand: list[str], plain: list[dict]) -> dict:
    """The plain play: into the longest suit once a suit is gone from the hand, else the highest value."""
    lengths = _suit_lengths(hand)
    suit_gone = any(lengths[s] == 0 for s in SUITS)

    def key(action: dict) -> tuple:
        card = action["card"]
        left = lengths[card[1]] - 1
        value = _VALUES[card[0]]
        return (left, value, card) if suit_gone else (value, left, card)
    return max(plain, key=key)


def _gives_up_a_king(card: str, hand: list[str]) -> bool:
    """Whether playing ``card`` gives up a high card and leaves nothing in hand that follows it."""
    if _VALUES[card[0]] < KING_VALUE:
        return False
    rest = [c for c in hand if c != card]
    return not any(c[0] == "8" or c[1] == card[1] or c[0] == card[0] for c in rest)


def _play_eight(view: dict, eights: list[dict]) -> dict:
    hand = view["hand"]
    return _with_declaration(view, eights[0], [c for c in hand if c != eights[0]["card"]])


def _with_declaration(view: dict, action: dict, rest: list[str], unseen: Counter | None = None,
                      void: dict | None = None) -> dict:
    """``action`` with the suit its eight should declare (unchanged when the rules ask for no declaration)."""
    if "suit" not in action:
        return action
    if void is not None:  # end-game guard: the suit the watched opponent is least likely to follow
        suit = min(SUITS, key=lambda s: (fit_chance({"type": "play", "card": action["card"], "suit": s},
                                                    unseen, void), -_suit_lengths(rest)[s], s))
    else:
        suit = _declaration(view, rest)
    return {"type": "play", "card": action["card"], "suit": suit}


def _declaration(view: dict, cards: list[str]) -> str:
    """The suit ``cards`` hold most of (eights aside); ties: fewer unseen cards of the suit, then code order."""
    lengths = _suit_lengths(cards)
    unseen = _suit_lengths(list(unseen_cards(view).elements()))
    return max(SUITS, key=lambda s: (lengths[s], -unseen[s], -SUITS.index(s)))


# ---- what the view tells ------------------------------------------------------------------------------------------

def known_pile(view: dict) -> list[str]:
    """The discard pile's cards a seat can name, bottom first: the last ``discard_count`` plays of the history (a
    reshuffle leaves the last play as the new pile's bottom card) and the top card; a pile longer than that holds a
    starter covered by a play, which no view names."""
    count = view["discard_count"]
    pile = [e["card"] for e in view["history"] if e.get("type") == "play"][-count:] if count else []
    if view["top_card"] and (not pile or pile[-1] != view["top_card"]):
        pile.append(view["top_card"])
    return pile


def unseen_cards(view: dict) -> Counter:
    """Cards this seat has not seen that are not on the discard pile: card code -> copies (2 under a double deck).
    The deck (36, 52 or 104 cards) is told from the card count; the pile's known cards are its top card and the
    last ``discard_count`` plays of the history, the seat's own cards are its hand."""
    total = view["stock_count"] + view["discard_count"] + sum(view["hand_counts"])
    copies = 2 if total > 52 else 1
    ranks = "A6789TJQK" if total == 36 else _RANKS
    unseen = Counter({r + s: copies for s in SUITS for r in ranks})
    for card in list(view["hand"]) + known_pile(view):
        if unseen[card] > 0:
            unseen[card] -= 1
    return +unseen


def void_confidence(view: dict, seat: int) -> dict:
    """How sure (0..1) we are that ``seat`` holds no plain card of each suit: a turn in which it drew (not a draw
    penalty) while a suit was to be followed says it had none (or chose to keep what it had); every card it drew
    on a later turn may have been of that suit, so the confidence falls by a third per card drawn since."""
    confidence = {s: 0.0 for s in SUITS}
    active = None  # the suit to follow before the next entry; unknown until the first play is seen
    turn_seat, turn_suit, turn_draws = None, None, 0

    def close_turn() -> None:
        if turn_seat == seat and turn_draws:
            for s in SUITS:
                confidence[s] *= (2 / 3) ** turn_draws
            if turn_suit is not None:
                confidence[turn_suit] = 1.0

    for entry in view["history"]:
        who, kind = entry.get("seat"), entry.get("type")
        if kind not in ("play", "draw", "pass", "declare"):
            continue  # penalty cards, reshuffles and entries added later say nothing of a suit held
        if who != turn_seat:
            close_turn()
            turn_seat, turn_suit, turn_draws = who, active, 0
        if kind == "draw" and not entry.get("penalty"):
            turn_draws += entry.get("count", 1)
        elif kind == "play":
            card = entry["card"]
            active = entry.get("suit") or card[1]
        elif kind == "declare":
            active = entry["suit"]
    close_turn()
    return confidence


def fit_chance(action: dict, unseen: Counter, void: dict) -> float:
    """How many ``unseen`` cards (``unseen_cards``) would fit after ``action`` (a play) for a seat with the given
    ``void_confidence``: plain cards of the suit it leaves to follow (weighted by how likely that seat holds the
    suit), cards of its rank in other suits, and every eight. A number of cards, not a probability; smaller is
    safer."""
    card = action["card"]
    suit = action.get("suit") or card[1]
    fits = 0.0
    for code, n in unseen.items():
        if code[0] == "8":
            fits += n
        elif code[1] == suit:
            fits += n * (1.0 - void[suit])
        elif code[0] == card[0]:
            fits += n
    return fits


# ---- small reads ---------------------------------------------------------------------------------------------------

def _suit_lengths(cards: list[str]) -> Counter:
    lengths = Counter({s: 0 for s in SUITS})
    lengths.update(c[1] for c in cards if c[0] != "8")
    return lengths


def _is_out(view: dict, seat: int) -> bool:
    out = view.get("out") or []
    return seat < len(out) and bool(out[seat])


def _nearest(view: dict, seats: list[int]) -> int:
    """The seat among ``seats`` that plays soonest after this one (in the direction of play)."""
    n, me, step = len(view["hand_counts"]), view["seat"], view.get("direction") or 1
    return min(seats, key=lambda s: ((s - me) * step) % n)


def _may_draw_voluntarily(view: dict, legal: list[dict]) -> bool:
    """A draw by choice: legal, the first of this turn, the turn goes on after it (two or more draws allowed, as at
    the web table: under pagat's single draw it would cost the turn), no penalty pending, cards to draw, and nobody
    close to going out."""
    if {"type": "draw"} not in legal or view.get("pending_draw") or view.get("drawn_card"):
        return False
    if view.get("draws_left") is None or view["draws_left"] < 2:
        return False
    if view["stock_count"] == 0 and view["discard_count"] <= 1:
        return False
    others = [n for s, n in enumerate(view["hand_counts"]) if s != view["seat"] and not _is_out(view, s)]
    return not others or min(others) > CLOSE_TO_OUT


def _draw_or_pass(legal: list[dict]) -> dict:
    for kind in ("draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]
