"""Golden playthroughs: one seeded match per scenario, written out as readable text (as OpenSpiel's
``integration_tests/playthroughs/`` does for its games).

Each scenario (``SCENARIOS``) names a preset, optional ruleset overrides, a seat count, a match seed and the house
strategy of each seat. ``render(scenario)`` plays that match to its end with the house strategies (deterministic:
they draw from a generator keyed by the deal seed, ply and seat) and returns the text:

* a header: scenario name, what it shows, the whole ruleset (one field a line), seats and their strategies, the
  match seed (and, under version 2, the match secret) and the scenario's engine version;
* per deal: its number, code and seed, dealer, every starting hand, the starter, the stock (top first) and who
  plays first;
* per ply: the ply number, the seat to play and its strategy, its legal actions (all of them, in canonical order),
  a one-line summary of the public facts every seat's view shows (printed once when all seats agree, else one line
  per seat), the acting seat's own view (hand, drawn card, draws left), anything private another seat's view shows
  (nothing, unless a view leaks), then the action taken and the public log entries it added;
* per deal its result (outcome, winner, each seat's remaining cards and their values, points, match totals) and at
  the end the standings and counts of the events seen (plays, eights declared, draws, passes, reshuffles, action
  cards, penalties).

The text is a function of the engine's behaviour only: any change of legality, effects, views, shuffles or scoring
changes some file. ``python -m eights_engine playthroughs --write`` writes every file into
``engine/tests/playthroughs/`` and ``--check`` compares; ``engine/tests/test_playthroughs.py`` fails on any
difference. A difference is reviewed (is the new behaviour the intended one?) and then approved by regenerating.

Pure: no I/O here (the command line reads and writes the files).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from .cards import card_code
from .match import MatchState
from .rules import PRESETS, Ruleset
from .strategies import choose

#: The default seat mix: a strong, a random (it draws and passes when it may, forgets to announce), a greedy and
#: an eager player, cycled over the seats.
DEFAULT_STRATEGIES = ("heuristic", "random", "greedy", "eager")

MAX_BYTES = 300_000  # a file above this is too long to review: lower the scenario's target (see its note)


@dataclass(frozen=True)
class Scenario:
    """One golden playthrough: ``preset`` with ``overrides`` at ``seats`` seats, match ``seed`` under engine
    ``version`` (version 2: the match secret is ``keys.secret_from_seed(seed)``), and the house strategy of each seat
    (``strategies`` cycled over the seats). ``about`` says what the scenario shows; ``note``
    why an override is there for size (a lowered target). ``name`` is the file name without ``.txt``."""

    name: str
    preset: str
    seats: int
    seed: int
    about: str
    overrides: dict = field(default_factory=dict)
    strategies: tuple = DEFAULT_STRATEGIES
    note: str = ""
    version: str = "1"  # the engine version it is dealt under ("1": pinned forever, so old records keep replaying)

    def ruleset(self) -> Ruleset:
        """The scenario's ruleset; ``ValueError`` as ``Ruleset.preset`` raises it."""
        return Ruleset.preset(self.preset, **self.overrides)

    def seat_strategies(self) -> list[str]:
        return [self.strategies[s % len(self.strategies)] for s in range(self.seats)]


#: Every preset at a seat count it allows, then option mixes. ``engine/tests/test_playthroughs.py`` checks that
#: every preset has a scenario, so a new preset needs one here (and ``--write`` to make its file).
SCENARIOS: tuple[Scenario, ...] = (
    Scenario("pagat-2", "pagat", 2, 18, "system D at two seats: draw one, dealer declares a starter eight"),
    Scenario("pagat-4", "pagat", 4, 1, "system D at four seats"),
    Scenario("web-table-3", "web-table", 3, 1, "system B: draw up to three, then play any card; pass is a ply of its own"),
    Scenario("eights-classic-4", "eights-classic", 4, 1,
             "system A: forced play, draw until playable, pass on an empty stock, winner collects"),
    Scenario("crazy-eights-3", "crazy-eights", 3, 293, "system C: starter eight buried, draw until playable or the stock is used up"),
    Scenario("points-game-4", "points-game", 4, 123, "system E: 50 points a seat, blocked ties score nobody"),
    Scenario("hollywood-2", "hollywood", 2, 1, "system A1: system A's play, three Hollywood games kept at once, Hollywood values"),
    Scenario("hollywood-four-games-2", "hollywood", 2, 1,
             "system A1 with four games agreed: when a game ends a fourth opens in its place",
             overrides={"hollywood_total_games": 4}),
    Scenario("no-draw-4", "no-draw", 4, 1, "system A4: the whole deck dealt, no stock, pass when stuck"),
    Scenario("russian-36-3", "russian-36", 3, 3, "system B with a 36-card deck: draw one, then play any card or pass"),
    Scenario("partnership-reverse-4", "pagat", 4, 5, "partners (seats 0+2 against 1+3) with aces reversing",
             overrides={"partnership": True, "reverse_rank": "A"}),
    Scenario("reverse-two-seats-noop-2", "pagat", 2, 18, "aces reverse at two seats, where a reverse does nothing",
             overrides={"reverse_rank": "A", "reverse_two_seats": "noop"}),
    Scenario("twos-stack-queen-skip-3", "pagat", 3, 7,
             "twos stack, the queen of spades makes the next seat draw five, jacks skip",
             overrides={"twos": "stack", "queen_of_spades_draw": 5, "skip_rank": "J"}),
    Scenario("twos-winding-3", "pagat", 3, 17, "twos winding (A2): a two makes the next seat draw two, no stacking",
             overrides={"twos": "winding"}),
    Scenario("ranks-36-3", "pagat", 3, 76, "system D's rules with a 36-card deck (6..A)", overrides={"ranks": "36"}),
    Scenario("double-deck-6", "pagat", 6, 2,
             "six seats play with two decks (decks 'auto'); ten cards each, so that the stock runs out",
             overrides={"hand_size": 10}),
    Scenario("last-card-penalty-3", "pagat", 3, 21,
             "announce the last card or draw two (the random seat forgets)", overrides={"last_card_penalty": 2}),
    Scenario("eights-match-suit-2", "pagat", 2, 5, "an eight must follow suit unless an eight is on top",
             overrides={"eights": "match_suit"}),
    Scenario("eights-no-declare-3", "pagat", 3, 3, "eights play as wild cards that declare nothing",
             overrides={"eights": "no_declare"}),
    Scenario("no-going-out-on-eight-3", "pagat", 3, 9, "a seat may not play its last card if it is an eight",
             overrides={"go_out_on_eight": False}),
    Scenario("action-on-going-out-3", "pagat", 3, 22,
             "an action card that goes out still acts: twos stack, jacks skip, aces reverse",
             overrides={"action_on_going_out": "apply", "twos": "stack", "skip_rank": "J", "reverse_rank": "A"}),
    # engine version 2 (keys.py): every preset dealt from 256-bit deal keys
    *(Scenario(f"v2-{preset}-{seats}", preset, seats, 1, f"engine version 2: {preset} dealt from 256-bit deal keys",
               version="2")
      for preset, seats in (("pagat", 2), ("web-table", 3), ("eights-classic", 4), ("crazy-eights", 3),
                            ("points-game", 4), ("hollywood", 2), ("no-draw", 4), ("russian-36", 3))),
)


def scenario(name: str) -> Scenario:
    """The scenario called ``name``; ``ValueError`` naming the choices for an unknown one."""
    for s in SCENARIOS:
        if s.name == name:
            return s
    raise ValueError(f"unknown playthrough {name!r:.40}: choose one of {', '.join(s.name for s in SCENARIOS)}")


def presets_covered() -> set[str]:
    """The presets that have at least one scenario."""
    return {s.preset for s in SCENARIOS}


# ---- text -----------------------------------------------------------------------------------------------

def _action_text(action: dict) -> str:
    """``play 8S>H`` (an eight declaring hearts), ``play 7C``, ``draw``, ``pass``, ``declare H``, ``announce``."""
    kind = action["type"]
    if kind == "play":
        return f"play {action['card']}" + (f">{action['suit']}" if "suit" in action else "")
    if kind == "declare":
        return f"declare {action['suit']}"
    return kind


def _legal_text(legal: list[dict]) -> str:
    words = [a["card"] + (f">{a['suit']}" if "suit" in a else "") if a["type"] == "play" else _action_text(a)
             for a in legal]
    return f"legal {len(legal)}: {' '.join(words)}"


def _entry_text(entry: dict) -> str:
    """A public history entry: ``s1 play 8S>H``, ``s2 draw 4 (penalty)``, ``s0 penalty 2``, ``s1 reshuffle 23``."""
    parts = [f"s{entry['seat']}", entry["type"]]
    if "card" in entry:
        parts.append(entry["card"] + (f">{entry['suit']}" if "suit" in entry else ""))
    elif "suit" in entry:
        parts.append(entry["suit"])
    if "count" in entry:
        parts.append(str(entry["count"]))
    if entry.get("penalty"):
        parts.append("(penalty)")
    extra = sorted(set(entry) - {"seat", "type", "card", "suit", "count", "penalty"})
    parts += [f"{k}={entry[k]!r}" for k in extra]
    return " ".join(parts)


def _public_text(view: dict) -> str:
    """The public facts of a seat's view, one line: the same for every seat unless a view is wrong."""
    suit = view["active_suit"] or "-"
    if view["declared"]:
        suit += "*"
    text = (f"to play {view['to_play']} | hands {'/'.join(map(str, view['hand_counts']))} | "
            f"top {view['top_card'] or '-'} suit {suit} | stock {view['stock_count']} discard {view['discard_count']}"
            f" | pending {view['pending_draw']} | dir {view['direction']:+d}")
    if view["awaiting_declaration"]:
        text += " | awaiting declaration"
    if any(view["out"]):
        text += " | out " + ",".join(str(s) for s, o in enumerate(view["out"]) if o)
    return text


def _private_text(view: dict, with_hand: bool) -> str:
    """What only this seat sees: its hand (for the acting seat), drawn card, draws left, announcement."""
    parts = []
    if with_hand:
        parts.append("hand " + (" ".join(view["hand"]) or "(empty)"))
    if view["drawn_card"] is not None:
        parts.append(f"drawn {view['drawn_card']}")
    if view["draws_left"] is not None:
        parts.append(f"draws left {view['draws_left']}")
    if view["announced"]:
        parts.append("announced")
    return ", ".join(parts)


def _views_text(deal: Any, acting: int | None) -> list[str]:
    """Summary lines of every seat's view of ``deal``."""
    views = [deal.view(s) for s in range(deal.seats)]
    public = [_public_text(v) for v in views]
    lines = ["  views: " + public[0]] if len(set(public)) == 1 else [
        f"  view of s{s}: {p}" for s, p in enumerate(public)]
    for s, v in enumerate(views):
        private = _private_text(v, with_hand=s == acting)
        if private:
            lines.append(f"  s{s} {'sees' if s == acting else 'also sees'}: {private}")
    return lines


def _hand_text(cards: list[str]) -> str:
    return " ".join(cards) or "(empty)"


class _Counts:
    """Events seen in the match, for the footer (a reader sees at a glance what the file exercises)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.n = {k: 0 for k in ("plies", "plays", "eights", "eights declaring", "draws", "penalty draws",
                                 "passes", "declarations", "announcements", "penalties", "reshuffles",
                                 "action cards")}

    def action_ranks(self) -> set[str]:
        r = self.ruleset
        ranks = set()
        if r.twos != "off":
            ranks.add("2")
        if r.skip_rank:
            ranks.add(r.skip_rank)
        if r.reverse_rank:
            ranks.add(r.reverse_rank)
        return ranks

    def add(self, entries: list[dict], reshuffled: bool) -> None:
        n = self.n
        for e in entries:
            kind = e["type"]
            if kind == "play":
                n["plays"] += 1
                if e["card"][0] == "8":
                    n["eights"] += 1
                    n["eights declaring"] += "suit" in e
                if e["card"][0] in self.action_ranks() or (e["card"] == "QS" and self.ruleset.queen_of_spades_draw):
                    n["action cards"] += 1
            elif kind == "draw":
                n["penalty draws" if e.get("penalty") else "draws"] += 1
            elif kind == "pass":
                n["passes"] += 1
            elif kind == "declare":
                n["declarations"] += 1
            elif kind == "announce":
                n["announcements"] += 1
            elif kind == "penalty":
                n["penalties"] += 1
            elif kind == "reshuffle":
                n["reshuffles"] += 1
        assert reshuffled == any(e["type"] == "reshuffle" for e in entries), "a reshuffle without its entry"

    def text(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.n.items())


def render(sc: Scenario) -> str:
    """The playthrough text of scenario ``sc`` (deterministic: the same engine gives the same text)."""
    rules = sc.ruleset()
    strategies = sc.seat_strategies()
    match = MatchState.start(rules, sc.seats, sc.seed, version=sc.version)
    out = [f"playthrough: {sc.name}",
           "generated by: python -m eights_engine playthroughs --write (review a diff before regenerating)",
           f"about: {sc.about}",
           f"preset: {sc.preset}" + (f"  overrides: {_overrides_text(sc.overrides)}" if sc.overrides else ""),
           ]
    if sc.note:
        out.append(f"note: {sc.note}")
    out += [f"engine version: {sc.version}",
            f"seats: {sc.seats}  ({', '.join(f's{s} {n}' for s, n in enumerate(strategies))})",
            f"match seed: {sc.seed}  target: {match.target}"]
    if match.secret is not None:
        out.append(f"match secret: {match.secret.hex()}")
    out.append("ruleset:")
    out += [f"  {k} = {v!r}" for k, v in rules.to_dict().items()]
    counts = _Counts(rules)
    deal = None
    while not match.is_over:
        if match.deal is not deal:
            deal = match.deal
            out += _deal_header(match)
        seat = match.to_play
        legal = match.legal_actions()
        before = deal.view(seat)
        out.append(f"ply {before['ply']}  s{seat} {strategies[seat]}  {_legal_text(legal)}")
        out += _views_text(deal, seat)
        action = choose(strategies[seat], match.view(seat), legal, deal.seed)
        logged = len(before["history"])
        match.apply(action)
        after = deal.view(seat)
        entries = after["history"][logged:]
        played = action["type"] == "play"
        counts.add(entries, after["discard_count"] < before["discard_count"] + played)  # a reshuffle took the pile
        counts.n["plies"] += 1
        out.append(f"  -> {_action_text(action)}    log: {'; '.join(_entry_text(e) for e in entries) or '-'}")
        if deal.is_over:
            out += _deal_footer(match, deal)
    out += ["== match over ==",
            f"  deals {match.deal_number}  totals {match.totals}  standings {match.standings}",
            f"  events: {counts.text()}", ""]
    return "\n".join(out)


def _overrides_text(overrides: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in overrides.items())


def _deal_header(match: MatchState) -> list[str]:
    deal = match.deal
    source = f"key {deal.seed.hex()}" if isinstance(deal.seed, bytes) else f"seed {deal.seed}"
    lines = [f"== deal {match.deal_number}  code {deal.code}  {source}  dealer s{deal.dealer} =="]
    lines += [f"  s{s} hand: {_hand_text(deal.hand(s))}" for s in range(deal.seats)]
    lines.append(f"  starter: {deal.top_card or '(none: the whole deck is dealt)'}"
                 + ("  (the dealer declares a suit)" if deal.awaiting_declaration else ""))
    lines.append(f"  stock {deal.stock_count} (top first): {' '.join(card_code(c) for c in reversed(deal.stock))}")
    lines.append(f"  first to act: s{deal.to_play}")
    return lines


def _deal_footer(match: MatchState, deal: Any) -> list[str]:
    result = deal.result
    lines = _views_text(deal, None)
    lines.append(f"  result: {result.outcome}, winner "
                 f"{'-' if result.winner is None else 's' + str(result.winner)}, plies {result.plies}")
    for s in range(deal.seats):
        lines.append(f"    s{s} left {_hand_text(deal.hand(s))} = {result.hand_values[s]}  points {result.points[s]:+d}")
    lines.append(f"  totals after deal {len(match.results)}: {match.totals}")
    if match.hollywood:
        hw = match.hollywood.to_dict()
        games = [f"game {g['game']} {g['scores']}" for g in hw["open"]]
        games += [f"game {g['game']} {g['scores']} won by s{g['winner']}" for g in hw["finished"]]
        lines.append(f"  hollywood: {'; '.join(games)}; deals won {hw['deals_won']}")
    return lines


def render_all() -> dict[str, str]:
    """``{file name: text}`` for every scenario (file names ``<scenario name>.txt``)."""
    return {f"{s.name}.txt": render(s) for s in SCENARIOS}


def short_diff(expected: str, actual: str, name: str, lines: int = 40) -> str:
    """The first ``lines`` lines of a unified diff from the stored file (``expected``) to the engine's text."""
    diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"stored/{name}",
                                     f"engine/{name}", lineterm="", n=2))
    more = len(diff) - lines
    return "\n".join(diff[:lines] + ([f"... ({more} more diff lines)"] if more > 0 else []))


__all__ = ["MAX_BYTES", "PRESETS", "SCENARIOS", "Scenario", "presets_covered", "render", "render_all", "scenario",
           "short_diff"]
