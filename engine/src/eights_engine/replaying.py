"""Replaying a stored match record (``MatchState.record``, an exported record, or the service's own log):
``start_from_record`` checks its frame and starts the match, ``replay`` and ``replay_more`` play its plies on,
verifying each one (``ReplayMismatch`` names the first that differs)."""

from __future__ import annotations

from typing import Callable

from .deal import ENGINE_VERSIONS
from .errors import IllegalAction
from .match import MatchState, ReplayMismatch
from .rules import Ruleset

#: ``observe(state, action)``: shown each ply of a replay before it is applied (``replay``).
Observer = Callable[[MatchState, dict], None]


def record_version(record: dict) -> str:
    """The engine version a record was dealt under: its ``engine_version``; without one, "2" when it has a
    ``secret`` or a ``single_deal`` with a ``key``, else "1" (records from before version 2 always named theirs)."""
    if "engine_version" in record:
        return str(record["engine_version"])
    single = record.get("single_deal")
    return "2" if "secret" in record or (isinstance(single, dict) and "key" in single) else "1"


def start_from_record(record: object, *, require_version: bool = False) -> MatchState:
    """The match a record (``MatchState.record`` or an exported match record) starts, before its first ply, after
    checking the record's frame: a dict with ``ruleset``, ``seats``, ``deals`` (a list of ``{"actions": [...],
    ...}`` objects), an engine version this engine plays (required with ``require_version``) and what the match is
    dealt from: version 2 a ``secret`` (and/or the ``seed`` it came from), version 1 a ``seed``, or a
    ``single_deal``; version 2's per-deal ``contributions`` are taken in. ``ReplayMismatch`` says what is wrong."""
    if not isinstance(record, dict):
        raise ReplayMismatch(f"a match record is a JSON object, not {type(record).__name__}")
    version = record_version(record)
    required = ["ruleset", "seats", "deals"] + (["engine_version"] if require_version else [])
    if "single_deal" not in record:
        required += ["seed"] if version == "1" else [] if "seed" in record else ["secret"]
    missing = [k for k in required if k not in record]
    if missing:
        raise ReplayMismatch(f"the record has no {missing[0]!r} (see docs/match-record.schema.json)")
    if version not in ENGINE_VERSIONS:
        raise ReplayMismatch(f"match: engine version expected one of {', '.join(ENGINE_VERSIONS)}, found "
                             f"{record['engine_version']!r:.20}: replay it with that version of the engine")
    deals = record["deals"]
    if not isinstance(deals, list) or not all(isinstance(d, dict) and isinstance(d.get("actions"), list) for d in deals):
        raise ReplayMismatch("'deals' must be a list of {'number', 'key' or 'seed', 'actions': [...], ...} objects")
    contributions = {}
    if version == "2" and "single_deal" not in record:
        contributions = {i + 1: d["contributions"] for i, d in enumerate(deals) if d.get("contributions") is not None}
    try:
        return MatchState.start(Ruleset.from_dict(record["ruleset"]), record["seats"], record.get("seed"),
                                record.get("single_deal"), secret=record.get("secret"), version=version,
                                contributions=contributions)
    except (ValueError, TypeError) as exc:
        raise ReplayMismatch(f"the record cannot start a match: {exc}") from None


def replay(record: dict, observe: Observer | None = None) -> MatchState:
    """Re-run a stored match record (as ``MatchState.record`` gives) and verify it. ``observe(state, action)``, when
    given, is called before each ply is applied, with the state as it stands and the record's action (a dict); it
    must not change the state.

    Raises ``ReplayMismatch`` (a ``ValueError``) when the record is malformed or when the engine version, a deal's
    number or seed, an action's legality or a deal's points differ from what the engine gives.
    """
    return replay_more(start_from_record(record), record["deals"], observe)


def replay_more(state: MatchState, deals: list[dict], observe: Observer | None = None) -> MatchState:
    """Play the stored plies that follow ``state``'s position onto it, verifying them as ``replay`` does, and return
    it (changed in place). ``deals`` is a record's ``deals`` from the current one on: the first entry is deal
    ``state.deal_number`` and holds only the actions after the ``len(state.deal_ids[-1])`` already applied; the next
    ones are the deals after it, whole. ``replay`` is this from the match's start; a cache of states brings a
    stored state up to date with it (``games.state_cache``).

    Raises ``ReplayMismatch`` as ``replay`` does (the state is then half-way: throw it away).
    """
    first = state.deal_number
    if state.version == "2" and state.single_deal is None:  # the later deals' stored contributions decide their keys
        for i, deal in enumerate(deals[1:], start=1):
            if deal.get("contributions") is not None and first + i not in state.contributions:
                try:
                    state.contribute(first + i, deal["contributions"])
                except ValueError as exc:
                    raise ReplayMismatch(f"deal {first + i}: {exc}") from None
    for i, deal in enumerate(deals):
        number = first + i
        if state.is_over and state.deal_number != number:
            raise ReplayMismatch(f"the match ended before deal {number}")
        if deal.get("number", number) != number:
            raise ReplayMismatch(f"deal {number} is numbered {deal.get('number')!r}")
        if state.deal_number != number:
            raise ReplayMismatch(f"deal {number}: the match is at deal {state.deal_number}")
        offers = _offers(deal, number)
        source = state.deal.seed
        # the words name no key or seed: this runs on running matches too, and a message can end in an abort reason
        if isinstance(source, bytes):
            if "key" in deal and deal["key"] != source.hex():
                raise ReplayMismatch(f"deal {number}: the stored key differs from the one the match deals it from")
        elif "seed" in deal and deal["seed"] != source:
            raise ReplayMismatch(f"deal {number}: the stored seed differs from the one the match deals it from")
        done = len(state.deal_ids[-1])  # plies of this deal applied before (only the first entry has any)
        for ply, action in enumerate(deal["actions"], start=done):
            if state.deal_number != number or state.is_over:
                raise ReplayMismatch(f"deal {number} ended before its ply {ply}")
            for seat, contribution in offers.get(ply, ()):
                state.offer(seat, contribution)
            if observe is not None:
                observe(state, action)
            try:
                state.apply(action)
            except IllegalAction as exc:
                raise ReplayMismatch(f"deal {number} ply {ply}: {exc}") from exc
        if "points" in deal and (len(state.results) < number or state.results[number - 1].points != deal["points"]):
            raise ReplayMismatch(f"deal {number}: points differ from the record")
    return state


def _offers(deal: dict, number: int) -> dict[int, list[tuple[int, bytes]]]:
    """A record deal's ``offers`` (the service's own log, not an exported record's: ``[[ply, seat, hex], ...]``,
    ply 0-based within the deal) by ply: the contributions seats sent with their plies (``MatchState.offer``)."""
    out: dict[int, list[tuple[int, bytes]]] = {}
    for entry in deal.get("offers") or ():
        try:
            ply, seat, given = entry
            out.setdefault(int(ply), []).append((int(seat), bytes.fromhex(given)))
        except (TypeError, ValueError):
            raise ReplayMismatch(f"deal {number}: offers are [ply, seat, hex] lists, not {entry!r:.80}") from None
    return out
