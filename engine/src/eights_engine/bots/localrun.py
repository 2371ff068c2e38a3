"""Play full matches between bot endpoints on your own machine, without the service (like the Battlesnake CLI).

    python -m eights_engine.bots.localrun URL [URL...] --preset NAME --seed S [--matches K]
                                [--secret S | --secrets S1,S2,...] [--plies] [--timeout-ms 1000] [--record FILE]

Each URL (or ``house:NAME`` for a built-in house strategy: random, eager, greedy, heuristic, tactician, expert) takes one
seat, in the order given. Requests are the service's own: the same ``turn`` bodies
(eights_engine.bots.protocol.turn_request, from the referee's ``Turn``), signed the same way, the same deadline per
turn plus a time bank per seat and match (``--time-bank-ms``), no redirects, a 64 KiB reply cap. Every turn goes
through the service's own referee (``eights_engine.referee.play_turn``): a fault (timeout, connection, http_status,
redirect, oversize, bad_json, schema, illegal) plays the fallback action (draw if legal, else pass, else the first
legal action) and is printed with its cause; ``--max-faults`` consecutive faults forfeit the match (last place), as
on the ladder. After each match every bot gets a ``match_end`` (failures are printed and ignored). Match k is played
with seed S+k-1; with several matches the seats rotate (``--no-rotate`` keeps them). ``--record FILE`` writes each
match's record, one JSON line per match (``match_record``): the engine's replay record with every deal's result and
faults, each seat's player, the result and each ply's think time; ``python -m eights_engine replay FILE`` checks it
and the service's ``/replay/open/`` page shows it in the replay viewer. No database, no Django settings: only the
engine and httpx.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import TextIO
from urllib.parse import urlsplit

from eights_engine import HOUSE_STRATEGIES, MatchState, Ruleset, referee
from eights_engine.keys import deal_key_commitment
from eights_engine.strategies import choose_turn, strategy_rng

from eights_engine.bots.bot_calls import ask_turn, make_client, post_signed
from eights_engine.bots.protocol import BotFault, match_end_body, reply_debug

HOUSE_PREFIX = "house:"


@dataclass
class Participant:
    """One entry of the command line (a bot URL or a house strategy) and what it did over all matches."""

    index: int
    url: str | None = None
    strategy: str | None = None
    secret: str = ""
    matches: int = 0
    wins: int = 0
    places: list[int] = field(default_factory=list)
    forfeits: int = 0
    calls: int = 0
    faults: Counter = field(default_factory=Counter)
    latencies: list[int] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"#{self.index + 1} {self.url or HOUSE_PREFIX + str(self.strategy)}"

    @property
    def is_bot(self) -> bool:
        return self.url is not None


@dataclass
class SeatState:
    """Per seat and match, as the service keeps it on the seat row."""

    player: Participant
    time_bank_ms: int
    last_latency_ms: int | None = None
    consecutive_faults: int = 0
    faults: int = 0


@dataclass
class MatchOutcome:
    number: int
    seed: int
    seating: list[int]  # participant index by seat
    totals: list[int]
    standings: list[int]
    forfeited: int | None
    deals: int
    plies: int
    faults: list[str]
    record: dict | None = None  # match_record's, with --record


def _participant(word: str, index: int) -> Participant:
    if word.startswith(HOUSE_PREFIX):
        name = word[len(HOUSE_PREFIX):]
        if name not in HOUSE_STRATEGIES:
            raise ValueError(f"unknown house strategy {name!r} in {word!r}: choose one of "
                             f"{', '.join(HOUSE_PREFIX + s for s in HOUSE_STRATEGIES)}")
        return Participant(index, strategy=name)
    try:
        parts = urlsplit(word)
        parts.port  # noqa: B018 -- raises ValueError for a bad port
    except ValueError as exc:
        raise ValueError(f"{word!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{word!r}: a bot URL must start with http:// or https:// (not "
                         f"{parts.scheme + ':' if parts.scheme else 'no scheme'}); a house strategy is "
                         f"written house:NAME")
    if not parts.hostname:
        raise ValueError(f"{word!r} has no host name")
    return Participant(index, url=word)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eights_engine.bots.localrun", description="Play full Crazy Eights matches between bot "
        "endpoints locally, without the service.", epilog="Example: python -m eights_engine.bots.localrun "
        "http://127.0.0.1:8765/ house:heuristic --preset pagat --seed 1 --matches 4 --secret S")
    parser.add_argument("players", nargs="+", metavar="URL", help="bot endpoint URL, or house:NAME (random, eager, "
                        "greedy, heuristic, tactician, expert); one seat each, in order")
    parser.add_argument("--preset", required=True, help="ruleset preset (pagat, web-table, eights-classic, ...)")
    parser.add_argument("--seed", required=True, type=int, help="match seed (match k uses seed+k-1)")
    parser.add_argument("--matches", type=int, default=1, help="how many matches (default 1)")
    secrets = parser.add_mutually_exclusive_group()
    secrets.add_argument("--secret", help="the signing secret of every bot (default: $BOT_SECRET)")
    secrets.add_argument("--secrets", help="one secret per player, comma separated, in order (empty for house "
                         "players)")
    parser.add_argument("--plies", action="store_true", help="print every ply")
    parser.add_argument("--record", metavar="FILE", help="write each match's record to FILE, one JSON line per match "
                        "(check it with: python -m eights_engine replay FILE; view it on the service's /replay/open/ "
                        "page)")
    parser.add_argument("--timeout-ms", type=int, default=1000, help="deadline per turn in ms (default 1000, as "
                        "BOT_TURN_TIMEOUT_MS)")
    parser.add_argument("--time-bank-ms", type=int, default=5000, help="time bank per seat and match in ms "
                        "(default 5000, as BOT_TIME_BANK_MS)")
    parser.add_argument("--max-faults", type=int, default=3, help="consecutive faults that forfeit a match "
                        "(default 3, as on the ladder; 0 = never forfeit)")
    parser.add_argument("--no-rotate", action="store_true", help="keep the seating in every match (default: "
                        "seats rotate from match to match)")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse and check the command line; bad arguments end with an argparse error (exit status 2)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.ruleset = Ruleset.preset(args.preset)
    except ValueError as exc:
        parser.error(f"--preset: {exc}")
    if args.record is not None:
        folder = os.path.dirname(os.path.abspath(args.record))
        if not args.record or os.path.isdir(args.record) or not os.path.isdir(folder):
            parser.error(f"--record {args.record!r}: give a file name in an existing folder (the records are written "
                         "there, one JSON line per match)")
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    if not 0 <= args.seed <= 2**64 - args.matches:
        parser.error("--seed must be from 0 to 2**64-1 (with room for one seed per match)")
    if not 50 <= args.timeout_ms <= 60000:
        parser.error("--timeout-ms must be from 50 to 60000")
    if not 0 <= args.time_bank_ms <= 600000:
        parser.error("--time-bank-ms must be from 0 to 600000")
    if args.max_faults < 0:
        parser.error("--max-faults must be 0 (never forfeit) or more")
    players = []
    for i, word in enumerate(args.players):
        try:
            players.append(_participant(word, i))
        except ValueError as exc:
            parser.error(str(exc))
    rules = args.ruleset
    try:
        MatchState.start(rules, len(players), args.seed)
    except ValueError as exc:
        parser.error(f"{len(players)} players cannot play preset {args.preset!r} (it seats {rules.seats_min} to "
                     f"{rules.seats_max}): {exc}")
    if args.secrets is not None:
        given = args.secrets.split(",")
        if len(given) != len(players):
            parser.error(f"--secrets has {len(given)} entries for {len(players)} players: give one per player, "
                         "in order (an empty entry for a house player)")
        for p, s in zip(players, given):
            p.secret = s
    else:
        secret = args.secret if args.secret is not None else os.environ.get("BOT_SECRET", "")
        for p in players:
            p.secret = secret
    missing = [p.label for p in players if p.is_bot and not p.secret]
    if missing:
        parser.error(f"no signing secret for {', '.join(missing)}: give --secret, --secrets or $BOT_SECRET")
    args.participants = players
    return args


def _action_text(action: dict) -> str:
    if action["type"] == "play":
        return f"play {action['card']}" + (f" (declares {action['suit']})" if "suit" in action else "")
    if action["type"] == "declare":
        return f"declare {action['suit']}"
    return action["type"]


def _agent(client, player: Participant, deal_seed: int, trace: dict | None = None) -> referee.Agent:
    """The seat's agent, answering the referee's ``Turn``: a bot over HTTP (``bot_calls.ask_turn``, the service's
    own request; ``trace`` receives the call's raw request and reply, as for the service's turn log), or a house
    strategy drawing from its own random source (as a house seat in the service)."""
    if player.is_bot:
        return lambda turn: ask_turn(lambda body, timeout: post_signed(client, player.url, player.secret, body,
                                                                       timeout, trace), turn)
    return lambda turn: choose_turn(player.strategy, turn, strategy_rng(deal_seed, turn.ply, turn.seat))


def _fault_policy(args: argparse.Namespace, player: Participant) -> referee.FaultPolicy:
    """A bot forfeits at ``--max-faults`` consecutive faults (0: never), as on the ladder; a house seat never."""
    return referee.FaultPolicy(max_faults=(args.max_faults or None) if player.is_bot else None)


def play_match(client, args: argparse.Namespace, number: int, out: TextIO) -> MatchOutcome:
    """Play match ``number`` (1-based) to its end (or a forfeit) and print it."""
    players: list[Participant] = args.participants
    n = len(players)
    shift = 0 if args.no_rotate else (number - 1) % n
    seating = [(s + shift) % n for s in range(n)]
    seed = args.seed + number - 1
    ruleset = args.ruleset
    state = MatchState.start(ruleset, n, seed)
    seats = [SeatState(players[p], args.time_bank_ms) for p in seating]
    print(f"match {number}/{args.matches}  preset {args.preset}  seed {seed}  target {state.target}", file=out)
    for s, p in enumerate(seating):
        print(f"  seat {s}: {players[p].label}", file=out)
    forfeited = None
    plies = 0
    fault_lines: list[str] = []
    deal_number = state.deal_number
    notes: list[dict] = []  # per deal: its faults ([ply, kind], ply 1-based) and each ply's think time (ms)
    while not state.is_over:
        deal = state.deal
        seat = deal.to_play
        ss = seats[seat]
        if len(notes) < state.deal_number:
            notes.append({"faults": [], "think_ms": []})
        note_of_deal = notes[state.deal_number - 1]
        trace: dict = {}
        ruling = referee.play_turn(state, _agent(client, ss.player, deal.seed, trace),
                                   commitment=deal_key_commitment(deal.seed),
                                   faults_before=ss.consecutive_faults, policy=_fault_policy(args, ss.player),
                                   match_id=number, last_latency_ms=ss.last_latency_ms,
                                   deadline_ms=args.timeout_ms if ss.player.is_bot else None,
                                   time_bank_ms=ss.time_bank_ms if ss.player.is_bot else None)
        action, fault, ply = ruling.action, ruling.fault, ruling.ply
        note_of_deal["think_ms"].append(ruling.answer.think_ms if ss.player.is_bot else 0)
        if fault is not None:
            note_of_deal["faults"].append([len(note_of_deal["think_ms"]), fault.kind])
        if ss.player.is_bot:
            elapsed = ruling.answer.think_ms
            ss.time_bank_ms = ruling.answer.time_bank_ms
            ss.player.calls += 1
            ss.player.latencies.append(elapsed)
            ss.last_latency_ms = elapsed
        ss.consecutive_faults = ruling.faults
        if fault is not None:
            ss.faults += 1
            ss.player.faults[fault.kind] += 1
            line = (f"  FAULT deal {ruling.deal_number} ply {ply} seat {seat} ({ss.player.label}): {fault.kind}: "
                    f"{fault.cause} -> fallback {json.dumps(action)}")
            fault_lines.append(line)
            print(line, file=out)
        plies += 1
        if args.plies:
            hands = " ".join(str(c) for c in deal.sizes)
            mark = f"  [fallback after {fault.kind}]" if fault else ""
            debug, warning = reply_debug(trace.get("json"))
            note = (f"  debug: {debug}" if debug else "") + (f"  (warning: {warning})" if warning else "")
            print(f"  d{deal_number} ply {ply:>3}  seat {seat}  "
                  f"{_action_text(action):<22} hands {hands}  stock {deal.stock_count}{mark}{note}", file=out)
        if deal.is_over:
            r = deal.result
            print(f"  deal {deal_number}: {r.outcome}" + (f" (seat {r.winner} out)" if r.winner is not None else "")
                  + f", points {r.points}, totals {state.totals}", file=out)
            deal_number = state.deal_number
        if ruling.forfeit:
            forfeited = seat
            print(f"  FORFEIT seat {seat} ({ss.player.label}): {ss.consecutive_faults} consecutive faults", file=out)
            break
    standings = state.standings if forfeited is None else state.standings_after_forfeit(forfeited)
    for s, p in enumerate(seating):
        player = players[p]
        player.matches += 1
        player.places.append(standings[s])
        player.wins += standings[s] == 1
        player.forfeits += s == forfeited
    print(f"  result: {state.deal_number} deal(s), {plies} plies; totals {state.totals}; standings {standings}"
          + (f"; seat {forfeited} forfeited" if forfeited is not None else ""), file=out)
    for s, p in enumerate(seating):
        player = players[p]
        if not player.is_bot:
            continue
        body = match_end_body(match_id=number, seat=s, totals=state.totals, standings=standings,
                              forfeited=[] if forfeited is None else [forfeited])
        try:
            post_signed(client, player.url, player.secret, body, args.timeout_ms)
        except BotFault as exc:
            print(f"  note: match_end to seat {s} ({player.label}) failed, ignored as the service does: "
                  f"{exc.kind}: {exc.cause}", file=out)
    players_by_seat = [players[p] for p in seating]
    record = match_record(state, players_by_seat, notes, standings, forfeited, args) if args.record else None
    return MatchOutcome(number, seed, seating, list(state.totals), standings, forfeited, state.deal_number, plies,
                        fault_lines, record)


def match_record(state: MatchState, players: list[Participant], notes: list[dict], standings: list[int],
                 forfeited: int | None, args: argparse.Namespace) -> dict:
    """The record of a match played here (``--record``): ``MatchState.record()`` (ruleset, engine version, seats,
    the match secret and its commitment, per deal its key, commitment and actions), plus per deal its ``outcome``,
    ``winner``, ``hand_values`` and ``points`` once it ended, its ``faults`` (``[ply, kind]``, ply 1-based) and
    ``think_ms`` (per ply, ms; 0 for a house seat), each seat's player (``seat``, ``name``: the URL or
    ``house:NAME``, ``kind``: ``"bot"`` or ``"house"``, ``total``, ``place``, ``forfeited``, ``max_faults``) and
    the ``result`` (``totals``, ``places``, ``forfeited`` seat or null): what ``eights_engine.record.verify_record``
    checks, with the fault policy's forfeit proved from the faults. Unsigned and without ``format``: it is not a
    record the service exported. Shape of a whole record: docs/MATCH_RECORD.md, "Local records"."""
    record = {"preset": args.preset, **state.record()}
    for i, entry in enumerate(record["deals"]):
        if i < len(state.results):
            result = state.results[i]
            entry.update(outcome=result.outcome, winner=result.winner, hand_values=list(result.hand_values),
                         points=list(result.points))
        note = notes[i] if i < len(notes) else {"faults": [], "think_ms": []}
        entry.update(faults=note["faults"], think_ms=note["think_ms"])
    record["players"] = [
        {"seat": s, "name": p.url or HOUSE_PREFIX + str(p.strategy), "kind": "bot" if p.is_bot else "house",
         "total": state.totals[s], "place": standings[s], "forfeited": s == forfeited,
         "max_faults": _fault_policy(args, p).max_faults}
        for s, p in enumerate(players)]
    record["result"] = {"totals": list(state.totals), "places": list(standings), "forfeited": forfeited}
    return record


def _p50(values: list[int]) -> int:
    return int(statistics.median(values)) if values else 0


def print_summary(args: argparse.Namespace, out: TextIO) -> None:
    players: list[Participant] = args.participants
    print(f"summary: {args.matches} match(es), preset {args.preset}, seeds {args.seed}..{args.seed + args.matches - 1}",
          file=out)
    width = max(len(p.label) for p in players)
    for p in players:
        avg = sum(p.places) / len(p.places) if p.places else 0
        line = f"  {p.label:<{width}}  wins {p.wins}/{p.matches}  avg place {avg:.2f}  forfeits {p.forfeits}"
        if p.is_bot:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(p.faults.items())) or "none"
            line += (f"  faults {sum(p.faults.values())} ({kinds})  calls {p.calls}  latency p50 "
                     f"{_p50(p.latencies)} ms, max {max(p.latencies, default=0)} ms")
        print(line, file=out)


def run(args: argparse.Namespace, out: TextIO | None = None) -> list[MatchOutcome]:
    out = out or sys.stdout
    record_file = open(args.record, "w", encoding="utf-8") if args.record else None  # noqa: SIM115 (closed below)
    try:
        outcomes = []
        with make_client() as client:
            for k in range(1, args.matches + 1):
                outcomes.append(play_match(client, args, k, out))
                if record_file is not None:  # written as each match ends: an interrupted run keeps what it played
                    record_file.write(json.dumps(outcomes[-1].record, separators=(",", ":")) + "\n")
                    record_file.flush()
    finally:
        if record_file is not None:
            record_file.close()
    print_summary(args, out)
    if args.record:
        print(f"records: {len(outcomes)} match(es) in {args.record} (python -m eights_engine replay {args.record} "
              "checks them; the service's /replay/open/ page shows one in the replay viewer)", file=out)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # piped into head or less and closed early
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
