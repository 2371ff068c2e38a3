"""Reads of a match's seats: who sits where, whether a seat waits for another match, and the seat view a player
reads (``GET /api/matches/<id>/seats/<seat>/``) with its ETag."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from eights_engine import referee
from games.matches.snapshots import StateSnapshot
from games.models import Match, Player, Seat


def seat_etag(match: Match, seat: int, waits_for: int | None, seats: list[Seat]) -> str:
    """The seat view's ETag: ``W/"<id>.<seat>.<ply>.<status>.<waits_for or None>.<digest>"``, the digest over what
    else the view shows: the seats' players (ids, names, users, guest flags: a guest who signs up takes the seat
    over, ``games.people.guests.guest_adopt``; a house stand-in for a person who left, ``games.matches.leavers``) and the move clock (``move_seconds`` and ``last_progress_at``, the
    deadline's parts). The view changes only when one of these does (places and forfeits come with the status)."""
    players = tuple((s.player_id, s.player.name, s.player.user_id, s.player.is_guest, s.stand_in) for s in seats)
    moved = match.last_progress_at.timestamp() if match.last_progress_at else None
    digest = hashlib.blake2b(repr((players, match.move_seconds, moved)).encode(), digest_size=6).hexdigest()
    return f'W/"{match.pk}.{seat}.{match.ply_count}.{match.status}.{waits_for}.{digest}"'


def match_waits(*, match: Match) -> bool:
    """Whether ``match`` may not be played yet: its ``Match.after`` match is still running (one query; False at
    once when it has none). A match never goes back to running, so once False it stays False."""
    return match.after_id is not None and Match.objects.filter(pk=match.after_id,
                                                               status=Match.Status.RUNNING).exists()


def seat_waits_for(match: Match) -> int | None:
    """The match a running ``match`` waits for (``match_waits``: a duplicate set's earlier rotation), else None: the
    ``waits_for`` of the seat view and the watch page."""
    return match.after_id if match.status == Match.Status.RUNNING and match_waits(match=match) else None


def seat_view(*, snapshot: StateSnapshot, seat: int, seats: list[Seat]) -> dict:
    """The seat view (``GET /api/matches/<id>/seats/<seat>/``, docs/API.md) of ``seat`` in ``snapshot``: status, ply,
    whose turn, the move deadline, the seats, the deal's commitment, the legal actions and the seat's engine view
    (on its turn exactly the referee's ``Turn`` a bot in the seat would be given). ``seats``: the match's seats by
    index, players and users loaded, read with or before the snapshot (read again when the match ended since:
    places and forfeits are written with the end). While the match waits for its ``after`` match, no move is
    taken and the hand is hidden (it is the opponent's hand in the running match). Reads the snapshot's state and
    changes nothing: the caller keeps it (``StateSnapshot.keep``) afterwards."""
    match, state = snapshot.match, snapshot.state
    running = match.status == Match.Status.RUNNING and not state.is_over
    if not running and seats and seats[0].match.status == Match.Status.RUNNING:
        seats = list(match.seats.select_related("player__user").order_by("index"))  # it ended since they were read
    your_turn = running and state.to_play == seat
    deadline = match.last_progress_at + timedelta(seconds=match.move_clock_seconds) if your_turn else None
    seat_rows = [{"index": s.index, "name": s.player.name, "kind": s.player.kind,
                  "place": None if running else s.place,  # places and forfeits are written with the match's end
                  "owner": s.player.user.username if s.player.kind == "bot" and s.player.user else None,
                  "forfeited": s.forfeited and not running, "guest": s.player.is_guest,
                  "stand_in": s.stand_in or None} for s in seats]
    commitment = snapshot.commitment(state.deal_number)
    turn = referee.turn_for(state, match_id=match.pk, deadline_ms=match.move_clock_seconds * 1000,
                            commitment=commitment) if your_turn else None
    view = turn.view if turn else state.view(seat)
    waits_for = seat_waits_for(match) if running else None
    if waits_for is not None:
        your_turn, turn, deadline = False, None, None
        view = {**state.view(seat), "hand": []}
    abort_reason = "" if match.status != Match.Status.ABORTED else (  # never changes once written
        Match.objects.filter(pk=match.pk).values_list("abort_reason", flat=True).first() or "")
    return {"match_id": match.pk, "seat": seat, "status": match.status, "ply": match.ply_count,
            "waits_for": waits_for, "abort_reason": abort_reason, "your_turn": your_turn, "move_deadline": deadline,
            "seats": seat_rows, "deals_finished": len(state.results), "deal_number": state.deal_number,
            "commitment": commitment, "legal_actions": list(turn.legal_actions) if turn else [], "view": view}


def match_seats_person(*, match_id: int) -> bool:
    """Whether a person (a player of kind human) sits in match ``match_id``: someone may be waiting for its bots."""
    return Seat.objects.filter(match_id=match_id, player__kind=Player.Kind.HUMAN).exists()


def match_seat_kinds(*, match_id: int) -> set[str]:
    """The kinds of the players seated in match ``match_id`` (``Player.Kind`` values: house, bot, human)."""
    return set(Seat.objects.filter(match_id=match_id).values_list("player__kind", flat=True))


def person_seat(*, match: Match, user, guest: Player | None = None) -> Seat | None:
    """The seat ``user`` sits in as a person (kind human), or the seat of ``guest`` (a session's guest player), or
    None. A bot's owner does not sit in the bot's seat: its user is the owner, but only the bot plays it
    (``Player.is_played_by``)."""
    if (user is None or not user.is_authenticated) and guest is not None and guest.is_guest:
        return match.seats.filter(player=guest).select_related("player").first()
    if user is None or not user.is_authenticated:
        return None
    return match.seats.filter(player__kind=Player.Kind.HUMAN, player__user=user).select_related("player").first()
