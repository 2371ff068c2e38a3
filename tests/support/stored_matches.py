"""A database full of finished matches, quickly: house bots play whole matches in-process through the referee, and
the rows are written in bulk (a few inserts per batch) instead of one transaction per ply as ``games.services``
stores a match. For tests and benchmarks of what reads many matches (``manage.py verify_matches``).

The rows are the ones the worker writes (engine version 2: a match dealt from a chosen seed, so its secret is
``keys.secret_from_seed(seed)``): the same seats, deals (key, code, dealer, commitment, result), moves (0-based ply within the deal, the action as the referee gives it) and the match's totals
and places; a house seat's choices come from the same per-ply random source (``strategy_rng``) as the worker's
house agent, so a match stored here equals the one ``match_advance`` plays from the same seed
(tests/tournaments/test_verify_matches.py pins that).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from eights_engine import ENGINE_VERSION, MatchState, Ruleset, keys, referee
from eights_engine.fairness import SALT_BYTES, deal_commitment
from eights_engine.strategies import choose_turn, strategy_rng
from games.models import Deal, Match, Move, Player, Seat


def play(ruleset: Ruleset, players: list[Player], seed: int, version: str = ENGINE_VERSION) -> MatchState:
    """The match house bots ``players`` (in seat order) play from ``seed``, as the worker's house agent plays it."""
    state = MatchState.start(ruleset, len(players), seed, version=version)
    while not state.is_over:
        strategy, deal_seed = players[state.to_play].strategy, state.deal.seed
        referee.play_turn(state, lambda turn: choose_turn(strategy, turn, strategy_rng(deal_seed, turn.ply, turn.seat)))
    return state


def store_house_matches(*, players: list[Player], ruleset: Ruleset, preset: str = "", seeds, batch: int = 100,
                        after=None, version: str = ENGINE_VERSION) -> list[int]:
    """Play and store one finished match per seed of ``seeds`` between the house bots ``players`` (seat order, the
    same in every match); returns the match ids. ``after(match)``: called for each stored match (e.g. to enter it
    in a ladder). Writes ``batch`` matches per transaction. ``version="1"``: matches as engine version 1 stored them
    (seeds, salts), as a database from before version 2 holds them."""
    ids: list[int] = []
    seeds = list(seeds)
    for start in range(0, len(seeds), batch):
        with transaction.atomic():
            ids += _store_batch(players, ruleset, preset, seeds[start:start + batch], after, version)
    return ids


def _store_batch(players, ruleset, preset, seeds, after, version) -> list[int]:
    now = timezone.now()
    states = [play(ruleset, players, seed, version) for seed in seeds]
    matches = Match.objects.bulk_create(
        Match(ruleset=ruleset.to_dict(), preset=preset, seat_count=len(players), seed=seed, engine_version=version,
              secret=state.secret.hex() if state.secret else "", seating=[p.pk for p in players] if state.secret else [],
              commitment=keys.secret_commitment(state.secret, [p.pk for p in players]) if state.secret else "",
              fault_limit=settings.BOT_MAX_CONSECUTIVE_FAULTS,
              status=Match.Status.FINISHED, deal_number=state.deal_number,
              ply_count=sum(len(ids) for ids in state.deal_ids), totals=list(state.totals), finished_at=now)
        for seed, state in zip(seeds, states))
    Seat.objects.bulk_create(
        Seat(match=match, index=i, player=player, total=state.totals[i], place=state.standings[i])
        for match, state in zip(matches, states) for i, player in enumerate(players))
    deal_rows, plays = [], []
    for match, state in zip(matches, states):
        replayed = MatchState.start(ruleset, len(players), match.seed, version=version)  # each deal's dealer, seats
        for number, (result, actions) in enumerate(zip(state.results, state.deal_actions), start=1):
            deal = replayed.deal
            if version == "1":
                salt = secrets.token_hex(SALT_BYTES)
                dealt = dict(seed=deal.seed, salt=salt, commitment=deal_commitment(deal.seed, salt))
            else:
                dealt = dict(key=deal.seed.hex(), commitment=keys.deal_key_commitment(deal.seed))
            deal_rows.append(Deal(match=match, number=number, code=deal.code, dealer=deal.dealer, engine_version=version,
                                  **dealt,
                                  outcome=result.outcome, winner=result.winner, hand_values=result.hand_values,
                                  points=result.points, plies=result.plies, finished_at=now))
            seats_to_play = []
            for action in actions:
                seats_to_play.append(replayed.to_play)
                replayed.apply(action)
            plays.append((actions, seats_to_play))
    deal_rows = Deal.objects.bulk_create(deal_rows)
    Move.objects.bulk_create(
        Move(deal=row, ply=ply, seat=seat, action=action)
        for row, (actions, seats) in zip(deal_rows, plays) for ply, (action, seat) in enumerate(zip(actions, seats)))
    if after is not None:
        for match in matches:
            after(match)
    return [m.pk for m in matches]
