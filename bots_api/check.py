"""Conformance checker for bot authors: test your endpoint before you register it.

    python -m bots_api.check URL --secret S [--timeout-ms 1000]

Sends what the service sends, signed as the service signs it, and reports PASS / FAIL per check:

* a signed ``ping``: must answer 2xx with ``{"name", "author", "version"}`` (the ping reply schema);
* a ``ping`` signed with the wrong secret, one with a stale timestamp, one without signature headers: a correct bot
  rejects each with a 4xx (401 or 403), since anyone can POST to a public URL;
* tricky ``turn`` positions built with the real engine (``Deal.from_position``, the real view and legal actions):
  a declared suit after an eight, a starter eight the dealer must declare, an empty stock with nothing to draw,
  the draw limit reached (web-table), only an eight playable (the reply must name a suit), a pending two under
  ``twos="stack"``, and an ordinary opening turn; and matches dealt from random seeds, played from their first
  ply for a few turns of the bot's seat. Each reply must match the turn reply schema, be legal, and come within
  the deadline;
* a ``match_end``: should answer 2xx (the service ignores failures, so this is only a warning).

The turn checks are sent in a random order, each with its own match id drawn at random (``match_ids``; the service draws
them from just above its newest match, so they look like matches just begun) and the real turn's shape: a check
cannot be told from a real turn by design, and a bot must play every request properly.

The exit status is 0 only when every check passes. No database and no Django settings are needed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, TextIO
from urllib.parse import urlsplit

from games.engine import Deal, IllegalAction, MatchState, Ruleset
from games.engine.fairness import SALT_BYTES, deal_commitment
from games.engine.keys import deal_key_commitment
from games.engine.referee import turn_for

from bots_api.protocol import BotFault, reply_debug
from bots_api.localhttp import Reply, encode, make_client, send
from bots_api.protocol import (
    PROTOCOL_VERSION, SIGNATURE_MAX_AGE_S, match_end_body, ping_body, schema_errors, sign, turn_body, turn_request,
)

PING_TIMEOUT_MS = 3000  # as the service's verify
GRACE_MS = 1000  # a late answer is still awaited this long, to say how late it was
DEALT_MATCHES = 2  # matches dealt from random seeds, played from their first turn, besides the tricky positions
DEALT_TURNS = 3  # the bot's turns asked in each (the other seats play random legal actions)
DEALT_PRESETS = ("pagat", "web-table", "eights-classic")  # the standalone checker's rules for dealt matches


@dataclass
class Check:
    name: str
    status: str  # PASS, FAIL or WARN
    detail: str
    reply: object = None  # the parsed reply of a passed ping (the service keeps the name and version)
    elapsed_ms: int | None = None

    @property
    def ok(self) -> bool:
        return self.status != "FAIL"


@dataclass
class Position:
    """A turn position: a name, what it tests, and how to build it."""

    name: str
    about: str
    build: Callable[[], tuple[Ruleset, Deal]]


def _position(preset: str, hands, stock, discard, to_play=0, overrides=None, **kwargs):
    def build():
        rules = Ruleset.preset(preset, **(overrides or {}))
        return rules, Deal.from_position(rules, hands, stock, discard, to_play, **kwargs)
    return build


def _opening():
    rules = Ruleset.preset("pagat")
    return rules, MatchState.start(rules, 2, 1).deal


def _starter_eight():
    rules = Ruleset.preset("pagat")
    return rules, Deal.start(rules, 2, 2, dealer=1)  # seed 2 turns the 8C as starter: the dealer declares


POSITIONS = [
    Position("turn: opening", "an ordinary first turn (pagat, 2 seats)", _opening),
    Position("turn: declared suit", "hearts were declared on the 8S: only a heart or an eight may be played (the KS "
             "follows the top card, not the declared suit)",
             _position("pagat", [["2H", "KS", "8C", "5D", "9H"], ["3C", "4C", "5C", "6C", "7C"]], ["AC", "AD", "AS"],
                       ["3S", "8S"], declared_suit="H")),
    Position("turn: starter eight", "the starter is an eight and this seat is the dealer: it must declare a suit "
             '({"type": "declare", "suit": ...})', _starter_eight),
    Position("turn: empty stock", "nothing playable, the stock is empty and there is no card to reshuffle: pass is "
             "the only legal action",
             _position("pagat", [["2H", "3D", "9S"], ["3C", "4C", "5C", "6C", "7C"]], [], ["KC"])),
    Position("turn: draw limit reached", "web-table: this seat has drawn its limit of 3 cards this turn; it may not "
             "draw again and must play the KD",
             _position("web-table", [["2H", "3D", "9D", "KD", "7H"], ["3C", "4C", "5C", "6C", "7C"]], ["AD", "AH"],
                       ["5S", "KC"], drawn_this_turn=3, drawn_card="7H")),
    Position("turn: only an eight", "eights-classic (forced play): the 8D is the only playable card and the reply "
             'must name the suit: {"type": "play", "card": "8D", "suit": ...}',
             _position("eights-classic", [["8D", "2C", "3C", "4S"], ["3C", "4C", "5C", "6C", "7C"]], ["AD", "AH"],
                       ["5S", "KH"])),
    Position("turn: pending two", 'twos="stack": a 2S is on top with 2 cards pending; answer with a two or draw the '
             "penalty (the 5S and the 8C are no answer)",
             _position("pagat", [["2H", "5S", "9D", "8C"], ["3C", "4C", "5C", "6C", "7C"]], ["AD", "AH", "AC"],
                       ["5D", "2S"], overrides={"twos": "stack"}, pending_draw=2)),
]


def _built(position: Position) -> tuple[Ruleset, Deal, int, list[int], dict | None]:
    """(rules, deal, deal number, totals, the view of the seat to play or None to build it) of a position."""
    built = position.build()
    if isinstance(built, MatchState):
        return built.ruleset, built.deal, built.deal_number, list(built.totals), built.view(built.to_play)
    rules, deal = built
    return rules, deal, 1, [0] * deal.seats, None

TURN_CHECKS = len(POSITIONS) + DEALT_MATCHES  # turn checks of one check (a dealt match is one, of DEALT_TURNS turns)


def position_body(rules: Ruleset, deal: Deal, deadline_ms: int, match_id: int, time_bank_ms: int = 0,
                  last_latency_ms: int | None = None) -> dict:
    """The ``turn`` request the service would send for the seat to play in ``deal`` (deal 1 of a fresh match
    ``match_id``)."""
    seat = deal.to_play
    totals = [0] * deal.seats
    view = deal.view(seat)
    view.update(deal_number=1, totals=list(totals), target=rules.target_for(deal.seats))
    return turn_body(match_id=match_id, deal_number=1, ply=deal.ply, seat=seat, view=view,
                     legal_actions=deal.legal_actions(), ruleset=rules.to_dict(), totals=totals,
                     deadline_ms=deadline_ms, last_latency_ms=last_latency_ms, time_bank_ms=time_bank_ms,
                     commitment=fresh_commitment(deal.seed))


def fresh_commitment(source: int | bytes) -> str:
    """The commitment to a deal as the service makes one (docs/FAIRNESS.md): to a version 2 deal's key, or to a
    version 1 seed with a fresh secret salt. A check's turns carry one like real turns do."""
    if isinstance(source, bytes):
        return deal_key_commitment(source)
    return deal_commitment(source, secrets.token_hex(SALT_BYTES))


def _snippet(data: bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", "replace").strip()
    return json.dumps(text[:limit] + ("..." if len(text) > limit else ""))


def _status_problem(reply: Reply) -> str | None:
    if 300 <= reply.status < 400:
        return f"answered HTTP {reply.status} (to {reply.location or '?'}); redirects are not followed"
    if reply.status in (401, 403):
        return (f"answered HTTP {reply.status} {_snippet(reply.data)}: a signed request was refused (is the secret "
                "right?)")
    if not 200 <= reply.status < 300:
        return f"answered HTTP {reply.status} {_snippet(reply.data)}"
    return None


def _json(reply: Reply) -> tuple[object, str | None]:
    try:
        return json.loads(reply.data), None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: nested too deeply
        return None, f"the reply is not JSON ({exc}): {_snippet(reply.data)}"


def check_ping(client, url: str, secret: str) -> Check:
    raw = encode(ping_body())
    try:
        reply = send(client, url, raw, sign(secret, raw), PING_TIMEOUT_MS)
    except BotFault as fault:
        return Check("ping", "FAIL", f"{fault.kind}: {fault.cause}")
    if reply.status in (401, 403):
        return Check("ping", "FAIL", f"rejected a correctly signed ping (HTTP {reply.status}): check the secret (on the "
                     "service: the signing secret given when the bot was registered, or its newest rotation) and "
                     "that you sign the raw body bytes as received: HMAC-SHA256 of \"{timestamp}.{body}\"")
    problem = _status_problem(reply)
    if problem:
        return Check("ping", "FAIL", problem)
    data, problem = _json(reply)
    if problem:
        return Check("ping", "FAIL", problem)
    errors = schema_errors("ping_reply", data)
    if errors:
        return Check("ping", "FAIL", "the reply does not match the ping reply schema {\"name\", \"author\", "
                     f"\"version\"}}: {'; '.join(errors)}")
    return Check("ping", "PASS", f"answered {json.dumps(data)} in {reply.elapsed_ms} ms", data, reply.elapsed_ms)


def check_rejected(client, url: str, name: str, headers: dict[str, str], raw: bytes, what: str) -> Check:
    """A request a correct bot must refuse with a 4xx."""
    try:
        reply = send(client, url, raw, headers, PING_TIMEOUT_MS)
    except BotFault as fault:
        return Check(name, "FAIL", f"expected a 4xx answer to {what}; got {fault.kind}: {fault.cause}")
    if 400 <= reply.status < 500:
        return Check(name, "PASS", f"rejected {what} with HTTP {reply.status}")
    if 200 <= reply.status < 300:
        return Check(name, "FAIL", f"accepted {what} (HTTP {reply.status}): verify X-Eights-Timestamp and "
                     "X-Eights-Signature on every request and answer 401 when they do not check out")
    return Check(name, "FAIL", f"answered {what} with HTTP {reply.status}; a bot should reject it with a 4xx "
                 "(401 or 403)")


def check_turn(client, url: str, secret: str, position: Position, deadline_ms: int, match_id: int,
               time_bank_ms: int = 0, last_latency_ms: int | None = None) -> Check:
    rules, deal = position.build()
    body = position_body(rules, deal, deadline_ms, match_id, time_bank_ms=time_bank_ms,
                         last_latency_ms=last_latency_ms)
    action, problem, elapsed, warning = _ask_turn(client, url, secret, body, deal, deadline_ms, position.about)
    if problem:
        return Check(position.name, "FAIL", problem)
    if warning:  # the reply's debug note was bad: the service keeps the turn and warns
        return Check(position.name, "WARN", f"{json.dumps(action)} in {elapsed} ms, but {warning} (the service plays "
                     "the turn and shows this warning in your turn log)", elapsed_ms=elapsed)
    return Check(position.name, "PASS", f"{json.dumps(action)} in {elapsed} ms", elapsed_ms=elapsed)


def check_dealt_match(client, url: str, secret: str, rules: Ruleset, seats: int, match_id: int, deadline_ms: int,
                      time_bank_ms: int, rng: random.Random) -> Check:
    """A match dealt from a random seed, played from its first ply as the service plays one: the bot holds a
    random seat and is asked for ``DEALT_TURNS`` turns in a row of match ``match_id`` (the other seats play
    random legal actions); every reply must be schema-valid, legal and within the deadline."""
    seed = rng.randrange(1, 2**31)
    name = f"turn: dealt match (seed {seed})"
    state = MatchState.start(rules, seats, seed)
    seat, asked, last_latency, played = rng.randrange(seats), 0, None, []
    commitments: dict[int, str] = {}  # by deal number, made when the deal is first seen
    for _ in range(2000):  # far more plies than DEALT_TURNS of one seat need
        if state.is_over or asked == DEALT_TURNS:
            break
        legal = state.legal_actions()
        if state.to_play != seat:
            state.apply(rng.choice(legal))
            continue
        commitment = commitments.setdefault(state.deal_number, fresh_commitment(state.deal.seed))
        body = turn_request(turn_for(state, match_id=match_id, deadline_ms=deadline_ms,
                                     last_latency_ms=last_latency, time_bank_ms=max(0, time_bank_ms),
                                     commitment=commitment))
        about = f"deal {state.deal_number}, ply {state.deal.ply} of a match dealt from seed {seed}"
        action, problem, last_latency, _warning = _ask_turn(client, url, secret, body, state.deal, deadline_ms,
                                                            about)
        if problem:
            return Check(name, "FAIL", f"{about}: {problem}")
        time_bank_ms -= max(0, last_latency - deadline_ms)  # as in a match: the bank absorbs slow turns
        state.apply(action)
        played.append(json.dumps(action))
        asked += 1
    return Check(name, "PASS", f"{asked} turns: {', '.join(played)}", elapsed_ms=last_latency)


def _ask_turn(client, url: str, secret: str, body: dict, deal: Deal, deadline_ms: int,
              about: str) -> tuple[dict | None, str | None, int | None, str]:
    """Send one ``turn``; returns (the legal action, None, elapsed ms, warning) or (None, what was wrong, elapsed ms,
    ""). The reply is in time within the deadline plus the time bank the body states (``time_bank_ms``), as in a
    match. A bad ``debug`` note (too long, not a string) is no failure: ``warning`` says what was wrong with it
    ("" when it was fine or absent)."""
    legal = body["legal_actions"]
    limit = deadline_ms + body["time_bank_ms"]
    raw = encode(body)
    try:
        reply = send(client, url, raw, sign(secret, raw), limit + GRACE_MS)
    except BotFault as fault:
        if fault.kind == "timeout":
            return None, (f"timeout: no answer within {limit + GRACE_MS} ms (the deadline is {deadline_ms} ms, the "
                          f"time bank {body['time_bank_ms']} ms)"), fault.elapsed_ms, ""
        return None, f"{fault.kind}: {fault.cause}", fault.elapsed_ms, ""
    problems = []
    if reply.elapsed_ms > limit:
        problems.append(f"answered after {reply.elapsed_ms} ms, past the {deadline_ms} ms deadline and the "
                        f"{body['time_bank_ms']} ms time bank (the service counts a timeout then)")
    problem = _status_problem(reply)
    data = None
    if problem is None:
        data, problem = _json(reply)
    if problem is None:
        errors = schema_errors("turn_reply_play", data)  # a bad debug is no failure: the service only warns
        if errors:
            problem = ("the reply does not match the turn reply schema {\"action\": {...}}: " + "; ".join(errors[:3]))
    if problem is None:
        action = data["action"]
        try:
            deal.action_id(action)
        except IllegalAction as exc:
            problem = (f"illegal action {json.dumps(action)}: {exc}. Situation: {about}. Legal here: "
                       + ", ".join(json.dumps(a) for a in legal))
    if problem:
        problems.append(problem)
    if problems:
        return None, "; ".join(problems), reply.elapsed_ms, ""
    return data["action"], None, reply.elapsed_ms, reply_debug(data)[1]


def check_match_end(client, url: str, secret: str, deadline_ms: int, match_id: int) -> Check:
    raw = encode(match_end_body(match_id=match_id, seat=0, totals=[42, 107], standings=[1, 2], forfeited=[]))
    try:
        reply = send(client, url, raw, sign(secret, raw), deadline_ms)
    except BotFault as fault:
        return Check("match_end", "WARN", f"{fault.kind}: {fault.cause} (the service ignores match_end failures)")
    problem = _status_problem(reply)
    if problem:
        return Check("match_end", "WARN", f"{problem} (the service ignores match_end failures)")
    return Check("match_end", "PASS", f"answered HTTP {reply.status} in {reply.elapsed_ms} ms")


def run_checks(url: str, secret: str, deadline_ms: int = 1000, client=None,
               stop_on_failed_ping: bool = False, match_ids: Callable[[], int] | None = None,
               rulesets: list[tuple[Ruleset, int]] | None = None, time_bank_ms: int = 0,
               rng: random.Random | None = None) -> list[Check]:
    """Every check against ``url``: the ping, the three refusals, then the turn checks in a random order (the
    tricky positions, and ``DEALT_MATCHES`` matches dealt from random seeds under ``rulesets``, ``[(rules,
    seats)]``, default ``DEALT_PRESETS`` with two seats, each asking ``DEALT_TURNS`` turns from its first ply on),
    then a ``match_end``. ``client`` is the ``httpx.Client`` to send with (default: a new tool client, closed at
    the end; the service passes its guarded one, which stays open). With ``stop_on_failed_ping`` nothing more is
    sent to a bot whose ping failed (the list then holds only the ping).

    Every turn looks like a real one: ``match_ids()`` gives each its match id (default: a random id from 1 to
    999,999; never a constant), ``time_bank_ms`` is the bank it states, ``last_latency_ms`` the round trip of the
    previous turn. ``rng`` (default: ``random.SystemRandom``) draws the order and the dealt positions.
    """
    rng = rng or random.SystemRandom()
    match_ids = match_ids or (lambda: rng.randint(1, 999_999))
    rulesets = rulesets or [(Ruleset.preset(name), 2) for name in DEALT_PRESETS]
    turns = list(POSITIONS) + [rng.choice(rulesets) for _ in range(DEALT_MATCHES)]
    rng.shuffle(turns)  # TURN_CHECKS of them
    ping_raw = encode(ping_body())
    with (nullcontext(client) if client is not None else make_client()) as client:
        checks = [check_ping(client, url, secret)]
        if stop_on_failed_ping and not checks[0].ok:
            return checks
        checks.append(check_rejected(client, url, "bad signature", sign(secret + "-wrong", ping_raw), ping_raw,
                                     "a ping signed with the wrong secret"))
        stale = int(time.time()) - 2 * SIGNATURE_MAX_AGE_S
        checks.append(check_rejected(client, url, "stale timestamp", sign(secret, ping_raw, stale), ping_raw,
                                     f"a correctly signed ping with a timestamp {2 * SIGNATURE_MAX_AGE_S} s old"))
        checks.append(check_rejected(client, url, "no signature", {}, ping_raw, "a ping without signature headers"))
        last_latency = None
        for turn in turns:
            if isinstance(turn, Position):
                checks.append(check_turn(client, url, secret, turn, deadline_ms, match_ids(), time_bank_ms,
                                         last_latency))
            else:
                checks.append(check_dealt_match(client, url, secret, *turn, match_ids(), deadline_ms, time_bank_ms,
                                                rng))
            last_latency = checks[-1].elapsed_ms
        checks.append(check_match_end(client, url, secret, deadline_ms, match_ids()))
    return checks


def report(url: str, deadline_ms: int, checks: list[Check], out: TextIO) -> None:
    print(f"Eights Ladder bot check (protocol {PROTOCOL_VERSION}): {url}  deadline {deadline_ms} ms per turn",
          file=out)
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{c.status:<4}  {c.name:<{width}}  {c.detail}", file=out)
    passed = sum(c.status == "PASS" for c in checks)
    warned = sum(c.status == "WARN" for c in checks)
    failed = sum(c.status == "FAIL" for c in checks)
    print(f"{passed} of {len(checks)} checks passed" + (f", {warned} warning(s)" if warned else "")
          + (f", {failed} failed" if failed else ": ready to register"), file=out)


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots_api.check", description="Check a bot endpoint against "
                                     "bot protocol v1 before registering it.")
    parser.add_argument("url", help="the bot's endpoint URL (http:// or https://)")
    parser.add_argument("--secret", default=os.environ.get("BOT_SECRET", ""), help="the bot's signing secret "
                        "(default: $BOT_SECRET)")
    parser.add_argument("--timeout-ms", type=int, default=1000, help="the turn deadline in ms (default 1000, as "
                        "BOT_TURN_TIMEOUT_MS)")
    args = parser.parse_args(argv)
    try:
        parts = urlsplit(args.url)
    except ValueError as exc:
        parser.error(f"{args.url!r} is not a valid URL: {exc}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        parser.error(f"{args.url!r}: give the bot's URL with http:// or https:// and a host name")
    if not args.secret:
        parser.error("give the signing secret with --secret or $BOT_SECRET")
    if not 50 <= args.timeout_ms <= 60000:
        parser.error("--timeout-ms must be from 50 to 60000")
    checks = run_checks(args.url, args.secret, args.timeout_ms)
    report(args.url, args.timeout_ms, checks, out or sys.stdout)
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
