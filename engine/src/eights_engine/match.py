"""A match: deals until a seat's total reaches the target, and ``replay`` of a stored match record.

Deal k (1-based) of a version 2 match (``ENGINE_VERSION``, every match created now) is dealt from the key
``keys.deal_key(secret, k, contributions to deal k)``, the secret 32 random bytes (or ``keys.secret_from_seed(S)`` for
a match started from a chosen seed ``S``); deal k of a version 1 match (stored before version 2, replayed so
forever) from the 40-bit seed ``derive_seed(S, k)`` (see ``rng``). The first
dealer is the last seat, so seat 0 leads the first deal (system B); the deal passes to the left after each
deal when ``dealer_rotates`` (E; our reading for the others). Under ``first_player="previous_winner"`` (B)
the previous deal's winner leads (left of the dealer after a blocked deal).

Ends and places: the match ends after the deal in which a total reaches the target (``target_for``); under
``penalty`` the lowest total is first, otherwise the highest; equal totals share a place (``match_tie="share"``)
or the match goes on until one seat leads alone (``"play_on"``). ``partnership``: the sides' totals (sum of the
two members) decide, and partners share their side's place. ``hollywood`` (A1): see ``HollywoodScore``;
``totals`` are then the games each seat has won.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .deal import ACTIONS, ENGINE_VERSION, ENGINE_VERSIONS, Deal, DealResult, check_ruleset_seats
from .errors import IllegalAction
from .hollywood import HollywoodScore
from .keys import (
    CONTRIBUTION_MAX_BYTES, KEY_BYTES, deal_key, deal_key_commitment, parse_hex, secret_commitment, secret_from_seed,
)
from .rng import derive_seed
from .rules import Ruleset

MAX_DEALS = 500  # a safeguard: a match that has not ended after this many deals ends where it stands


class ReplayMismatch(ValueError):
    """A stored record does not replay: a seed, an action or a result differs from what the engine gives.

    Besides the message, where known: ``deal`` (1-based number), ``ply`` (1-based within the deal), ``what`` (the
    fact that differs: ``action``, ``seed``, ``commitment``, ``points``, ...), ``expected`` and ``found``; None
    where not known (a malformed record, a match-level fact)."""

    def __init__(self, message: str, *, deal: int | None = None, ply: int | None = None, what: str | None = None,
                 expected: object = None, found: object = None) -> None:
        super().__init__(message)
        self.deal, self.ply, self.what, self.expected, self.found = deal, ply, what, expected, found


@dataclass(frozen=True)
class PublicPly:
    """One ply as everyone saw it (``MatchState.watch``): ``ply`` (the match's ply count after it, from 1),
    ``deal_number`` and ``seat`` it was played in and by, the ``action``, the public history ``entries`` it put on
    record (``Deal.history_since``), and ``view``: ``MatchState.public_view(history=False)`` right after it (the
    next deal's, when it ended one)."""

    ply: int
    deal_number: int
    seat: int
    action: dict
    entries: list
    view: dict


class MatchState:
    """Deals until the target. Read ``deal`` (the current one), ``totals``, ``is_over``, ``standings``."""

    def __init__(self, ruleset: Ruleset, seats: int, seed: int | None = None, single_deal: dict | None = None, *,
                 secret: bytes | str | None = None, version: str = ENGINE_VERSION,
                 contributions: dict[int, list] | None = None) -> None:
        check_ruleset_seats(ruleset, seats)
        version = str(version)
        if version not in ENGINE_VERSIONS:
            raise ValueError(f"engine version is one of {', '.join(ENGINE_VERSIONS)}, not {version!r:.20}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
            raise ValueError(f"a match seed is an integer from 0 to 2**64-1, not {seed!r:.40}")
        self.ruleset = ruleset
        self.seats = seats
        self.version = version
        self.seed = seed
        self.secret: bytes | None = None
        self.contributions: dict[int, list[bytes | None]] = {}
        self.offers: dict[int, bytes] = {}  # seat -> its first contribution during the current deal (``offer``)
        self.target = ruleset.target_for(seats)
        self.totals = [0] * seats
        self.results: list[DealResult] = []
        self.deal_ids: list[list[int]] = []  # action ids per deal (see deal.ACTIONS)
        self.deal_number = 0
        self.is_over = False
        self.deal: Deal = None  # type: ignore[assignment]
        self.single_deal = None
        if single_deal is not None:  # replaying one deal: that deal only, then the match ends
            self.single_deal = self._single_deal(single_deal)
        elif version == "1":
            if seed is None or secret is not None:
                raise ValueError("a version 1 match is dealt from a seed (an int) and has no secret")
        else:
            if secret is not None:
                self.secret = parse_hex(secret, "a match secret", KEY_BYTES)
                if seed is not None and self.secret != secret_from_seed(seed):
                    raise ValueError(f"the secret is not the one seed {seed} gives (keys.secret_from_seed)")
            elif seed is not None:
                self.secret = secret_from_seed(seed)
            else:
                raise ValueError("a version 2 match is dealt from a secret (32 bytes) or a seed (an int)")
        for number, given in (contributions or {}).items():
            self.contribute(number, given)
        self.hollywood = HollywoodScore(ruleset, self.target) if ruleset.scoring == "hollywood" else None
        self.final_hands: list[list[list[str]]] = []  # per finished deal: each seat's cards when it ended
        self.points = [0] * seats  # deal points summed (equals totals except under hollywood)
        self.watched: deque[PublicPly] | None = None  # see ``watch``
        self._start_deal(dealer=seats - 1 if single_deal is None else self.single_deal["dealer"], leader=None)

    def _single_deal(self, single_deal: object) -> dict:
        """``single_deal`` checked: ``{"seed": int, "dealer": seat}`` (version 1) or ``{"key": 64 hex digits,
        "dealer": seat}`` (version 2)."""
        source = "seed" if self.version == "1" else "key"
        shape = f"{{'{source}': {'int' if source == 'seed' else '64 hex digits'}, 'dealer': seat}}"
        if not (isinstance(single_deal, dict) and isinstance(single_deal.get("dealer"), int)
                and not isinstance(single_deal.get("dealer"), bool) and 0 <= single_deal["dealer"] < self.seats):
            raise ValueError(f"single_deal is {shape}")
        if source == "seed":
            if not (isinstance(single_deal.get("seed"), int) and not isinstance(single_deal["seed"], bool)):
                raise ValueError(f"single_deal is {shape}")
            return {"seed": single_deal["seed"], "dealer": single_deal["dealer"]}
        try:
            key = parse_hex(single_deal.get("key"), "single_deal's key", KEY_BYTES)
        except ValueError:
            raise ValueError(f"single_deal is {shape}") from None
        return {"key": key, "dealer": single_deal["dealer"]}

    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: int | None = None, single_deal: dict | None = None, *,
              secret: bytes | str | None = None, version: str = ENGINE_VERSION,
              contributions: dict[int, list] | None = None) -> "MatchState":
        """Start a match of ``seats`` players; raises ``ValueError`` on bad arguments.

        Engine version 2 (the default): dealt from ``secret`` (32 bytes or 64 hex digits: a new match's, from
        ``keys.new_secret``), or from a chosen ``seed`` (an int: the secret is ``keys.secret_from_seed(seed)``,
        reproducible); ``contributions`` maps a deal number to the seats' contributions to it (a list by seat of
        0-32 bytes, hex or None; see ``contribute``). ``version="1"``: a stored version 1 match, dealt from ``seed``.

        ``single_deal`` plays exactly one deal and ends the match with it (a deal played again: same cards, compare
        results): ``{"key": 64 hex digits, "dealer": d}`` (version 2) or ``{"seed": s, "dealer": d}`` (version 1).
        """
        return cls(ruleset, seats, seed, single_deal, secret=secret, version=version, contributions=contributions)

    def contribute(self, number: int, contributions: list) -> None:
        """Record the seats' contributions to deal ``number`` (version 2), before that deal is dealt: a list by
        seat of 0 to 32 bytes (bytes, hex, or None for nothing). ``ValueError`` for a deal already dealt, a
        version 1 match, or a malformed list."""
        if self.version == "1" or self.single_deal is not None:
            raise ValueError("only a version 2 match's deals take contributions")
        if not (isinstance(number, int) and number > self.deal_number):
            raise ValueError(f"deal {number!r} is dealt already (the match is at deal {self.deal_number})")
        if not (isinstance(contributions, list) and len(contributions) == self.seats):
            given = f"{len(contributions)} entries" if isinstance(contributions, list) else type(contributions).__name__
            raise ValueError(f"deal {number}'s contributions are a list with one entry per seat ({self.seats} in this "
                             f"match), not {given}")
        parsed: list[bytes | None] = []
        for given in contributions:
            if given is None or given == "" or given == b"":
                parsed.append(None)
            elif isinstance(given, bytes) and len(given) <= CONTRIBUTION_MAX_BYTES:
                parsed.append(given)
            elif isinstance(given, str) and len(given) <= 2 * CONTRIBUTION_MAX_BYTES and len(given) % 2 == 0:
                try:
                    parsed.append(bytes.fromhex(given))
                except ValueError:
                    raise ValueError(f"a contribution is hex, not {given!r:.80}") from None
                if given != given.lower():
                    raise ValueError(f"a contribution is lowercase hex, not {given!r:.80}")
            else:
                raise ValueError(f"a contribution is 0 to {CONTRIBUTION_MAX_BYTES} bytes in hex, not {given!r:.80}")
        self.contributions[number] = parsed

    def offer(self, seat: int, contribution: bytes) -> bool:
        """A seat's contribution (1 to 32 bytes) sent during the current deal, for the key of the next one: the
        first a seat sends during a deal counts, any later one in the same deal does not (False). A version 2 match
        only, not a single deal; the deal after this one takes every seat's offer when it is dealt (``contribute``
        with them), unless its contributions were given already. ``ValueError`` for a bad seat or contribution."""
        if self.version == "1" or self.single_deal is not None:
            raise ValueError("only a version 2 match's deals take contributions")
        if not (isinstance(seat, int) and 0 <= seat < self.seats):
            raise ValueError(f"seat is 0 to {self.seats - 1}, not {seat!r}")
        if not (isinstance(contribution, bytes) and 1 <= len(contribution) <= CONTRIBUTION_MAX_BYTES):
            raise ValueError(f"a contribution is 1 to {CONTRIBUTION_MAX_BYTES} bytes, not {contribution!r:.80}")
        if seat in self.offers:
            return False
        self.offers[seat] = contribution
        return True

    def published_contributions(self, number: int) -> list[str | None] | None:
        """Deal ``number``'s contributions as records give them: a list by seat of lowercase hex (None: nothing), or
        None when no seat contributed."""
        given = self.contributions.get(number)
        return [c.hex() if c else None for c in given] if given and any(given) else None

    def deal_seed(self, number: int) -> int | bytes:
        """What deal ``number`` (1-based) of this match is dealt from: its 32-byte key (version 2) or its seed
        (version 1)."""
        if self.single_deal is not None:
            return self.single_deal["key" if self.version == "2" else "seed"]
        if self.version == "1":
            return derive_seed(self.seed, number)
        return deal_key(self.secret, number, self.contributions.get(number))

    def _start_deal(self, dealer: int, leader: int | None) -> None:
        self.deal_number += 1
        if self.offers:
            if self.deal_number not in self.contributions:  # given ones (a record's) stand
                self.contributions[self.deal_number] = [self.offers.get(s) for s in range(self.seats)]
            self.offers = {}
        self.deal = Deal.start(self.ruleset, self.seats, self.deal_seed(self.deal_number), dealer=dealer,
                               leader=leader)
        self.deal_ids.append([])

    @property
    def to_play(self) -> int | None:
        return None if self.is_over else self.deal.to_play

    def legal_actions(self) -> list[dict]:
        return [] if self.is_over else self.deal.legal_actions()

    def view(self, seat: int) -> dict:
        """The seat's view of the current deal plus match facts (``totals``, ``deal_number``, ``target``)."""
        view = self.deal.view(seat)
        view.update(deal_number=self.deal_number, totals=list(self.totals), target=self.target)
        if self.hollywood:
            view["hollywood"] = self.hollywood.to_dict()
        return view

    def public_view(self, *, history: bool = True) -> dict:
        """What every seat and a spectator may see of the match (``Deal.public_view`` plus ``deal_number``,
        ``totals``, ``target`` and, under hollywood scoring, ``hollywood``): never a card of a hand or the stock."""
        view = self.deal.public_view(history=history)
        view.update(deal_number=self.deal_number, totals=list(self.totals), target=self.target)
        if self.hollywood:
            view["hollywood"] = self.hollywood.to_dict()
        return view

    def watch(self, keep: int) -> None:
        """From now on, keep each ply applied as everyone saw it (a ``PublicPly``), the last ``keep`` of them, in
        ``watched``: the public record of a watched match, made by whoever advances the state (a live feed reads
        it instead of stepping a state of its own). Costs a public view per ply (microseconds) while on. Calling it
        again keeps what is kept (a larger ``keep`` widens the window)."""
        if self.watched is None or (self.watched.maxlen or 0) < keep:
            self.watched = deque(self.watched or (), maxlen=keep)

    def watched_after(self, ply_count: int) -> list[PublicPly] | None:
        """The kept plies after ``ply_count`` (oldest first), or None when the kept ones do not reach back to ply
        ``ply_count + 1`` (the state was not watched then, or more plies came since than are kept)."""
        watched = self.watched
        if watched is None:
            return None
        applied = sum(map(len, self.deal_ids))
        if ply_count >= applied:
            return []
        if not watched or watched[0].ply > ply_count + 1:
            return None
        return [p for p in watched if p.ply > ply_count]

    def apply(self, action: dict) -> None:
        """Apply a ply to the current deal; when it ends, score it and deal the next one (or end the match).

        Raises ``IllegalAction`` as ``Deal.apply`` does, and once the match is over.
        """
        if self.is_over:
            raise IllegalAction("the match is over: no more actions")
        self.apply_id(self.deal.action_id(action))

    def legal_ids(self) -> list[int]:
        """The integer fast path (see ``deal.ACTIONS``): the current deal's legal action ids."""
        return [] if self.is_over else self.deal.legal_ids()

    def apply_id(self, action_id: int) -> None:
        """The integer fast path's ``apply``; ``IllegalAction`` when the id is not legal now."""
        if self.is_over:
            raise IllegalAction("the match is over: no more actions")
        deal = self.deal
        if self.watched is not None:
            seat, number, logged = deal.to_play, self.deal_number, deal.history_length
        deal.apply_id(action_id)
        self.deal_ids[-1].append(action_id)
        if deal.result is not None:
            self._finish_deal()
        if self.watched is not None:
            self.watched.append(PublicPly(sum(map(len, self.deal_ids)), number, seat, dict(ACTIONS[action_id]),
                                          deal.history_since(logged), self.public_view(history=False)))

    @property
    def deal_actions(self) -> list[list[dict]]:
        """Every deal's actions so far, as dicts."""
        return [[dict(ACTIONS[i]) for i in ids] for ids in self.deal_ids]

    def _finish_deal(self) -> None:
        result = self.deal.result
        self.results.append(result)
        self.final_hands.append([self.deal.hand(s) for s in range(self.seats)])
        for s, p in enumerate(result.points):
            self.points[s] += p
        if self.hollywood:
            self.hollywood.add_deal(result.points)
            self.totals = list(self.hollywood.games_won)
        else:
            self.totals = list(self.points)
        if self.single_deal is not None or self._target_reached() or self.deal_number >= MAX_DEALS:
            self.is_over = True
            return
        dealer = (self.deal.dealer + 1) % self.seats if self.ruleset.dealer_rotates else self.deal.dealer
        leader = None
        if self.ruleset.first_player == "previous_winner" and result.winner is not None:
            leader = result.winner
        self._start_deal(dealer=dealer, leader=leader)

    def _side_totals(self) -> list[int]:
        """Totals by seat, or under ``partnership`` each seat's side total (seats 0+2, 1+3)."""
        if self.ruleset.partnership:
            sides = [self.totals[0] + self.totals[2], self.totals[1] + self.totals[3]]
            return [sides[s % 2] for s in range(self.seats)]
        return self.totals

    def _target_reached(self) -> bool:
        if self.hollywood:
            return self.hollywood.is_over
        if max(self._side_totals()) < self.target:
            return False
        if self.ruleset.match_tie == "play_on":
            return self.standings.count(1) == (2 if self.ruleset.partnership else 1)
        return True

    @property
    def standings(self) -> list[int]:
        """Place by seat (1 = first); tied seats (and partners) share a place. Penalty: lowest total is best;
        hollywood: most games won."""
        totals = self._side_totals()
        lower_wins = self.ruleset.lower_total_wins
        key = [(t if lower_wins else -t) for t in totals]
        if self.ruleset.partnership:  # rank the two sides, not the four seats: places 1 and 2 (or 1 and 1)
            return [1 + (key[s] > key[1 - s % 2]) for s in range(self.seats)]
        return [1 + sum(1 for other in key if other < mine) for mine in key]

    def standings_after_forfeit(self, forfeited: int) -> list[int]:
        """Places when seat ``forfeited`` gives up the match: it is last; the others keep their order (and ties)
        from ``standings`` and take places 1.. among themselves."""
        places = self.standings
        order = sorted((s for s in range(self.seats) if s != forfeited), key=lambda s: places[s])
        result = [0] * self.seats
        for rank, s in enumerate(order):
            result[s] = 1 + sum(1 for other in order[:rank] if places[other] < places[s])
        result[forfeited] = self.seats
        return result

    def record(self) -> dict:
        """The replayable record: ruleset, engine version, seats and, per deal, what it was dealt from, its actions
        and (once finished) its points. Version 2: the match ``secret`` and its ``commitment`` (and the ``seed``
        when the secret came from one), per deal its ``key``, ``commitment`` and ``contributions`` (when any seat
        gave one); version 1: the match ``seed``, per deal its ``seed``. A one-deal match gives ``single_deal``."""
        v2 = self.version == "2"
        deals = []
        for i, actions in enumerate(self.deal_actions):
            source = self.deal_seed(i + 1)
            entry: dict = {"number": i + 1}
            if v2:
                entry.update(key=source.hex(), commitment=deal_key_commitment(source))
                given = self.published_contributions(i + 1)
                if given:
                    entry["contributions"] = given
            else:
                entry["seed"] = source
            entry["actions"] = [dict(a) for a in actions]
            if i < len(self.results):
                entry["points"] = list(self.results[i].points)
            deals.append(entry)
        out: dict = {"ruleset": self.ruleset.to_dict(), "engine_version": self.version, "seats": self.seats}
        if self.single_deal is not None:
            single = dict(self.single_deal)
            if v2:
                single["key"] = single["key"].hex()
            out["single_deal"] = single
        elif v2:
            out.update(secret=self.secret.hex(), commitment=secret_commitment(self.secret))
            if self.seed is not None:
                out["seed"] = self.seed
        else:
            out["seed"] = self.seed
        out["deals"] = deals
        return out


# replaying a stored record lives in its own room; these names stay importable from here
from .replaying import record_version, replay, replay_more, start_from_record  # noqa: E402,F401
