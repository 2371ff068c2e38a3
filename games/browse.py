"""Browsing matches: the filters of the match list (``GET /matches/`` and ``GET /api/matches/``) and its keyset pages.

A query string is checked once (``check_match_filters``) into a ``MatchFilters``; ``match_browse`` turns that into
a queryset; ``MatchCursorPagination`` (DRF's ``CursorPagination``) cuts it into pages by the match id, the page and the
API alike. Keyset pages stay fast at any depth (``WHERE id < cursor ORDER BY id DESC LIMIT n`` walks an index; an
offset would read and drop every row before the page) and stable while matches are added: a new match has a higher
id, so it never shifts a page that is being read.

Order: "newest" (highest id first, the default) or "oldest". A match's id is given when it is created, so id order
is creation order; ``created_at`` (what ``from``/``to`` filter) is the same instant's clock.

Filters other apps own (a match's ladder, its tournament) are registered in ``games.hooks.MATCH_GROUPS`` from
their ``AppConfig.ready()``, so ``games`` never imports them. Each takes the query parameter of its name.

Hidden information: rows are whole ``Match`` rows, but what a list shows of them is only public facts (status,
seats, totals, ply and deal counts); nothing here reads seeds or deal codes.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from django.db.models import Prefetch, Q, QuerySet
from rest_framework import status as http_status
from rest_framework.exceptions import APIException, NotFound
from rest_framework.pagination import CursorPagination

from eights_engine import PRESETS
from games.hooks import MATCH_GROUPS
from games.models import Match, Player, Seat
from sitekit.ids import parse_id

ORDERS = ("newest", "oldest")
STATUSES = tuple(s.value for s in Match.Status)
#: a query parameter that names the session's own player (a person's, or this browser's guest's)
ME = "me"


class BadFilter(APIException):
    """A filter of the match list that names nothing or is malformed: 400 ``invalid_filter``, the detail saying
    which parameter, what was wrong and what would be right."""

    status_code = http_status.HTTP_400_BAD_REQUEST
    default_code = "invalid_filter"

    def __init__(self, param: str, message: str) -> None:
        self.param = param
        super().__init__(f"{param}: {message}")


@dataclass(frozen=True)
class MatchFilters:
    """A checked query of the match list. ``player`` is a Player or None; ``groups`` the registered filters'
    ``Q`` objects with their query values (``{"ladder": ("demo", Q)}``); ``date_from``/``date_to`` UTC dates,
    both ends included; ``me`` whether ``player`` came from ``player=me``."""

    status: str | None = None
    preset: str | None = None
    player: Player | None = None
    me: bool = False
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    order: str = "newest"
    groups: dict[str, tuple[str, Q]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """No filter at all (the order aside)."""
        return not (self.status or self.preset or self.player or self.me or self.date_from or self.date_to
                    or self.groups)


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _date(param: str, text: str) -> dt.date:
    example = dt.date.today().isoformat()
    if not _DATE.fullmatch(text):
        raise BadFilter(param, f"{text[:40]!r} is not a date: give it as YYYY-MM-DD, e.g. {example}")
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise BadFilter(param, f"{text!r} is not a date ({exc}): give it as YYYY-MM-DD, e.g. {example}") from None


def _player(text: str) -> Player:
    """The player ``text`` names: a player id (digits) or a player's exact name."""
    if (player_id := parse_id(text)) is not None:
        player = Player.objects.filter(pk=player_id).first()
        if player is None:
            raise BadFilter("player", f"there is no player with id {text}: give a player's id or exact name (a "
                                      "player's page /players/<name>/ links to its matches)")
        return player
    player = Player.objects.filter(name=text).first() if len(text) <= 60 else None
    if player is None:
        raise BadFilter("player", f"there is no player named {text[:60]!r}: give a player's id or exact name "
                                  "(names are case-sensitive; a player's page /players/<name>/ links to its matches)")
    return player


def check_match_filters(params, *, me: Player | None = None, signed_in: bool = False) -> MatchFilters:
    """The filters of a match list query (a QueryDict or a dict of strings): ``status`` (running, finished,
    aborted), ``preset`` (a preset name), ``player`` (a player id or exact name, or ``me``: the caller's own player,
    given as ``me``; ``signed_in`` says whether the caller is a person or a guest at all), ``from`` and ``to``
    (YYYY-MM-DD, UTC, both included), ``order`` (newest, oldest) and every registered group (``MATCH_GROUPS``).
    Empty values count as absent. Raises ``BadFilter`` naming the first bad parameter and what it takes."""
    def get(name: str) -> str:
        value = params.get(name) or ""
        return value.strip() if isinstance(value, str) else ""

    status = get("status") or None
    if status is not None and status not in STATUSES:
        raise BadFilter("status", f"{status[:40]!r} is not a match status: use one of {', '.join(STATUSES)}")
    preset = get("preset") or None
    if preset is not None and preset not in PRESETS:
        raise BadFilter("preset", f"there is no preset {preset[:40]!r}: use one of {', '.join(sorted(PRESETS))}")
    order = get("order") or "newest"
    if order not in ORDERS:
        raise BadFilter("order", f"{order[:40]!r} is not an order: use newest (the default) or oldest")
    player, is_me = None, False
    text = get("player")
    if text == ME:
        if not signed_in:
            raise BadFilter("player", "'me' is the player of whoever asks, and you are neither logged in nor a guest "
                                      "of this browser: log in, or give a player's id or name")
        player, is_me = me, True
    elif text:
        player = _player(text)
    date_from = _date("from", get("from")) if get("from") else None
    date_to = _date("to", get("to")) if get("to") else None
    if date_from and date_to and date_from > date_to:
        raise BadFilter("to", f"{date_to} is before from ({date_from}): give a to on or after from")
    groups = {}
    for name, group in MATCH_GROUPS.items():
        value = get(name)
        if value:
            groups[name] = (value, group.lookup(value))
    return MatchFilters(status=status, preset=preset, player=player, me=is_me, date_from=date_from, date_to=date_to,
                        order=order, groups=groups)


def match_browse(*, filters: MatchFilters) -> QuerySet[Match]:
    """The matches ``filters`` select, in no order yet (``MatchCursorPagination`` orders and cuts them), with their
    seats and players loaded (one query per page) and, when the ladder app is installed, their ladder.
    ``player=me`` for a caller without a player of their own yet selects nothing."""
    qs = Match.objects.all()
    if hasattr(Match, "ladder_match"):  # the ladder app (tournaments) adds the relation; games does not import it
        qs = qs.select_related("ladder_match__ladder")
    qs = qs.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("index")))
    if filters.status:
        qs = qs.filter(status=filters.status)
    if filters.preset:
        qs = qs.filter(preset=filters.preset)
    if filters.me and filters.player is None:
        return qs.none()
    if filters.player is not None:  # a semi-join, not a join: the keyset's id < cursor then bounds both sides
        qs = qs.filter(id__in=Seat.objects.filter(player=filters.player).values("match_id"))
    if filters.date_from:
        qs = qs.filter(created_at__gte=_midnight(filters.date_from))
    if filters.date_to and filters.date_to < dt.date.max:  # to=9999-12-31 bounds nothing (and has no next day)
        qs = qs.filter(created_at__lt=_midnight(filters.date_to + dt.timedelta(days=1)))
    for _value, q in filters.groups.values():
        qs = qs.filter(q)
    return qs


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=dt.timezone.utc)


class MatchCursorPagination(CursorPagination):
    """Keyset pages of the match list by match id: ``order=newest`` (default) or ``oldest``; ``page_size`` 1 to 100
    (25 by default); ``cursor`` from a page's ``next``/``previous`` link. A cursor that is not one of ours is a 400
    ``invalid_filter`` (DRF answers 404), saying to follow the links."""

    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 100
    ordering = "-id"
    page_size_query_description = "matches per page, 1 to 100 (default 25)"
    cursor_query_description = "the position in the list: take it from a page's next or previous link"

    def get_ordering(self, request, queryset, view):
        return ("id",) if request.query_params.get("order") == "oldest" else ("-id",)

    def decode_cursor(self, request):
        """DRF's cursor, its position checked to be a match id (ASCII digits, at most 18): DRF passes any text on
        to the id filter, which fails with a 500."""
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            cursor = None
        else:
            if cursor is None or cursor.position is None or parse_id(cursor.position) is not None:
                return cursor
        raise BadFilter("cursor", "this is not a cursor of the match list: follow a page's next or previous "
                                  "link (or leave cursor out for the first page)")


def session_player(request) -> tuple[Player | None, bool]:
    """``(player, signed_in)`` of ``request`` (Django's or DRF's) for ``player=me``: a logged-in person's own player
    (None before their first match), or this browser's guest player; ``signed_in`` False for anyone else."""
    from games.people.guests import session_guest

    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return Player.objects.filter(user=user, kind=Player.Kind.HUMAN).first(), True
    guest = session_guest(request)
    return guest, guest is not None


def list_seats(match: Match) -> list[Seat]:
    """``match``'s seats (prefetched by ``match_browse``) as a list shows them: while the match runs, each seat's
    total is the match's running total and its place and forfeit are left out (they are written at the end)."""
    seats = list(match.seats.all())
    if match.status == Match.Status.RUNNING:
        for seat in seats:
            seat.total = match.totals[seat.index] if seat.index < len(match.totals) else 0
            seat.place, seat.forfeited = None, False
    return seats
