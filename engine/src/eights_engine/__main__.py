"""Command line: ``python -m eights_engine simulate ...``, ``show ...``, ``playthroughs ...`` and ``replay FILE``.

simulate: plays house strategies against each other and prints win rates, average deals per match and average
plies per deal. show: prints a deal (hands, starter, stock) from its deal code. playthroughs: writes (``--write``)
or compares (``--check``) the golden playthroughs in engine/tests/playthroughs/ (see ``playthrough``), or prints
one (``--show NAME``). replay: checks an exported match record (JSON, or NDJSON: one record per line; ``-`` reads
stdin) with the engine alone, prints one line per match and exits 1 at the first mismatch, naming it
(docs/MATCH_RECORD.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import playthrough
from .cards import card_code
from .match import MatchState, ReplayMismatch
from .record import summary, verify_record
from .keys import KEY_BYTES, parse_hex
from .rng import seed_from_code
from .rules import PRESETS, Ruleset
from .strategies import HOUSE_STRATEGIES, choose
from .deal import Deal


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eights_engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play house strategies against each other")
    sim.add_argument("--preset", default="pagat", help=f"one of: {', '.join(sorted(PRESETS))} (default pagat)")
    sim.add_argument("--seats", type=int, default=2, help="players per match (default 2)")
    sim.add_argument("--matches", type=int, default=100, help="matches to play (default 100)")
    sim.add_argument("--strategies", default="heuristic,random",
                     help=f"comma-separated, one per seat or cycled (from: {', '.join(HOUSE_STRATEGIES)})")
    sim.add_argument("--seed", type=int, default=1, help="first match seed (default 1)")
    show = sub.add_parser("show", help="print a deal from its key (engine version 2) or its deal code (version 1)")
    which = show.add_mutually_exclusive_group(required=True)
    which.add_argument("--key", help="a version 2 deal's key (64 hex digits), published in its match's record once "
                                     "the match is over")
    which.add_argument("--code", help="a version 1 deal's code (a version 2 code, U and 12 digits, only names a "
                                      "deal: use its --key)")
    show.add_argument("--preset", default="pagat", help="ruleset preset (default pagat)")
    show.add_argument("--seats", type=int, default=2, help="players (default 2)")
    show.add_argument("--dealer", type=int, default=0,
                      help="the deal's dealer seat, as the deal code page and the match page show it (default 0): "
                           "the same code deals the hands to other seats under another dealer")
    golden = sub.add_parser("playthroughs", help="write or check the golden playthroughs (one seeded match each)",
                            description="The golden playthroughs: one text file per scenario (eights_engine/"
                                        "playthrough.py), compared by engine/tests/test_playthroughs.py. After a "
                                        "change of behaviour, review the difference (--check, then git diff after "
                                        "--write) before committing the new files.")
    what = golden.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", action="store_true", help="regenerate every file (and remove files of no scenario)")
    what.add_argument("--check", action="store_true",
                      help="compare every file with the engine's text; exit 1 listing the files that differ")
    what.add_argument("--show", metavar="NAME", help="print one scenario's text (file name without .txt)")
    what.add_argument("--list", action="store_true", help="list the scenarios")
    golden.add_argument("--dir", type=Path, default=PLAYTHROUGH_DIR,
                        help=f"where the files are (default {PLAYTHROUGH_DIR})")
    rep = sub.add_parser("replay", help="check exported match records offline (JSON or NDJSON)",
                         description="Replays each match record in FILE (one JSON record, or NDJSON: one record per "
                                     "line, as manage.py export_matches writes) with the engine alone, checks every "
                                     "stored seed, dealer, action and result, and prints one line per match. Exit 1 "
                                     "at the first mismatch (deal, ply, expected, found); 2 for an unreadable file.")
    rep.add_argument("file", metavar="FILE", help="the record file (- for stdin)")
    rep.add_argument("--public-key", metavar="HEX", type=_public_key,
                     help="the service's record signing key (64 hex digits, from GET /api/records/signing-key/): every "
                          "record must be signed by it")
    rep.add_argument("--require-signature", action="store_true",
                     help="refuse a record without the service's signature (every record it exports has one); needs "
                          "--public-key, the key it must be signed by")
    rep.add_argument("--require-commitments", action="store_true",
                     help="refuse a record with a deal that has no commitment (every record the service exports "
                          "has them; only deals stored before commitments existed lack one)")
    return parser


def _public_key(text: str) -> str:
    """``--public-key``: 64 hex digits (argparse says so otherwise)."""
    if not (isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)):
        raise argparse.ArgumentTypeError(f"{text!r:.80} is not a public key: 64 hex digits, from "
                                         "GET /api/records/signing-key/")
    return text.lower()


class NotJson(ValueError):
    """A record (or NDJSON line) that does not parse: its message says why."""


def _loads(text: str):
    """``json.loads``, its errors as ``NotJson``: a syntax error, or nesting deeper than Python's parser recurses
    (about 1000 levels: a ``RecursionError`` otherwise)."""
    try:
        return json.loads(text)
    except ValueError as exc:  # JSONDecodeError, and an integer too long for int() (sys.get_int_max_str_digits)
        raise NotJson(str(exc)) from None
    except RecursionError:
        raise NotJson("nested too deeply (arrays or objects inside each other past Python's recursion limit; "
                      "a match record is a few levels deep)") from None


def _records(text: str):
    """(label, record or a ``NotJson``) for a file of one JSON record or NDJSON lines."""
    stripped = text.strip()
    try:
        yield "record", _loads(stripped)
        return
    except NotJson:
        pass
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield f"line {n}", _loads(line)
            except NotJson as exc:
                yield f"line {n}", exc


def replay_file(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """The ``replay`` command: 0 when every record replays and every stored result agrees; 1 naming the first
    mismatch; 2 when the file cannot be read or holds no record."""
    if args.require_signature and not args.public_key:
        parser.error("--require-signature needs --public-key KEY: a signature by a key the record names itself proves "
                     "nothing (the service's key: GET /api/records/signing-key/)")
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        sys.stderr.write(f"cannot read {args.file}: {exc}\n")
        return 2
    count, signed = 0, False
    for label, record in _records(text):
        where = f"{args.file} {label}" + (f" (match {record['match']})" if isinstance(record, dict)
                                          and "match" in record else "")
        if isinstance(record, NotJson):
            sys.stderr.write(f"{where}: not JSON: {record}\n")
            return 2
        try:
            state = verify_record(record, public_key=args.public_key, require_signature=args.require_signature,
                                  require_commitments=args.require_commitments)
        except ReplayMismatch as exc:
            sys.stderr.write(f"{where}: MISMATCH: {exc}\n")
            return 1
        count += 1
        signed = signed or isinstance(record.get("signature"), dict)
        print(summary(record, state))
    if not count:
        sys.stderr.write(f"{args.file}: no record in it\n")
        return 2
    print(f"{count} record{'s' if count != 1 else ''} replayed: no mismatch")
    if signed and not args.public_key:
        print("note: each signature was checked against the key its record names; pass --public-key KEY (the "
              "service's, from GET /api/records/signing-key/) to check that it is the service's")
    return 0


#: engine/tests/playthroughs/ of the source tree the engine runs from (pip install -e); give --dir otherwise
PLAYTHROUGH_DIR = Path(__file__).resolve().parents[2] / "tests" / "playthroughs"


def playthroughs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """The ``playthroughs`` command: 0 when the files were written or all match; 1 when ``--check`` finds a
    difference (each differing, missing or extra file listed on stderr)."""
    if args.list:
        for sc in playthrough.SCENARIOS:
            print(f"{sc.name:<28} {sc.preset}, {sc.seats} seats: {sc.about}")
        return 0
    if args.show:
        try:
            sys.stdout.write(playthrough.render(playthrough.scenario(args.show)))
        except ValueError as exc:
            parser.error(str(exc))
        return 0
    texts = playthrough.render_all()
    folder: Path = args.dir
    stored = {p.name: p for p in folder.glob("*.txt")} if folder.is_dir() else {}
    changed = [n for n, t in texts.items() if n in stored and stored[n].read_text(encoding="utf-8") != t]
    missing = [n for n in texts if n not in stored]
    extra = sorted(set(stored) - set(texts))
    if args.write:
        folder.mkdir(parents=True, exist_ok=True)
        for name in changed + missing:
            (folder / name).write_text(texts[name], encoding="utf-8")
        for name in extra:
            stored[name].unlink()
        print(f"{len(texts)} playthroughs in {folder}: {len(changed)} changed, {len(missing)} new, "
              f"{len(extra)} removed" + (" (review with git diff before committing)" if changed or extra else ""))
        return 0
    for label, names in (("differs", changed), ("missing", missing), ("belongs to no scenario", extra)):
        for name in names:
            sys.stderr.write(f"{folder / name}: {label}\n")
    if changed or missing or extra:
        sys.stderr.write("review the change of behaviour; once approved: python -m eights_engine playthroughs "
                         "--write (or make playthroughs)\n")
        return 1
    print(f"{len(texts)} playthroughs match")
    return 0


def _progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // total
    rate = done / max(time.perf_counter() - started, 1e-9)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} matches  {rate:,.0f}/s")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        ruleset = Ruleset.preset(args.preset)
    except ValueError as exc:
        parser.error(str(exc))
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    unknown = [n for n in names if n not in HOUSE_STRATEGIES]
    if not names or unknown:
        parser.error(f"unknown strategy {unknown[0] if unknown else '(none)'!r}: choose from "
                     f"{', '.join(HOUSE_STRATEGIES)}")
    if args.matches < 1:
        parser.error(f"--matches must be at least 1, not {args.matches}")
    if not ruleset.seats_min <= args.seats <= ruleset.seats_max:
        parser.error(f"preset {args.preset!r} seats {ruleset.seats_min} to {ruleset.seats_max} players, not {args.seats}")
    if args.seed < 0:
        parser.error("--seed must be 0 or more")
    wins = [0.0] * args.seats
    deals = plies = 0
    started = time.perf_counter()
    for i in range(args.matches):
        seats = [names[(i + s) % len(names)] for s in range(args.seats)]  # rotate who sits where
        state = MatchState.start(ruleset, args.seats, args.seed + i)
        while not state.is_over:
            seat = state.to_play
            state.apply(choose(seats[seat], state.view(seat), state.legal_actions(), state.deal.seed, ruleset))
            plies += 1
        deals += state.deal_number
        firsts = [s for s, place in enumerate(state.standings) if place == 1]
        for s in firsts:
            wins[names.index(seats[s])] += 1 / len(firsts) if len(set(names)) == len(names) else 0
        if (i + 1) % max(1, args.matches // 50) == 0 or i + 1 == args.matches:
            _progress(i + 1, args.matches, started)
    print(f"{args.matches} matches of {args.preset}, {args.seats} seats, seats rotated each match")
    if len(set(names)) == len(names):
        for s, name in enumerate(names[: args.seats]):
            print(f"  {name:<10} wins {wins[s] / args.matches:6.1%}")
    print(f"  average deals per match {deals / args.matches:.2f}; average plies per deal {plies / deals:.1f}")
    return 0


def show(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        ruleset = Ruleset.preset(args.preset)
        seed = parse_hex(args.key, "--key", KEY_BYTES) if args.key is not None else seed_from_code(args.code)
        deal = Deal.start(ruleset, args.seats, seed, dealer=args.dealer)
    except ValueError as exc:
        parser.error(str(exc))
    source = f"key {seed.hex()}" if isinstance(seed, bytes) else f"seed {seed}"
    print(f"deal {deal.code} ({args.preset}, {args.seats} seats, dealer {deal.dealer}, {source}; another dealer "
          f"deals these cards to other seats: --dealer N, as the deal code page says)")
    for seat in range(args.seats):
        print(f"  seat {seat}: {' '.join(deal.hand(seat))}")
    print(f"  starter: {deal.top_card or '(none: the whole deck is dealt)'}"
          + (" (the dealer declares a suit)" if deal.awaiting_declaration else ""))
    print(f"  stock ({deal.stock_count}, top first): {' '.join(card_code(c) for c in reversed(deal.stock))}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {"simulate": simulate, "show": show, "playthroughs": playthroughs, "replay": replay_file}
    return commands[args.command](args, parser)


if __name__ == "__main__":
    sys.exit(main())
