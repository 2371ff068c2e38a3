"""Reads of matches, deals and moves, gathered for callers (no writes here): consistent snapshots of a match
(``games.matches.snapshots``), its seats and the seat view (``games.matches.seats``), what is public and the match
record (``games.matches.exports``), and what the pages show (``games.match_pages``)."""

from games.match_pages import (card_faces, match_deal_table, match_list, match_page, match_replay,
                               match_starting_hands, running_tables)
from games.matches.exports import (RECORD_FORMAT, MatchNotFinished, deal_plays, match_export, match_exports,
                                   match_fairness, match_is_public, matches_for_export, public_matches)
from games.matches.seats import (match_seat_kinds, match_seats_person, match_waits, person_seat, seat_etag,
                                 seat_view, seat_waits_for)
from games.matches.snapshots import (MatchSnapshot, StateSnapshot, match_record, match_snapshot, match_state,
                                     match_state_snapshot, record_head, ruleset_of)

__all__ = [
    "MatchNotFinished", "MatchSnapshot", "RECORD_FORMAT", "StateSnapshot", "card_faces", "deal_plays",
    "match_deal_table", "match_export", "match_exports", "match_fairness", "match_is_public", "match_list",
    "match_page", "match_record", "match_replay", "match_seat_kinds", "match_seats_person", "match_snapshot",
    "match_starting_hands", "match_state", "match_state_snapshot", "match_waits", "matches_for_export",
    "person_seat", "public_matches", "record_head", "ruleset_of", "running_tables", "seat_etag", "seat_view",
    "seat_waits_for",
]
