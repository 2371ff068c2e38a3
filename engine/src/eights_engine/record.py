"""Checking an exported match record offline (docs/MATCH_RECORD.md), with the engine alone (no Django, no I/O).

An exported record (``games.matches.exports.match_export``; schema in docs/match-record.schema.json) is the engine's
replay record (``MatchState.record``: ruleset, engine version, seats, match seed, per deal its seed and actions)
plus what the service stored about it: per deal the dealer, outcome, winner, hand values and points, and the
match result (totals, places, a forfeited seat). ``verify_record`` replays it ply by ply and checks every stored
fact against what the engine gives; the first difference raises ``ReplayMismatch`` naming the deal, the ply
(1-based within the deal) where known, what was expected and what was found.

Provably fair deals (docs/FAIRNESS.md). Engine version 2: the match's ``secret`` must open the ``commitment``
published when the match was created (``keys.secret_commitment``), every deal's ``key`` must be the one the secret
and the seats' ``contributions`` derive for it (``keys.deal_key``) and open the deal's ``commitment``
(``keys.deal_key_commitment``), and its ``code`` must be the key's. Version 1: a deal with a ``commitment`` must publish its ``salt``, and SHA-256 of
``f"{seed}:{salt}"`` must equal the commitment; as the seed must also be the one the match seed derives for that
deal and every ply must be legal under the cards that seed deals, a deal whose cards were changed after its
commitment was shown is refused. A deal with neither (stored before commitments) passes, and ``summary`` says
"no commitment (dealt before commitments)" for it.
"""

from __future__ import annotations

from datetime import datetime

from .errors import IllegalAction
from .fairness import UNCOMMITTED, verify_commitment
from .keys import deal_key_commitment, key_code, secret_commitment
from .match import MatchState, ReplayMismatch, start_from_record
from .proof import FaultBook, check_signature
from .rng import deal_code


def _short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: the record formats this engine checks: 2 adds ``seating``, each deal's ``faults``, each player's ``max_faults`` and
#: ``player_id``, and the service's ``signature`` (``proof``)
FORMAT_1, FORMAT_2 = "eights-match-record/1", "eights-match-record/2"


def verify_record(record: object, *, committed_since: datetime | None = None, require_commitments: bool = False,
                  public_key: str | None = None, require_signature: bool = False) -> MatchState:
    """Replay an exported match record and check every stored result (RULES.md systems as its ruleset says).

    ``record``: a dict as in docs/match-record.schema.json (the engine's own ``MatchState.record()`` passes too:
    the facts it lacks are not checked). Returns the engine state after the last stored ply. Raises
    ``ReplayMismatch`` (a ``ValueError``) on the first difference: ``"deal D ply P: expected ..., found ..."`` for
    an action the engine does not allow there, ``"deal D: <fact> expected X, found Y"`` for a deal's seed, code,
    dealer, commitment (with its salt), outcome, winner, hand values or points, ``"match: ..."`` for the totals,
    places or the match's end; the exception's ``deal``, ``ply``, ``what``, ``expected`` and ``found`` say the same.

    Deals without a commitment (stored before commitments existed) pass, except a deal after one that has a
    commitment, and every deal of a match whose ``created_at`` is at or after ``committed_since`` (an aware
    datetime: when the store began committing; ``manage.py verify_matches`` gives the time its database's
    migration added commitments). An exported record (it has ``format``) must carry its ``result`` and
    ``players``, each seat's total, place and forfeit as the engine gives them.

    Format 2 (``proof``): a forfeit must follow from the plies under the fault policy (``FaultBook``), and the
    version 2 commitment binds the ``seating``. ``require_commitments``: every deal must have a commitment (every
    record the service exports has them). A ``signature`` is checked when present, and must be there with
    ``require_signature`` or ``public_key`` (then by that key, 64 hex digits), after every other check (a changed
    ply is named as such; a change the plies cannot see, such as a name, breaks the signature).
    """
    state = start_from_record(record, require_version=True)
    if record.get("format") not in (None, FORMAT_1, FORMAT_2):
        raise ReplayMismatch(f"match: format expected {FORMAT_1} or {FORMAT_2}, found {record.get('format')!r:.40}")
    if state.version == "2" and record.get("format", FORMAT_2) != FORMAT_2:
        raise ReplayMismatch(f"match: a version 2 match's record is format {FORMAT_2}, found {record['format']!r:.40}")
    if state.version == "2" and state.single_deal is None:
        _check_secret(state, record.get("commitment"), record.get("seating"))
        _check_contributions(record)
    elif state.single_deal is not None and any(k in record for k in ("secret", "commitment", "seating")):
        raise ReplayMismatch("match: a record of one deal played again has no match secret, commitment or seating "
                             "(its deal's key is given)", what="single_deal")
    # every version 2 record proves a claimed forfeit from its plies (a record without faults claims none)
    book = FaultBook(record, state.seats) if state.version == "2" or record.get("format") == FORMAT_2 else None
    deals = record["deals"]
    must_commit, committed = _created_since(record, committed_since), False
    for i, deal in enumerate(deals):
        number = i + 1
        if state.is_over:
            raise ReplayMismatch(f"deal {number}: expected no more deals (the match ended after deal {i}), "
                                 "found another one")
        _expect(number, "number", number, deal.get("number", number))
        _expect(number, "dealer", state.deal.dealer, deal.get("dealer", state.deal.dealer))
        if state.version == "2":
            _check_key(number, state.deal.seed, deal)
        else:
            _expect(number, "seed", state.deal.seed, deal.get("seed", state.deal.seed))
            if "code" in deal:
                _expect(number, "code", deal_code(state.deal.seed), deal["code"])
            if "commitment" not in deal and "salt" not in deal and (must_commit or committed or require_commitments):
                why = (f"the match was created after commitments existed ({committed_since.isoformat()})"
                       if must_commit else "an earlier deal of the match has one" if committed else
                       "every deal must have one (--require-commitments)")
                raise ReplayMismatch(f"deal {number}: expected a commitment and its salt ({why}), found neither",
                                     deal=number, what="commitment", expected="a commitment", found=None)
            committed = committed or "commitment" in deal
            _check_commitment(number, state.deal.seed, deal)
        for ply, action in enumerate(deal["actions"], start=1):
            if state.deal_number != number:
                raise ReplayMismatch(f"deal {number} ply {ply}: expected the deal to have ended (after ply {ply - 1}),"
                                     f" found action {_short(action)}", deal=number, ply=ply, what="action",
                                     expected="the deal's end", found=action)
            if book is not None:
                book.ply(state, number, ply, action)
            try:
                state.apply(action)
            except (IllegalAction, TypeError, ValueError) as exc:  # refused before any change: the state is as it was
                legal = state.legal_actions()
                raise ReplayMismatch(f"deal {number} ply {ply}: expected one of {_short(legal, 300)}, found "
                                     f"{_short(action)} ({exc})", deal=number, ply=ply, what="action",
                                     expected=legal, found=action) from None
        finished = len(state.results) > i
        if not finished:
            if deal.get("points") is not None:
                raise ReplayMismatch(f"deal {number}: expected an unfinished deal after {len(deal['actions'])} "
                                     f"plies, found stored points {deal.get('points')!r}", deal=number,
                                     what="points", expected=None, found=deal.get("points"))
            continue
        result = state.results[i]
        for key in ("outcome", "winner", "hand_values", "points"):
            if key in deal:
                _expect(number, key, getattr(result, key), deal[key])
    exported = "format" in record  # an exported record: always of a finished match, with its result and players
    if exported and "result" not in record:
        raise ReplayMismatch("match: expected the match's result (an exported record is of a finished match), "
                             "found none")
    result = record.get("result")
    if result is not None and not isinstance(result, dict):
        raise ReplayMismatch(f"match: 'result' must be an object, not {type(result).__name__}")
    if book is not None:
        book.check_result((result or {}).get("forfeited"))
    places = _check_result(state, record.get("result"), complete=exported)
    if exported or "players" in record:
        _check_players(state, record.get("players"), places, (record.get("result") or {}).get("forfeited"))
    if record.get("signature") is not None or require_signature or public_key:  # last: the plies' words first
        check_signature(record, public_key)
    return state


def _check_contributions(record: dict) -> None:
    """Deal 1 is dealt when the match is created, before anyone could send anything, and a match dealt from a chosen
    seed takes no contributions (docs/FAIRNESS.md): a record that says otherwise was made, not played."""
    deals = record["deals"]
    if deals and deals[0].get("contributions") is not None:
        raise ReplayMismatch("deal 1: contributions expected none (deal 1 is dealt when the match is created), found "
                             f"{_short(deals[0]['contributions'])}", deal=1, what="contributions")
    if record.get("seed") is not None:
        given = next((i + 1 for i, d in enumerate(deals) if d.get("contributions") is not None), None)
        if given is not None:
            raise ReplayMismatch(f"deal {given}: contributions expected none (a match dealt from a chosen seed takes "
                                 "none), found some", deal=given, what="contributions")


def _check_secret(state: MatchState, commitment: object, seating: object) -> None:
    """Version 2: the published match secret and seating (player ids by seat; None: the engine alone) open the
    commitment shown when the match was created."""
    try:
        expected = secret_commitment(state.secret, seating)
    except ValueError as exc:
        raise ReplayMismatch(f"match: seating {exc}", what="seating") from None
    if commitment != expected:
        raise ReplayMismatch(f"match: commitment expected {expected} (of the published secret and seating: "
                             f"keys.secret_commitment), found {_short(commitment)} (the secret, the seating or the "
                             "commitment was changed)", what="commitment", expected=expected, found=commitment)


def _check_key(number: int, key: bytes, deal: dict) -> None:
    """Version 2: the deal's ``key`` is the one the engine derives (from the secret and the contributions) and opens
    the deal's ``commitment``; its ``code`` (when given) is the key's."""
    if deal.get("key", key.hex()) != key.hex():
        raise ReplayMismatch(f"deal {number}: key expected {key.hex()} (from the secret and the contributions), found "
                             f"{_short(deal.get('key'))} (the secret, a contribution or the key was changed)",
                             deal=number, what="key", expected=key.hex(), found=deal.get("key"))
    expected = deal_key_commitment(key)
    if deal.get("commitment") != expected:
        raise ReplayMismatch(f"deal {number}: commitment expected {expected} (of the key the secret and the "
                             f"contributions derive), found {_short(deal.get('commitment'))}", deal=number,
                             what="commitment", expected=expected, found=deal.get("commitment"))
    if "code" in deal:
        _expect(number, "code", key_code(key), deal["code"])


def _created_since(record: dict, since: datetime | None) -> bool:
    """Whether the record's ``created_at`` (ISO 8601) is at or after ``since``; a record without a readable
    ``created_at`` counts as created after it (a store that commits writes the time)."""
    if since is None:
        return False
    try:
        created = datetime.fromisoformat(str(record.get("created_at")).replace("Z", "+00:00"))
        return created.tzinfo is None or created >= since
    except ValueError:
        return True


def _expect(number: int, what: str, expected: object, found: object) -> None:
    if expected != found:
        raise ReplayMismatch(f"deal {number}: {what} expected {_short(expected)}, found {_short(found)}",
                             deal=number, what=what, expected=expected, found=found)


def _check_commitment(number: int, seed: int, deal: dict) -> None:
    """The deal's ``commitment`` against SHA-256 of its seed (the one the engine deals from) and ``salt``; a deal
    with neither was stored before commitments and passes (``summary`` names it)."""
    commitment, salt = deal.get("commitment"), deal.get("salt")
    if commitment is None and salt is None:
        return
    if salt is None or commitment is None:
        missing, given = ("salt", "commitment") if salt is None else ("commitment", "salt")
        raise ReplayMismatch(f"deal {number}: commitment cannot be checked: the record gives its {given} but no "
                             f"{missing}", deal=number, what="commitment", expected=f"a {missing}", found=None)
    problem = verify_commitment(seed, salt, commitment)
    if problem:
        raise ReplayMismatch(f"deal {number}: commitment does not match: {problem}", deal=number, what="commitment",
                             expected=f"SHA-256 of {seed}:{salt}", found=commitment)


def _check_result(state: MatchState, result: object, *, complete: bool = False) -> list[int] | None:
    """The match result (``{"totals", "places", "forfeited"}``) against the engine's; nothing when absent. With
    ``complete`` (an exported record) every key must be there. Returns the engine's places (None without a
    result)."""
    if result is None:
        return None
    if not isinstance(result, dict):
        raise ReplayMismatch(f"match: 'result' must be an object, not {type(result).__name__}")
    if complete:
        missing = [k for k in ("totals", "places", "forfeited") if k not in result]
        if missing:
            raise ReplayMismatch(f"match: expected the result's {', '.join(missing)}, found none")
    forfeited = result.get("forfeited")
    if forfeited is None and not state.is_over:
        raise ReplayMismatch(f"match: expected more plies (the engine's match is not over after deal "
                             f"{state.deal_number}), found the end of the record")
    if "totals" in result and result["totals"] != state.totals:
        raise ReplayMismatch(f"match: totals expected {state.totals}, found {_short(result['totals'])}")
    try:
        places = state.standings if forfeited is None else state.standings_after_forfeit(forfeited)
    except (IndexError, TypeError):
        raise ReplayMismatch(f"match: forfeited must be a seat (0 to {state.seats - 1}) or null, "
                             f"not {_short(forfeited)}") from None
    if "places" in result and result["places"] != places:
        raise ReplayMismatch(f"match: places expected {places}, found {_short(result['places'])}")
    return places


def _check_players(state: MatchState, players: object, places: list[int] | None, forfeited: object) -> None:
    """``players[]`` (one object per seat, in seat order) against the engine: each seat's ``seat`` index, final
    ``total``, ``place`` and ``forfeited`` flag (only the seat the result names forfeited)."""
    if not isinstance(players, list) or len(players) != state.seats:
        raise ReplayMismatch(f"match: players expected a list of {state.seats} seats, found {_short(players)}")
    for index, player in enumerate(players):
        if not isinstance(player, dict):
            raise ReplayMismatch(f"match: players[{index}] must be an object, not {type(player).__name__}")
        expected = {"seat": index, "total": state.totals[index], "forfeited": index == forfeited}
        if places is not None:
            expected["place"] = places[index]
        for key, value in expected.items():
            if player.get(key) != value or type(player.get(key)) is not type(value):
                raise ReplayMismatch(f"match: seat {index}'s {key} expected {value!r}, found "
                                     f"{_short(player.get(key))}")


def summary(record: dict, state: MatchState) -> str:
    """One line about a verified record: match id when known, preset, seats, deals, plies, totals, places."""
    plies = sum(len(d["actions"]) for d in record["deals"])
    name = f"match {record['match']}" if "match" in record else "match"
    preset = record.get("preset") or "custom ruleset"
    result = record.get("result") or {}
    places = result.get("places", state.standings)
    end = f", seat {result['forfeited']} forfeited" if result.get("forfeited") is not None else ""
    uncommitted = [d.get("number", i + 1) for i, d in enumerate(record["deals"]) if d.get("commitment") is None]
    if state.version == "2":
        fair = (", engine version 2: the deal's key opened its commitment" if state.single_deal else
                ", engine version 2: the secret opened the match's commitment and every deal's key its own")
    elif not uncommitted:
        fair = ", every deal's commitment opened"
    else:
        fair = f", deal{'s' if len(uncommitted) > 1 else ''} {_numbers(uncommitted)}: {UNCOMMITTED}"
    signature = record.get("signature")
    if isinstance(signature, dict):
        fair += f", signed by {str(signature.get('public_key'))[:16]}..."
    return (f"{name} ({preset}, {state.seats} seats): {len(record['deals'])} deals, {plies} plies, totals "
            f"{state.totals}, places {places}{end}{fair}: OK")


def _numbers(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` as ``"1-3, 5"``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
