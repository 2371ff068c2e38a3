"""Table talk (issue 23, 7): a few fixed phrases a person may say at their table, shown to the table and in the
replay. No free text, so there is nothing to moderate; each person may mute the others on their own table (the
page keeps the choice in the browser). Limits: one phrase per seat every ``TALK_GAP_SECONDS``, at most
``TALK_PER_SEAT`` in a match."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.matches.lifecycle import SeatForbidden
from games.matches.snapshots import match_state_snapshot
from games.models import Match, Player, Seat, Talk
from sitekit.errors import ApiError

#: phrase code -> the words shown
TALK_PHRASES: dict[str, str] = {
    "hello": _("Hello!"),
    "good_luck": _("Good luck!"),
    "well_played": _("Well played!"),
    "oops": _("Oops!"),
    "one_moment": _("One moment, please."),
    "thanks": _("Thanks!"),
    "good_game": _("Good game!"),
}
TALK_GAP_SECONDS = 3
TALK_PER_SEAT = 100


class TalkRefused(ApiError):
    """A phrase not said: 400 ``bad_phrase`` (not one of ``TALK_PHRASES``), 409 ``not_running``, 429 ``too_chatty``
    (``retry_after``)."""

    STATUS = {"bad_phrase": 400, "not_running": 409, "too_chatty": 429}

    def status_for(self, code: str) -> int:
        return self.STATUS.get(code, 400)


def talk_rows(rows) -> list[dict]:
    """``Talk`` rows as the API and the pages show them: ``{"id", "seat", "phrase", "text", "deal_number", "ply",
    "said_at"}``."""
    return [{"id": t.id, "seat": t.seat, "phrase": t.phrase, "text": str(TALK_PHRASES.get(t.phrase, t.phrase)),
             "deal_number": t.deal_number, "ply": t.ply, "said_at": t.said_at} for t in rows]


def talk_recent(*, match_id: int, limit: int = 20) -> list[dict]:
    """The last ``limit`` phrases said at match ``match_id``'s table, oldest first (``talk_rows``)."""
    return talk_rows(reversed(list(Talk.objects.filter(match_id=match_id).order_by("-id")[:limit])))


def talk_of_match(*, match_id: int) -> list[dict]:
    """Every phrase said at match ``match_id``'s table, in order (``talk_rows``): the replay's."""
    return talk_rows(Talk.objects.filter(match_id=match_id).order_by("id"))


def talk_say(*, match: Match, seat_row: Seat, phrase: object) -> dict:
    """The person in ``seat_row`` (checked by the caller: ``access_seat``) says ``phrase`` (a code of
    ``TALK_PHRASES``) at ``match``'s table, at its current deal and ply. Returns the phrase as ``talk_rows`` shows
    it. Raises ``SeatForbidden`` (a bot's or house seat: people only), ``TalkRefused``."""
    if seat_row.player.kind != Player.Kind.HUMAN:
        raise SeatForbidden("only the people at a table talk")
    if not isinstance(phrase, str) or phrase not in TALK_PHRASES:
        raise TalkRefused("bad_phrase", f"{phrase!r:.40} is not a phrase of the table: say one of "
                          f"{', '.join(TALK_PHRASES)}")
    snapshot = match_state_snapshot(match=match)
    state, match = snapshot.state, snapshot.match
    snapshot.keep()
    if match.status != Match.Status.RUNNING:
        raise TalkRefused("not_running", "the match is over: the table is closed")
    said = Talk.objects.filter(match=match, seat=seat_row.index)
    last = said.order_by("-id").values_list("said_at", flat=True).first()
    if last is not None and timezone.now() - last < timedelta(seconds=TALK_GAP_SECONDS):
        raise TalkRefused("too_chatty", f"one phrase every {TALK_GAP_SECONDS} s", retry_after=TALK_GAP_SECONDS)
    if said.count() >= TALK_PER_SEAT:
        raise TalkRefused("too_chatty", f"{TALK_PER_SEAT} phrases in one match are enough")
    row = Talk.objects.create(match=match, seat=seat_row.index, phrase=phrase, deal_number=state.deal_number,
                              ply=state.deal.ply)
    return talk_rows([row])[0]
