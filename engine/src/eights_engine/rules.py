"""``Ruleset``: every option of every rule system in RULES.md as one frozen dataclass, plus the presets.

Field names are a public schema (ladders store ``to_dict()``, bots receive it): add fields, rename none.
Each field's comment names the RULES.md system it comes from; every option is played by the engine.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

_AUTO = "auto"


@dataclass(frozen=True)
class Ruleset:
    """The rules a deal and a match are played under. Defaults are the ``pagat`` preset (system D)."""

    seats_min: int = 2  # all systems
    seats_max: int = 8
    decks: Any = _AUTO  # "auto" (1, or 2 for 6+ seats), 1, 2: A B
    ranks: str = "52"  # "52" (A..K) or "36" (6..A): B
    hand_size: Any = _AUTO  # "auto" (7 for 2 seats, else 5), a number, "all" (no stock, no starter): all, A4
    starter_eight: str = "dealer_declares"  # dealer_declares D, reshuffle A, bury C, own_suit B
    draw: str = "one"  # one D, until_playable A C, up_to B
    draw_limit: int = 3  # with draw="up_to": B
    play_after_draw: str = "drawn_only"  # drawn_only D, any B, none
    voluntary_draw: bool = True  # B D; false = forced play, C
    empty_stock: str = "reshuffle"  # reshuffle B C D, pass A
    stock_out_ends_turn: bool = False  # C: a seat whose draws use up the stock stops drawing (the turn ends)
    explicit_pass: bool = False  # B: after drawing with no play and no draw left, pass is a ply of its own
    eights: str = "anytime"  # anytime, match_suit, no_declare: C
    go_out_on_eight: bool = True  # B
    twos: str = "off"  # off, stack D E, winding A2
    queen_of_spades_draw: int = 0  # 0, 5: A3 E
    skip_rank: Any = None  # None, "J", "Q": E D
    reverse_rank: Any = None  # None, "A": D E
    reverse_two_seats: str = "skip"  # skip (same seat again), noop
    last_card_penalty: int = 0  # 0, 2: C D
    action_on_going_out: str = "void"  # void E, apply
    partnership: bool = False  # A C
    scoring: str = "penalty"  # penalty B D, winner_collects A C E, hollywood A1
    card_values: str = "standard"  # standard, hollywood A1
    target: int = 100  # B D
    target_per_seat: int = 0  # E (50)
    hollywood_games: int = 3  # A1: games kept at once
    hollywood_total_games: int = 3  # A1: games in the match ("agreed before the first deal"); >= hollywood_games
    target_reached_wins: bool = True  # A1
    blocked: str = "each_own"  # each_own D, lowest_collects_difference A E
    blocked_tie: str = "split"  # split A, nobody E
    match_tie: str = "share"  # share, play_on: B
    first_player: str = "left_of_dealer"  # all; previous_winner B
    dealer_rotates: bool = True  # E (and our reading for the others: the deal passes left)
    ply_limit: int = 1000  # service safeguard, not from the sources: a deal longer than this is scored as blocked

    def __post_init__(self) -> None:
        self.validate()  # a Ruleset is valid from birth (frozen), so the engine need not check it again

    # ---- construction -------------------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> "Ruleset":
        """The named preset of RULES.md with ``overrides`` applied; ``ValueError`` for an unknown name or field."""
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"unknown preset {name!r:.40}: choose one of {', '.join(sorted(PRESETS))}")
        return cls.from_dict({**PRESETS[name], **overrides})

    @classmethod
    def from_dict(cls, d: dict) -> "Ruleset":
        """Build from a dict of fields (missing ones take the ``pagat`` defaults).

        Raises ``ValueError`` naming the field for an unknown field or a value outside its choices.
        """
        if not isinstance(d, dict):
            raise ValueError(f"a ruleset is a JSON object of fields, not {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known, key=repr)
        if unknown:
            raise ValueError(f"unknown ruleset field {unknown[0]!r:.40}; fields are: {', '.join(sorted(known))}")
        return cls(**d)

    def to_dict(self) -> dict:
        """All fields as a JSON-ready dict; ``from_dict(to_dict())`` gives an equal ruleset."""
        return dataclasses.asdict(self)

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first field whose value is not one of its choices, or a combination that
        can never deal (a ``hand_size`` that leaves no card for a starter at every seat count allowed)."""
        for name, check in _CHOICES.items():
            value = getattr(self, name)
            if not check(value):
                raise ValueError(f"ruleset field {name!r} cannot be {value!r}: {_HELP[name]}")
        if self.seats_min > self.seats_max:
            raise ValueError(f"ruleset field 'seats_min' ({self.seats_min}) is above 'seats_max' ({self.seats_max})")
        if self.hollywood_total_games < self.hollywood_games:
            raise ValueError("ruleset field 'hollywood_total_games' cannot be below 'hollywood_games'")
        if self.partnership and self.seats_min > 4 or self.partnership and self.seats_max < 4:
            raise ValueError("ruleset field 'partnership' needs 4 seats within seats_min..seats_max")
        if self.ranks == "36" and self.twos != "off":
            raise ValueError("ruleset field 'twos' must be 'off' with ranks '36': a 36-card deck has no twos")
        if isinstance(self.hand_size, int):  # a deal needs a card left for the starter (Deal.start)
            seat_counts = range(self.seats_min, self.seats_max + 1)
            if all(self.hand_size * s + 1 > self.deck_size(s) for s in seat_counts):
                raise ValueError(
                    f"ruleset field 'hand_size' cannot be {self.hand_size} with {self.seats_min} to {self.seats_max} "
                    f"seats: hand_size {self.hand_size} leaves no card for a starter at any of these seat counts "
                    f"({self.seats_min} seats need {self.hand_size * self.seats_min + 1} cards, the deck has "
                    f"{self.deck_size(self.seats_min)}); lower hand_size, use fewer seats or two decks")

    # ---- derived facts ------------------------------------------------------------------------------
    def deck_count(self, seats: int) -> int:
        """Number of 52- (or 36-) card decks for ``seats`` players (system A: two at 6..8)."""
        return (2 if seats >= 6 else 1) if self.decks == _AUTO else int(self.decks)

    def deck_size(self, seats: int) -> int:
        """Cards in the whole deck for ``seats`` players (``deck_count`` decks of 52 or 36)."""
        return self.deck_count(seats) * (36 if self.ranks == "36" else 52)

    def cards_per_hand(self, seats: int) -> int | None:
        """Cards dealt to each seat, or ``None`` when the whole deck is dealt (system A4)."""
        if self.hand_size == "all":
            return None
        if self.hand_size == _AUTO:
            return 7 if seats == 2 else 5
        return int(self.hand_size)

    @property
    def lower_total_wins(self) -> bool:
        """Whether the lowest match total is best: penalty scoring (systems B, D); under winner-collects and
        Hollywood scoring (A, C, E) the highest is. Every place, standing and swing is signed by this one fact."""
        return self.scoring == "penalty"

    def target_for(self, seats: int) -> int:
        """Match target in points: ``target_per_seat * seats`` when set (system E), else ``target``."""
        return self.target_per_seat * seats if self.target_per_seat > 0 else self.target


def _one_of(*values: Any):
    return lambda v: v in values and type(v) in {type(x) for x in values}


def _int_in(lo: int, hi: int):
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


_CHOICES = {
    "seats_min": _int_in(2, 8),
    "seats_max": _int_in(2, 8),
    "decks": lambda v: v == _AUTO or (type(v) is int and v in (1, 2)),
    "ranks": _one_of("52", "36"),
    "hand_size": lambda v: v in (_AUTO, "all") if isinstance(v, str) else _int_in(1, 26)(v),
    "starter_eight": _one_of("dealer_declares", "reshuffle", "bury", "own_suit"),
    "draw": _one_of("one", "until_playable", "up_to"),
    "draw_limit": _int_in(1, 52),
    "play_after_draw": _one_of("drawn_only", "any", "none"),
    "voluntary_draw": _one_of(True, False),
    "empty_stock": _one_of("reshuffle", "pass"),
    "stock_out_ends_turn": _one_of(True, False),
    "explicit_pass": _one_of(True, False),
    "eights": _one_of("anytime", "match_suit", "no_declare"),
    "go_out_on_eight": _one_of(True, False),
    "twos": _one_of("off", "stack", "winding"),
    "queen_of_spades_draw": lambda v: type(v) is int and v in (0, 5),
    "skip_rank": lambda v: v is None or (isinstance(v, str) and v in ("J", "Q")),
    "reverse_rank": lambda v: v is None or (isinstance(v, str) and v == "A"),
    "reverse_two_seats": _one_of("skip", "noop"),
    "last_card_penalty": lambda v: type(v) is int and v in (0, 2),
    "action_on_going_out": _one_of("void", "apply"),
    "partnership": _one_of(True, False),
    "scoring": _one_of("penalty", "winner_collects", "hollywood"),
    "card_values": _one_of("standard", "hollywood"),
    "target": _int_in(1, 100000),
    "target_per_seat": _int_in(0, 10000),
    "hollywood_games": _int_in(1, 9),
    "hollywood_total_games": _int_in(1, 99),
    "target_reached_wins": _one_of(True, False),
    "blocked": _one_of("each_own", "lowest_collects_difference"),
    "blocked_tie": _one_of("split", "nobody"),
    "match_tie": _one_of("share", "play_on"),
    "first_player": _one_of("left_of_dealer", "previous_winner"),
    "dealer_rotates": _one_of(True, False),
    "ply_limit": _int_in(10, 1_000_000),
}

_HELP = {
    "seats_min": "a whole number from 2 to 8",
    "seats_max": "a whole number from 2 to 8",
    "decks": "'auto', 1 or 2",
    "ranks": "'52' or '36'",
    "hand_size": "'auto', 'all' or a whole number from 1 to 26",
    "starter_eight": "'dealer_declares', 'reshuffle', 'bury' or 'own_suit'",
    "draw": "'one', 'until_playable' or 'up_to'",
    "draw_limit": "a whole number from 1 to 52",
    "play_after_draw": "'drawn_only', 'any' or 'none'",
    "voluntary_draw": "true or false",
    "empty_stock": "'reshuffle' or 'pass'",
    "stock_out_ends_turn": "true or false",
    "explicit_pass": "true or false",
    "eights": "'anytime', 'match_suit' or 'no_declare'",
    "go_out_on_eight": "true or false",
    "twos": "'off', 'stack' or 'winding'",
    "queen_of_spades_draw": "0 or 5",
    "skip_rank": "null, 'J' or 'Q'",
    "reverse_rank": "null or 'A'",
    "reverse_two_seats": "'skip' or 'noop'",
    "last_card_penalty": "0 or 2",
    "action_on_going_out": "'void' or 'apply'",
    "partnership": "true or false",
    "scoring": "'penalty', 'winner_collects' or 'hollywood'",
    "card_values": "'standard' or 'hollywood'",
    "target": "a whole number of points from 1 to 100000",
    "target_per_seat": "a whole number of points from 0 to 10000",
    "hollywood_games": "a whole number from 1 to 9",
    "hollywood_total_games": "a whole number from 1 to 99, at least hollywood_games",
    "target_reached_wins": "true or false",
    "blocked": "'each_own' or 'lowest_collects_difference'",
    "blocked_tie": "'split' or 'nobody'",
    "match_tie": "'share' or 'play_on'",
    "first_player": "'left_of_dealer' or 'previous_winner'",
    "dealer_rotates": "true or false",
    "ply_limit": "a whole number from 10 to 1000000",
}

#: The presets of RULES.md ("Presets the engine must ship"); names are stable API.
#:
#: ``points-game`` (system E, seed 004) and its draw rule: the document lists "draw until playable" only among the
#: optional settings of the standard game and names no default. Our reading, as the preset plays today: E starts from
#: A's rules (seed 000, which it shares scoring and the blocked-deal rule with): ``draw="until_playable"`` with
#: ``play_after_draw="drawn_only"`` and forced play (``voluntary_draw=False``), the starter eight reshuffled. A ladder
#: wanting Pagat's one-card draw instead sets ``draw="one"``.
PRESETS: dict[str, dict[str, Any]] = {
    "pagat": {},
    "web-table": {
        "seats_max": 8, "starter_eight": "own_suit", "draw": "up_to", "draw_limit": 3, "play_after_draw": "any",
        "first_player": "previous_winner", "explicit_pass": True,
    },
    "eights-classic": {
        "starter_eight": "reshuffle", "draw": "until_playable", "play_after_draw": "drawn_only",
        "voluntary_draw": False, "empty_stock": "pass", "scoring": "winner_collects",
        "blocked": "lowest_collects_difference", "blocked_tie": "split",
    },
    "crazy-eights": {
        "seats_max": 4, "hand_size": 5, "starter_eight": "bury", "draw": "until_playable",
        "play_after_draw": "drawn_only", "stock_out_ends_turn": True, "scoring": "winner_collects",
        "blocked": "lowest_collects_difference", "target": 300,
    },
    "points-game": {
        "seats_max": 7, "starter_eight": "reshuffle", "draw": "until_playable", "play_after_draw": "drawn_only",
        "voluntary_draw": False, "scoring": "winner_collects", "target_per_seat": 50,
        "blocked": "lowest_collects_difference", "blocked_tie": "nobody",
    },
    "hollywood": {
        "seats_min": 2, "seats_max": 2, "starter_eight": "reshuffle", "draw": "until_playable",
        "play_after_draw": "drawn_only", "voluntary_draw": False, "empty_stock": "pass", "scoring": "hollywood",
        "card_values": "hollywood", "blocked": "lowest_collects_difference", "blocked_tie": "split",
    },
    "no-draw": {
        "seats_min": 4, "seats_max": 4, "hand_size": "all", "draw": "one", "empty_stock": "pass",
        "scoring": "winner_collects", "blocked": "lowest_collects_difference",
    },
    "russian-36": {
        "seats_max": 6, "ranks": "36", "hand_size": 5, "starter_eight": "own_suit", "draw": "up_to",
        "draw_limit": 1, "play_after_draw": "any", "first_player": "previous_winner", "explicit_pass": True,
    },
}
