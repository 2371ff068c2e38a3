"""Conformance checker for bot authors: test your endpoint before you register it.

    python -m eights_engine.bots.check URL --secret S [--timeout-ms 1000] [--time-bank-ms 5000]

Sends what the service sends, signed as the service signs it, in the order a match sends it, and reports PASS /
FAIL / WARN per check. The service's Verify runs the same checks (``run_checks``) with the ladders' rules.

* **Turns, first.** Every turn belongs to a check match played from its first ply, as the service plays a match:
  dealt from a random seed under rules the bot meets (from the service: the rules, seat count and turn deadline of
  its ladders; here: ``default_match_rules``, pagat, web-table, eights-classic and pagat with stacked twos), the
  bot in a random seat, the other seats played by house strategies, and the bot asked for every turn of its seat
  from its first on. Most check matches are chosen, by trying random seeds before anything is sent, for a tricky
  situation their opening reaches (``SITUATIONS``): a declared suit after an eight, a starter eight the dealer
  must declare, nothing to play or draw (pass), the draw limit reached, only an eight playable (the reply must
  name a suit), a pending two; plus an ordinary first turn. Every turn of the bot before the situation has a single
  legal action, so the bot meets the situation whatever it is; a situation the rules do not allow is left out.
  ``DEALT_MATCHES`` more are played for ``DEALT_TURNS`` turns of the bot. Each reply must match the turn reply
  schema, be legal, and come within the deadline plus the time bank the turn states;
* a ``match_end`` for every check match, after the last turn (each match played out by house strategies): should
  answer 2xx (the service ignores failures, so this is only a warning);
* **last**, a signed ``ping`` (must answer 2xx with ``{"name", "author", "version"}``, the ping reply schema), then
  a ``ping`` signed with the wrong secret, one with a stale timestamp and one without signature headers: a correct
  bot rejects each with a 4xx (401 or 403), since anyone can POST to a public URL.

A check cannot be told from a real turn by design. Only checks send a ``ping`` or a badly signed request, so they
come after every turn: by the time anything could tell the bot it was being checked, it has played every turn it
is judged on. And every field of a check's turn is drawn as a real turn's is: the match id (``match_ids``; the
service draws them from just above its newest match), ``deal_number``, ``ply``, ``you``, the view and its history
(a real deal from its first ply), ``ruleset``, ``totals``, ``deadline_ms`` (the ladder's), ``time_bank_ms`` (the
seat's bank, spent as in a match), ``last_latency_ms`` (null on the seat's first turn of the match, then the round
trip of its previous turn in that match) and ``commitment`` (a fresh one per deal). What a check cannot hide, and
no field says: a bot that keeps its own records knows whether it has been verified yet (only a verified bot is
seated in real matches), can look a match id up on the service's public pages, and notices afterwards that a
check's matches stopped after a few turns; so a bot must play every request properly.

The report lists the ping and the refusals first, then the turn checks in the order sent, then the ``match_end``s.
The exit status is 0 only when every check passes. No database and no Django settings are needed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, TextIO
from urllib.parse import urlsplit

from eights_engine import Deal, IllegalAction
from eights_engine.referee import turn_for
from eights_engine.strategies import choose

from eights_engine.bots.check_plans import (
    DEALT_MATCHES, DEALT_TURNS, MAX_SITUATION_TURNS, SITUATIONS, TURN_CHECKS, CheckMatch, MatchRules, Situation,
    default_match_rules, fresh_commitment, plan_matches, plan_situation,
)
from eights_engine.bots.bot_calls import Reply, encode, make_client, send
from eights_engine.bots.protocol import (
    PROTOCOL_VERSION, SIGNATURE_MAX_AGE_S, BotFault, match_end_body, ping_body, reply_debug, schema_errors, sign,
    turn_request,
)

__all__ = ["Check", "CheckMatch", "DEALT_MATCHES", "DEALT_TURNS", "MAX_SITUATION_TURNS", "MatchRules", "SITUATIONS",
           "Situation", "TURN_CHECKS", "default_match_rules", "fresh_commitment", "main", "plan_matches",
           "plan_situation", "report", "run_checks"]

PING_TIMEOUT_MS = 3000  # as the service's verify
GRACE_MS = 1000  # a late answer is still awaited this long, to say how late it was
#: The house strategy that plays the bot's seat once a check match is over for the bot (for its ``match_end``).
FINISHER = "heuristic"


@dataclass
class Check:
    name: str
    status: str  # PASS, FAIL or WARN
    detail: str
    reply: object = None  # the parsed reply of a passed ping (the service keeps the name and version)
    elapsed_ms: int | None = None
    unreachable: bool = False  # failed because the bot is not answering the service (no connection, no answer in
    # time, or its signature refused): nothing more is worth sending

    @property
    def ok(self) -> bool:
        return self.status != "FAIL"


def _snippet(data: bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", "replace").strip()
    return json.dumps(text[:limit] + ("..." if len(text) > limit else ""))


#: What a bot that refuses a correctly signed request should look at.
CHECK_THE_SECRET = ("check the secret (on the service: the signing secret given when the bot was registered, or its "
                    "newest rotation) and that you sign the raw body bytes as received: HMAC-SHA256 of "
                    "\"{timestamp}.{body}\"")


def _status_problem(reply: Reply) -> str | None:
    if 300 <= reply.status < 400:
        return f"answered HTTP {reply.status} (to {reply.location or '?'}); redirects are not followed"
    if reply.status in (401, 403):
        return (f"rejected a correctly signed request (HTTP {reply.status} {_snippet(reply.data)}): "
                + CHECK_THE_SECRET)
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
        return Check("ping", "FAIL", f"{fault.kind}: {fault.cause}", unreachable=True)
    if reply.status in (401, 403):
        return Check("ping", "FAIL", f"rejected a correctly signed ping (HTTP {reply.status}): {CHECK_THE_SECRET}",
                     unreachable=True)
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


def check_match(client, url: str, secret: str, match: CheckMatch, match_id: int, time_bank_ms: int) -> Check:
    """Play ``match`` as the service plays a match with the bot seated: from its first ply, the bot asked for
    ``match.turns`` turns of its seat in a row (``match.situation`` is the last), each with the match's id, the
    deal's commitment, the seat's time bank (a slow turn pays its excess from it) and the round trip of the seat's
    previous turn in the match. Every reply must be schema-valid, legal and within the deadline plus the bank.
    ``match.state`` is left where the check stopped."""
    state = match.start()
    deadline_ms = match.rules.deadline_ms
    commitments: dict[int, str] = {}  # by deal number, made when the deal is first seen
    last_latency, played, warnings = None, [], []
    while len(played) < match.turns:
        match.others_play()
        if state.is_over:
            break
        commitment = commitments.setdefault(state.deal_number, fresh_commitment(state.deal.seed))
        body = turn_request(turn_for(state, match_id=match_id, deadline_ms=deadline_ms,
                                     last_latency_ms=last_latency, time_bank_ms=time_bank_ms, commitment=commitment))
        about = f"deal {state.deal_number}, ply {state.deal.ply} ({match.where})"
        if match.situation is not None and len(played) + 1 == match.turns:
            about = f"{match.situation.about} ({match.where})"
        asked = _ask_turn(client, url, secret, body, state.deal, deadline_ms, about)
        if asked.problem:
            turn = f"turn {len(played) + 1} of {match.turns}: " if match.turns > 1 else ""
            return Check(match.name, "FAIL", turn + asked.problem, elapsed_ms=asked.elapsed_ms,
                         unreachable=asked.unreachable)
        time_bank_ms = max(0, time_bank_ms - max(0, asked.elapsed_ms - deadline_ms))  # as in a match
        last_latency = asked.elapsed_ms
        state.apply(asked.action)
        played.append(json.dumps(asked.action))
        if asked.warning:
            warnings.append(asked.warning)
    where = f" ({match.where})"
    detail = (f"{played[0]} in {last_latency} ms" if len(played) == 1
              else f"{len(played)} turns: {', '.join(played)}") + where
    if warnings:  # the reply's debug note was bad: the service keeps the turn and warns
        return Check(match.name, "WARN", f"{detail}, but {warnings[0]} (the service plays the turn and shows this "
                     "warning in your turn log)", elapsed_ms=last_latency)
    return Check(match.name, "PASS", detail, elapsed_ms=last_latency)


@dataclass
class _Asked:
    action: dict | None = None
    problem: str | None = None
    elapsed_ms: int | None = None
    warning: str = ""
    unreachable: bool = False


def _ask_turn(client, url: str, secret: str, body: dict, deal: Deal, deadline_ms: int, about: str) -> _Asked:
    """Send one ``turn``: the legal action the bot chose, or what was wrong (``problem``; ``unreachable`` when the
    bot did not answer in time, could not be reached or refused the signature). The reply is in time within the
    deadline plus the time bank the body states (``time_bank_ms``), as in a match. A bad ``debug`` note (too long,
    not a string) is no failure: ``warning`` says what was wrong with it ("" when it was fine or absent)."""
    legal = body["legal_actions"]
    limit = deadline_ms + body["time_bank_ms"]
    raw = encode(body)
    try:
        reply = send(client, url, raw, sign(secret, raw), limit + GRACE_MS)
    except BotFault as fault:
        if fault.kind == "timeout":
            return _Asked(problem=(f"timeout: no answer within {limit + GRACE_MS} ms (the deadline is {deadline_ms} "
                                   f"ms, the time bank {body['time_bank_ms']} ms)"),
                          elapsed_ms=fault.elapsed_ms, unreachable=True)
        return _Asked(problem=f"{fault.kind}: {fault.cause}", elapsed_ms=fault.elapsed_ms, unreachable=True)
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
        return _Asked(problem="; ".join(problems), elapsed_ms=reply.elapsed_ms,
                      unreachable=reply.status in (401, 403))
    return _Asked(action=data["action"], elapsed_ms=reply.elapsed_ms, warning=reply_debug(data)[1])


def match_end_of(match: CheckMatch, match_id: int) -> dict:
    """The ``match_end`` of a check match: the match played on from where the check left it, every seat by a house
    strategy (the bot's by ``FINISHER``), to its real end; the body the service would send the bot's seat."""
    state = match.state or match.start()
    strategies = {**match.strategies, match.seat: FINISHER}
    while not state.is_over:
        seat = state.to_play
        state.apply(choose(strategies[seat], state.view(seat), state.legal_actions(), state.deal.seed))
    return match_end_body(match_id=match_id, seat=match.seat, totals=state.totals, standings=state.standings,
                          forfeited=[])


def check_match_ends(client, url: str, secret: str, ends: list[tuple[dict, int]]) -> Check:
    """Send each ``(match_end body, deadline ms)`` until one fails; a failure is only a warning."""
    slowest = 0
    for body, deadline_ms in ends:
        raw = encode(body)
        try:
            reply = send(client, url, raw, sign(secret, raw), deadline_ms)
        except BotFault as fault:
            return Check("match_end", "WARN", f"{fault.kind}: {fault.cause} (the service ignores match_end failures)")
        problem = _status_problem(reply)
        if problem:
            return Check("match_end", "WARN", f"{problem} (the service ignores match_end failures)")
        slowest = max(slowest, reply.elapsed_ms)
    return Check("match_end", "PASS", f"answered {len(ends)} with HTTP 2xx, the slowest in {slowest} ms",
                 elapsed_ms=slowest)


def run_checks(url: str, secret: str, deadline_ms: int = 1000, client=None, stop_when_unreachable: bool = False,
               match_ids: Callable[[], int] | None = None, match_rules: list[MatchRules] | None = None,
               time_bank_ms: int = 0, rng: random.Random | None = None) -> list[Check]:
    """Every check against ``url``, sent in this order: the turns of every check match (``plan_matches`` under
    ``match_rules``, default ``default_match_rules(deadline_ms)``), a ``match_end`` for each, then the ping and the
    three refusals. Returned in the report's order: the ping, the refusals, the turn checks as sent, the
    ``match_end``s. ``client`` is the ``httpx.Client`` to send with (default: a new tool client, closed at the end;
    the service passes its guarded one, which stays open). With ``stop_when_unreachable`` nothing more is sent
    once a request fails because the bot is not answering the service (no connection, no answer in time, its
    signature refused): the list then holds only what was sent.

    Every turn looks like a real one: ``match_ids()`` gives each match its id (default: a random id from 1 to
    999,999; never a constant; no two matches of a check share one), ``time_bank_ms`` is the seat's bank at the
    start of each match. ``rng`` (default: ``random.SystemRandom``) draws the matches and their order.
    """
    rng = rng or random.SystemRandom()
    match_ids = match_ids or (lambda: rng.randint(1, 999_999))
    matches = plan_matches(match_rules or default_match_rules(deadline_ms), rng)
    ids = _distinct_ids(match_ids, len(matches))
    ping_raw = encode(ping_body())
    with (nullcontext(client) if client is not None else make_client()) as client:
        turns = []
        for match, match_id in zip(matches, ids):
            turns.append(check_match(client, url, secret, match, match_id, time_bank_ms))
            if stop_when_unreachable and turns[-1].unreachable:
                return turns
        ends = check_match_ends(client, url, secret, [(match_end_of(match, match_id), match.rules.deadline_ms)
                                                      for match, match_id in zip(matches, ids)])
        ping = check_ping(client, url, secret)
        if stop_when_unreachable and ping.unreachable:
            return [ping, *turns, ends]
        refusals = [
            check_rejected(client, url, "bad signature", sign(secret + "-wrong", ping_raw), ping_raw,
                           "a ping signed with the wrong secret"),
            check_rejected(client, url, "stale timestamp", sign(secret, ping_raw,
                                                                int(time.time()) - 2 * SIGNATURE_MAX_AGE_S),
                           ping_raw, f"a correctly signed ping with a timestamp {2 * SIGNATURE_MAX_AGE_S} s old"),
            check_rejected(client, url, "no signature", {}, ping_raw, "a ping without signature headers"),
        ]
    return [ping, *refusals, *turns, ends]


def _distinct_ids(match_ids: Callable[[], int], count: int) -> list[int]:
    """``count`` ids from ``match_ids()``, no two alike (two real matches never share an id); a source too narrow
    for that may repeat one after 100 draws."""
    ids: list[int] = []
    while len(ids) < count:
        draws = (match_ids() for _ in range(100))
        ids.append(next((i for i in draws if i not in ids), match_ids()))
    return ids


#: Most turns of a check taking this long (ms, at least ``NAGLE_TURNS`` turns) looks like Nagle's algorithm waiting
#: for a delayed ACK on a kept-alive connection (about 40 ms a reply on Linux: docs/measurements.md), not thinking.
NAGLE_MS, NAGLE_TURNS = (35, 70), 3


def slow_turns_hint(checks: list[Check]) -> str | None:
    """A hint when at least three quarters of the turn checks that passed (and ``NAGLE_TURNS`` at least) took
    ``NAGLE_MS`` (35-70 ms): the pattern of a server whose replies wait for a delayed ACK (Nagle's algorithm), which
    costs ~40 ms a turn however fast the bot decides (a new connection's first replies are ACKed at once, so a turn or
    two may be fast); None otherwise."""
    low, high = NAGLE_MS
    times = [c.elapsed_ms for c in checks if c.name.startswith("turn") and c.status == "PASS"
             and c.elapsed_ms is not None]
    slow = [t for t in times if low <= t <= high]
    if len(slow) < NAGLE_TURNS or len(slow) * 4 < len(times) * 3:
        return None
    return (f"{len(slow)} of {len(times)} turns took {min(slow)}-{max(slow)} ms: if your bot does not think that "
            "long, its server's replies are probably waiting for delayed ACKs (Nagle's algorithm), about 40 ms a "
            "turn; set TCP_NODELAY on its sockets (Python's http.server: disable_nagle_algorithm = True), "
            "docs/BOT_PROTOCOL.md, Timeouts.")


def report(url: str, deadline_ms: int, checks: list[Check], out: TextIO) -> None:
    print(f"Eights Ladder bot check (protocol {PROTOCOL_VERSION}): {url}  deadline {deadline_ms} ms per turn",
          file=out)
    print("(sent as a match sends them: the turns first, then match_end; the ping and the requests to refuse last)",
          file=out)
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{c.status:<4}  {c.name:<{width}}  {c.detail}", file=out)
    passed = sum(c.status == "PASS" for c in checks)
    warned = sum(c.status == "WARN" for c in checks)
    failed = sum(c.status == "FAIL" for c in checks)
    print(f"{passed} of {len(checks)} checks passed" + (f", {warned} warning(s)" if warned else "")
          + (f", {failed} failed" if failed else ": ready to register"), file=out)
    hint = slow_turns_hint(checks)
    if hint:
        print(f"Hint: {hint}", file=out)


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eights_engine.bots.check", description="Check a bot endpoint against "
                                     "bot protocol v1 before registering it.")
    parser.add_argument("url", help="the bot's endpoint URL (http:// or https://)")
    parser.add_argument("--secret", default=os.environ.get("BOT_SECRET", ""), help="the bot's signing secret "
                        "(default: $BOT_SECRET)")
    parser.add_argument("--timeout-ms", type=int, default=1000, help="the turn deadline in ms (default 1000, as "
                        "BOT_TURN_TIMEOUT_MS)")
    parser.add_argument("--time-bank-ms", type=int, default=5000, help="the time bank each check match starts "
                        "with, in ms (default 5000, as BOT_TIME_BANK_MS)")
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
    if not 0 <= args.time_bank_ms <= 600000:
        parser.error("--time-bank-ms must be from 0 to 600000")
    checks = run_checks(args.url, args.secret, args.timeout_ms, time_bank_ms=args.time_bank_ms)
    report(args.url, args.timeout_ms, checks, out or sys.stdout)
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
