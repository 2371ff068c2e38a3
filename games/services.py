"""Writes for matches and players, gathered for callers: the match lifecycle (``games.matches.lifecycle``: create,
wake, the one abort, the watchdog's notes and queries, who plays a seat), plies (``games.matches.plies``: the match
loop, a person's move, the end of a match) and players (``games.people.players``: house bots', people's, and the
matches people start).

The match loop rebuilds the engine state from one consistent read of the stored log, plays each seat's turn through
the engine's referee, and stores plies by a compare-and-set on ``Match.ply_count``, so nothing stores a ply twice
(``games.matches.plies`` says how)."""

from games.matches.lifecycle import (MatchNotFound, SeatForbidden, StalePly, access_seat, match_abort, match_create,
                                     match_note_failure, match_note_stall, match_note_wake_lost, match_wake,
                                     matches_clock_expired, matches_runnable, matches_stalled, matches_wake_pending,
                                     new_match_secret, takes_contributions)
from games.matches.plies import MoveStored, _fault_policy, _finish, match_advance, match_submit_action
from games.people.players import casual_match_create, deal_replay_create, player_for_user, player_house_create
from games.matches.seats import match_waits

__all__ = [
    "MatchNotFound", "MoveStored", "SeatForbidden", "StalePly", "access_seat", "casual_match_create",
    "deal_replay_create", "match_abort", "match_advance", "match_create", "match_note_failure", "match_note_stall",
    "match_note_wake_lost", "match_submit_action", "match_wake", "match_waits", "matches_clock_expired",
    "matches_runnable", "matches_stalled", "matches_wake_pending", "new_match_secret", "player_for_user",
    "player_house_create", "takes_contributions", "_fault_policy", "_finish",
]
