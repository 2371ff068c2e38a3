"""People who leave a table: who is there (presence), and ending the wait for someone who left (issue 23).

**Presence.** A person's table says they are there: every ``PRESENCE_BEAT_SECONDS`` it posts a heartbeat
(``POST /api/matches/<id>/seats/<seat>/presence/``), and a seat view or a move of theirs counts too
(``presence_note``). The time last seen is kept in the shared cache, one key per seat, for an hour; nothing of it
is stored for good. A person whose own connection dropped is back as soon as their table is open again.

**Ending the wait** (``match_end_wait``). At a match with two people or more, when the seat to play is a person's
who has not been seen, and has had the turn, for the wait (``leaver_wait_seconds``: the ladder's
``leaver_wait_seconds``, else ``LEAVER_WAIT_SECONDS``, 60 s by default), any other person seated may end it:

* in a casual match a house bot (``LEAVER_STAND_IN``) plays the seat from that turn on (``Seat.stand_in``); the
  others play on, and the match's record keeps the person in the seat (its plies are the stand-in's);
* in a rated match (a ladder's, a tournament's) the seat forfeits at once: an ``abandoned`` fault
  (``eights_engine.referee.FORFEIT_AT_ONCE``), which the exported record proves like any forfeit.

The change is one row of the seat (``Seat.left_at``), written under a lock taken without waiting (409 ``busy``
when the worker holds it: try again in a second); the match is woken and the worker plays the turn. A person who
left may not move again in that match (409 ``seat_left``).
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.core.cache import cache
from django.db import DatabaseError, transaction
from django.utils import timezone

from games.matches.lifecycle import SeatForbidden, match_wake
from games.matches.snapshots import match_state_snapshot
from games.models import Match, Player, Seat
from sitekit.errors import ApiError

#: how often (s) a person's open table posts its heartbeat; a person unseen for twice as long shows as away
PRESENCE_BEAT_SECONDS = 5
_KEEP_SECONDS = 3600


class EndWaitRefused(ApiError):
    """The wait may not be ended (yet): 409 ``not_away`` (the person is there, or the wait is not over: ``detail``
    says how long is left, ``retry_after``), ``busy`` (try again in 1 s), ``not_running``; 403 ``permission_denied``
    (no other person's seat of yours here)."""

    status = 409


class SeatLeft(ApiError):
    """A move from a seat whose wait the others ended: 409 ``seat_left``."""

    def __init__(self, detail: str) -> None:
        super().__init__("seat_left", detail, 409)


def _key(match_id: int, seat: int) -> str:
    return f"presence:{match_id}:{seat}"


def presence_note(*, match_id: int, seat: int) -> None:
    """The person in ``seat`` of ``match_id`` is at their table now (a heartbeat, a seat view, a move). A cache
    failure is no request's failure (the cache falls back to the process's own: ``config.cache``)."""
    try:
        cache.set(_key(match_id, seat), time.time(), _KEEP_SECONDS)
    except Exception:  # noqa: BLE001 - presence is a hint: never the request's failure
        pass


def presence_seen(*, match_id: int, seats: list[int]) -> dict[int, float | None]:
    """When each of ``seats`` was last seen at the table (Unix time, s), None: not in the last hour."""
    try:
        found = cache.get_many([_key(match_id, s) for s in seats])
    except Exception:  # noqa: BLE001
        found = {}
    return {s: found.get(_key(match_id, s)) for s in seats}


def leaver_wait_seconds(match: Match) -> int:
    """How long (s) a person may be away on their turn before the others may end the wait: the match's ladder's
    ``leaver_wait_seconds`` when it has one, else ``LEAVER_WAIT_SECONDS``."""
    try:
        return match.ladder_match.ladder.leaver_wait_seconds  # the ladder app's relation (games does not import it)
    except (AttributeError, ObjectDoesNotExist):
        return settings.LEAVER_WAIT_SECONDS


def match_is_rated(match: Match) -> bool:
    """Whether ``match`` counts for a ladder or a tournament (a leaver forfeits it) rather than casual (a house bot
    stands in). The other apps' relations, read without importing them."""
    for relation in ("ladder_match", "tournament_match", "duplicate_entry"):
        if hasattr(Match, relation) and Match.objects.filter(pk=match.pk, **{f"{relation}__isnull": False}).exists():
            return True
    return False


def table_presence(*, match: Match, seats: list[Seat], viewer: int) -> dict:
    """The people at ``match``'s table as ``viewer`` (a seat index) sees them: for each person's seat whether they
    are there (seen within two heartbeats), seconds since seen (None: not in the last hour), whether they left
    (``left``) and who stands in; whose turn it is (``to_play``), and ``end_wait``: ``{"seat", "after_s",
    "rated"}`` when the seat to play is another person's who may be waited for no longer in ``after_s`` seconds
    (0: now), else None. Reads the match's state through the process's cached snapshot."""
    snapshot = match_state_snapshot(match=match)
    state, match = snapshot.state, snapshot.match
    running = match.status == Match.Status.RUNNING and not state.is_over
    to_play = state.to_play if running else None
    snapshot.keep()
    people = [s for s in seats if s.player.kind == Player.Kind.HUMAN]
    seen = presence_seen(match_id=match.pk, seats=[s.index for s in people])
    now = time.time()
    rows = []
    for s in people:
        since = None if seen[s.index] is None else max(0, int(now - seen[s.index]))
        rows.append({"index": s.index, "name": s.player.name, "present": since is not None and
                     since <= 2 * PRESENCE_BEAT_SECONDS, "seen_seconds_ago": since,
                     "left": s.left_at is not None, "stand_in": s.stand_in or None})
    end_wait = None
    leaver = next((s for s in people if s.index == to_play), None)
    if leaver is not None and leaver.index != viewer and leaver.left_at is None and len(people) >= 2:
        end_wait = {"seat": leaver.index, "after_s": _wait_left(match, seen[leaver.index]),
                    "rated": match_is_rated(match)}
    return {"match_id": match.pk, "to_play": to_play, "people": rows, "end_wait": end_wait,
            "beat_seconds": PRESENCE_BEAT_SECONDS}


def _wait_left(match: Match, seen: float | None) -> int:
    """Seconds until the seat to play (last seen at ``seen``, Unix time) has been away on its turn for the wait."""
    turn_began = match.last_progress_at.timestamp()
    since = max(turn_began, seen or 0.0)
    return max(0, int(since + leaver_wait_seconds(match) - time.time() + 0.999))


def match_end_wait(*, match_id: int, seat: int, leaver: int, user, guest: Player | None = None) -> dict:
    """The person in ``seat`` (``user``'s, or ``guest``'s) ends the wait for ``leaver``, the seat to play, a person
    away for the wait (module docstring): a house stand-in in a casual match, a forfeit in a rated one. Returns
    ``{"seat": leaver, "outcome": "stand_in" | "forfeit"}``. Raises ``MatchNotFound`` (404), ``SeatForbidden`` (403:
    not your seat, or ``leaver`` is yours or not a person's), ``EndWaitRefused`` 409 (``not_running``,
    ``not_away`` with the seconds left, ``busy``)."""
    from games.matches.lifecycle import access_seat

    match, _mine, seats = access_seat(match_id=match_id, seat=seat, user=user, guest=guest)
    row = next((s for s in seats if s.index == leaver), None)
    if row is None or row.player.kind != Player.Kind.HUMAN or row.index == seat:
        raise SeatForbidden(f"seat {leaver!r:.10} is not another person's seat at this table: you may end the wait "
                            "only for another person")
    presence_note(match_id=match_id, seat=seat)
    view = table_presence(match=match, seats=seats, viewer=seat)
    if view["to_play"] is None:
        raise EndWaitRefused("not_running", "the match is over: there is no one to wait for")
    if row.left_at is not None:
        raise EndWaitRefused("not_away", f"the wait for seat {leaver} was ended already")
    if view["to_play"] != leaver:
        raise EndWaitRefused("not_away", f"seat {leaver} is not to play (seat {view['to_play']} is): only the seat "
                             "whose turn it is can be waited for")
    left = view["end_wait"]["after_s"]
    if left > 0:
        raise EndWaitRefused("not_away", f"{row.player.name} may still come back: end the wait in {left} s (after "
                             f"{leaver_wait_seconds(match)} s away on their turn)", retry_after=left)
    rated = view["end_wait"]["rated"]
    with transaction.atomic():
        try:
            locked = Seat.objects.select_for_update(nowait=True).filter(pk=row.pk, left_at__isnull=True).first()
            Match.objects.select_for_update(nowait=True).filter(pk=match_id).values_list("pk").first()
        except DatabaseError:
            raise EndWaitRefused("busy", "the table is storing a move right now; try again in 1 s",
                                 retry_after=1) from None
        if locked is None:
            raise EndWaitRefused("not_away", f"the wait for seat {leaver} was ended already")
        Seat.objects.filter(pk=row.pk).update(left_at=timezone.now(),
                                              stand_in="" if rated else settings.LEAVER_STAND_IN)
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).update(awaiting_human=False)
        match_wake(match_id=match_id)
    return {"seat": leaver, "outcome": "forfeit" if rated else "stand_in"}
