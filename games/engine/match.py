"""A match: deals until a seat's total reaches the target, and ``replay`` of a stored match record.

Deal k (1-based) of a match with seed ``S`` is dealt from ``derive_seed(S, k)`` (see ``rng``). The first
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

from .deal import ACTIONS, ENGINE_VERSION, Deal, DealResult, check_ruleset_seats
from .errors import IllegalAction
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


class MatchState:
    """Deals until the target. Read ``deal`` (the current one), ``totals``, ``is_over``, ``standings``."""

    def __init__(self, ruleset: Ruleset, seats: int, seed: int, single_deal: dict | None = None) -> None:
        check_ruleset_seats(ruleset, seats)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise ValueError(f"a match seed is an integer from 0 to 2**64-1, not {seed!r:.40}")
        self.ruleset = ruleset
        self.seats = seats
        self.seed = seed
        self.target = ruleset.target_for(seats)
        self.totals = [0] * seats
        self.results: list[DealResult] = []
        self.deal_ids: list[list[int]] = []  # action ids per deal (see deal.ACTIONS)
        self.deal_number = 0
        self.is_over = False
        self.deal: Deal = None  # type: ignore[assignment]
        self.single_deal = None
        if single_deal is not None:  # replaying one deal from its code: that deal only, then the match ends
            if not (isinstance(single_deal, dict) and isinstance(single_deal.get("seed"), int)
                    and isinstance(single_deal.get("dealer"), int) and 0 <= single_deal["dealer"] < seats):
                raise ValueError("single_deal is {'seed': int, 'dealer': seat}")
            self.single_deal = {"seed": single_deal["seed"], "dealer": single_deal["dealer"]}
        self.hollywood = HollywoodScore(ruleset, self.target) if ruleset.scoring == "hollywood" else None
        self.final_hands: list[list[list[str]]] = []  # per finished deal: each seat's cards when it ended
        self.points = [0] * seats  # deal points summed (equals totals except under hollywood)
        self._start_deal(dealer=seats - 1 if single_deal is None else single_deal["dealer"], leader=None)

    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: int, single_deal: dict | None = None) -> "MatchState":
        """Start a match of ``seats`` players from a match seed; raises ``ValueError`` on bad arguments.

        ``single_deal={"seed": s, "dealer": d}`` plays exactly that one deal (the same cards as any deal with that
        code) and ends the match with it (duplicate play: same cards, compare results).
        """
        return cls(ruleset, seats, seed, single_deal)

    def deal_seed(self, number: int) -> int:
        """The seed of deal ``number`` (1-based) of this match."""
        if self.single_deal is not None:
            return self.single_deal["seed"]
        return derive_seed(self.seed, number)

    def _start_deal(self, dealer: int, leader: int | None) -> None:
        self.deal_number += 1
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
        deal.apply_id(action_id)
        self.deal_ids[-1].append(action_id)
        if deal.result is not None:
            self._finish_deal()

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
        lower_wins = self.ruleset.scoring == "penalty"
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
        """The replayable record: ruleset, engine version, seats, seed and, per deal, seed, dealer, actions, result."""
        deals = []
        for i, actions in enumerate(self.deal_actions):
            entry = {"number": i + 1, "seed": self.deal_seed(i + 1), "actions": [dict(a) for a in actions]}
            if i < len(self.results):
                entry["points"] = list(self.results[i].points)
            deals.append(entry)
        return {"ruleset": self.ruleset.to_dict(), "engine_version": ENGINE_VERSION, "seats": self.seats,
                "seed": self.seed, "deals": deals, **({"single_deal": dict(self.single_deal)} if self.single_deal else {})}


class HollywoodScore:
    """Hollywood scoring (system A1, 2 seats): ``hollywood_games`` games are kept at once.

    A seat's first deal won is written in the first open game only, its second in the first two, its third and
    later in all of them (the points it collected in that deal). A game ends when a seat's score in it reaches
    the target: that seat wins the game (``target_reached_wins``, the usual convention) or loses it (the source's
    wording, ``target_reached_wins=false``). A new game opens in its place until ``hollywood_total_games`` games
    have been opened; the match ends when all of them are finished.
    """

    def __init__(self, ruleset: Ruleset, target: int) -> None:
        self.target = target
        self.reached_wins = ruleset.target_reached_wins
        self.total_games = ruleset.hollywood_total_games
        self.open: list[dict] = []
        self.finished: list[dict] = []
        self.deals_won = [0, 0]
        self.games_won = [0, 0]
        self.opened = 0
        for _ in range(ruleset.hollywood_games):
            self._open()

    def _open(self) -> None:
        self.opened += 1
        self.open.append({"game": self.opened, "scores": [0, 0]})

    @property
    def is_over(self) -> bool:
        return len(self.finished) >= self.total_games

    def add_deal(self, points: list[int]) -> None:
        """Write a deal's points: the seat that scored (if any) writes into its first k open games."""
        for seat in (0, 1):
            if points[seat] <= 0:
                continue
            self.deals_won[seat] += 1
            for game in self.open[: self.deals_won[seat]]:
                game["scores"][seat] += points[seat]
        for game in list(self.open):
            scores = game["scores"]
            if max(scores) >= self.target:
                reacher = 0 if scores[0] >= scores[1] else 1
                winner = reacher if self.reached_wins else 1 - reacher
                self.games_won[winner] += 1
                self.finished.append({**game, "winner": winner})
                self.open.remove(game)
                if self.opened < self.total_games:
                    self._open()

    def to_dict(self) -> dict:
        return {"open": [dict(g, scores=list(g["scores"])) for g in self.open],
                "finished": [dict(g, scores=list(g["scores"])) for g in self.finished],
                "games_won": list(self.games_won), "deals_won": list(self.deals_won)}


def start_from_record(record: object, *, required: tuple = ("ruleset", "seats", "seed", "deals")) -> MatchState:
    """The match a record (``MatchState.record`` or an exported match record) starts, before its first ply, after
    checking the record's frame: a dict holding the ``required`` keys, this engine's version (when it names one) and
    ``deals`` as a list of ``{"actions": [...], ...}`` objects. ``ReplayMismatch`` says what is wrong."""
    if not isinstance(record, dict):
        raise ReplayMismatch(f"a match record is a JSON object, not {type(record).__name__}")
    missing = [k for k in required if k not in record]
    if missing:
        raise ReplayMismatch(f"the record has no {missing[0]!r} (see docs/match-record.schema.json)")
    version = record.get("engine_version", ENGINE_VERSION)
    if str(version) != ENGINE_VERSION:
        raise ReplayMismatch(f"match: engine version expected {ENGINE_VERSION}, found {version!r}: "
                             "replay it with that version of the engine")
    deals = record["deals"]
    if not isinstance(deals, list) or not all(isinstance(d, dict) and isinstance(d.get("actions"), list) for d in deals):
        raise ReplayMismatch("'deals' must be a list of {'number', 'seed', 'actions': [...], ...} objects")
    try:
        return MatchState.start(Ruleset.from_dict(record["ruleset"]), record["seats"], record["seed"],
                                record.get("single_deal"))
    except (ValueError, TypeError) as exc:
        raise ReplayMismatch(f"the record cannot start a match: {exc}") from None


def replay(record: dict) -> MatchState:
    """Re-run a stored match record (as ``MatchState.record`` gives) and verify it.

    Raises ``ReplayMismatch`` (a ``ValueError``) when the record is malformed or when the engine version, a deal's
    number or seed, an action's legality or a deal's points differ from what the engine gives.
    """
    return replay_more(start_from_record(record), record["deals"])


def replay_more(state: MatchState, deals: list[dict]) -> MatchState:
    """Play the stored plies that follow ``state``'s position onto it, verifying them as ``replay`` does, and return
    it (changed in place). ``deals`` is a record's ``deals`` from the current one on: the first entry is deal
    ``state.deal_number`` and holds only the actions after the ``len(state.deal_ids[-1])`` already applied; the next
    ones are the deals after it, whole. ``replay`` is this from the match's start; a cache of states brings a
    stored state up to date with it (``games.state_cache``).

    Raises ``ReplayMismatch`` as ``replay`` does (the state is then half-way: throw it away).
    """
    first = state.deal_number
    for i, deal in enumerate(deals):
        number = first + i
        if state.is_over and state.deal_number != number:
            raise ReplayMismatch(f"the match ended before deal {number}")
        if deal.get("number", number) != number:
            raise ReplayMismatch(f"deal {number} is numbered {deal.get('number')!r}")
        if state.deal_number != number or ("seed" in deal and deal["seed"] != state.deal.seed):
            raise ReplayMismatch(f"deal {number}: seed {deal.get('seed')!r:.30} differs from {state.deal.seed}")
        done = len(state.deal_ids[-1])  # plies of this deal applied before (only the first entry has any)
        for ply, action in enumerate(deal["actions"], start=done):
            if state.deal_number != number or state.is_over:
                raise ReplayMismatch(f"deal {number} ended before its ply {ply}")
            try:
                state.apply(action)
            except IllegalAction as exc:
                raise ReplayMismatch(f"deal {number} ply {ply}: {exc}") from exc
        if "points" in deal and (len(state.results) < number or state.results[number - 1].points != deal["points"]):
            raise ReplayMismatch(f"deal {number}: points differ from the record")
    return state
