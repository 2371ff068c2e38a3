"""Tables: create one, take a seat, start its match, leave or cancel it (``table_*``); the lobby's open tables.

A table's row is taken with ``SELECT ... FOR UPDATE NOWAIT`` by every change of its seats: two people pressing Join
for the last seat at once get one seat each or a 409 ``busy`` (retry in 1 s), never a wait for a lock inside the
request. The match is created (``games.services.match_create``) in the transaction that fills the last seat, or
when the creator starts with house bots in the seats still free; from then on it is an ordinary casual match.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone
from django.urls import reverse
from django.utils.translation import gettext as _

from bots_api.models import Bot
from eights_engine import HOUSE_STRATEGIES, PRESETS, Ruleset
from games.models import Match, Notification, Player
from games.notices import notify_player
from games.people.players import player_house_create
from games.services import match_create, match_wake
from tournaments.models import Ladder
from tournaments.services import ladder_table_match_create
from sitekit.errors import ApiError
from sitekit.limits import AddressBudget
from tables.models import Table, TableSeat

#: invite code alphabet: no 0/O, 1/I/L (read aloud or typed from a phone); 12 characters are about 59 bits
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 12
#: seat kinds a creator may ask for (the creator's own seat is seat 0)
SEAT_KINDS = ("open", "invited", "house", "bot", "challenge")


class TableError(ApiError):
    """A refused table operation (``sitekit.errors.ApiError``). Codes: ``not_found`` 404, ``gone`` 410 (started,
    cancelled or expired), ``full`` 409, ``already_seated`` 409, ``busy`` 409 (retry in 1 s), ``not_yours`` 403,
    ``bad_table`` 400, ``sign_up`` 403 (a guest at a rated table), ``too_many_tables`` 429 (new tables per address,
    waiting tables per player, running casual matches of the player, or running matches of a rated table's
    ladder)."""

    status = 409
    STATUS = {"not_found": 404, "gone": 410, "not_yours": 403, "sign_up": 403, "bad_table": 400,
              "too_many_tables": 429}

    def status_for(self, code: str) -> int:
        return self.STATUS.get(code, type(self).status)


class TableCreateBudget(AddressBudget):
    """New tables per client address (``TABLE_CREATE_RATE``)."""

    scope = "table_create"


def _check_running(player: Player, ladder: Ladder | None = None) -> None:
    """``TableError`` 429 ``too_many_tables`` when ``player`` already has as many running casual matches as a casual
    Deal would allow them (``GUEST_RUNNING_PER_BROWSER`` for a guest, ``CASUAL_RUNNING_PER_PERSON`` for a person):
    a table's match is one more. At a table rated on ``ladder``: a guest is refused (``sign_up``), and the limit is
    the ladder's running matches per player (``Ladder.max_concurrent_per_player``)."""
    from games.people.casual import casual_running

    if ladder is not None:
        if player.is_guest:
            raise TableError("sign_up", _("a rated table seats signed-up people only: sign up (or log in) to play "
                                          "on the ladder %(name)s") % {"name": ladder.name})
        running = Match.objects.filter(status=Match.Status.RUNNING, ladder_match__ladder=ladder,
                                       seats__player=player).count()
        if running >= ladder.max_concurrent_per_player:
            raise TableError("too_many_tables", _("you have %(running)s matches of the ladder %(name)s running "
                                                  "(limit %(limit)s): finish one first") % {
                "running": running, "name": ladder.name, "limit": ladder.max_concurrent_per_player}, retry_after=60)
        return
    limit = settings.GUEST_RUNNING_PER_BROWSER if player.is_guest else settings.CASUAL_RUNNING_PER_PERSON
    running = len(casual_running(player))
    if running >= limit:
        raise TableError("too_many_tables", _("you have %(running)s casual matches running (limit %(limit)s): finish "
                                              "one before you sit at another table") % {"running": running,
                                                                                          "limit": limit},
                         retry_after=60)


def _someone(player: Player | None) -> Player:
    """``player``, or ``TableError`` 403 ``not_yours`` for a browser without a player (nobody sits anywhere)."""
    if player is None:
        raise TableError("not_yours", _("you have no seat at this table (log in, or use the browser you sat down "
                                        "with)"))
    return player


def _bad(detail: str) -> TableError:
    return TableError("bad_table", detail)


def _new_code() -> str:
    """An invite code no table has yet."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if not Table.objects.filter(code=code).exists():
            return code


def _house_for(strategy: str, taken: set[int], ladder: Ladder | None = None) -> Player:
    """An active house bot of ``strategy`` not in ``taken`` (player ids), created when there is none; at a table
    rated on ``ladder`` one of its entries (``bad_table`` naming the ladder's house strategies when none is free)."""
    houses = Player.objects.filter(kind=Player.Kind.HOUSE, strategy=strategy, is_active=True).exclude(pk__in=taken)
    if ladder is not None:
        house = houses.filter(ladder_entries__ladder=ladder, ladder_entries__is_active=True).order_by("pk").first()
        if house is None:
            offered = sorted(set(_ladder_houses(ladder).values_list("strategy", flat=True)))
            raise _bad(f"no house bot {strategy!r:.40} is free on the ladder {ladder.name}: a rated table seats its "
                       f"entries only (its house strategies: {', '.join(offered) or 'none'})")
        return house
    house = houses.order_by("pk").first()
    if house is None:
        house = player_house_create(name=f"House {strategy} {len(taken) + 1}", strategy=strategy,
                                    description="a table's house bot")
    return house


def _ladder_houses(ladder: Ladder):
    """The active house bots entered on ``ladder``, in id order."""
    return Player.objects.filter(kind=Player.Kind.HOUSE, is_active=True, ladder_entries__ladder=ladder,
                                 ladder_entries__is_active=True).order_by("pk")


def _seat_from(spec: object, index: int, creator: Player, taken: set[int], ladder: Ladder | None = None) -> TableSeat:
    """The seat ``index`` a creator asked for with ``spec`` (one of ``SEAT_KINDS``: ``{"kind": "open"}``,
    ``{"kind": "invited", "name": player name}``, ``{"kind": "house", "strategy": s}``, ``{"kind": "bot", "bot":
    id}``, ``{"kind": "challenge", "name": bot name}``: another owner's verified bot that accepts challenges);
    ``taken``: the player ids seated so far. ``TableError`` ``bad_table`` saying what would be right."""
    where = f"seat {index}"
    if not isinstance(spec, dict) or spec.get("kind") not in SEAT_KINDS:
        raise _bad(f"{where}: give {{\"kind\": ...}} with a kind of {', '.join(SEAT_KINDS)}")
    unknown = set(spec) - {"kind", "name", "strategy", "bot"}
    if unknown:
        raise _bad(f"{where}: unknown field {sorted(unknown)[0]!r:.40}; a seat has kind and, by kind, name "
                   "(invited, challenge), strategy (house) or bot (bot)")
    kind = spec["kind"]
    if kind == "open":
        return TableSeat(index=index, kind=kind)
    if kind == "invited":
        name = spec.get("name")
        person = Player.objects.filter(name=name, kind=Player.Kind.HUMAN, is_guest=False,
                                       user__isnull=False).first() if isinstance(name, str) else None
        if person is None:
            raise _bad(f"{where}: {name!r:.60} is not a person's name here: invite a signed-up person by their "
                       "player name")
        if person.pk == creator.pk or person.pk in taken:
            raise _bad(f"{where}: {person.name} has a seat at this table already")
        if _owner_seated(person.user_id, taken):
            raise _bad(f"{where}: a bot of {person.name} sits at this table (they would see its cards): invite "
                       "someone else")
        taken.add(person.pk)
        return TableSeat(index=index, kind=kind, invited=person)
    if kind == "house":
        strategy = spec.get("strategy", "heuristic")
        if strategy not in HOUSE_STRATEGIES:
            raise _bad(f"{where}: unknown house strategy {strategy!r:.40}; choose one of "
                       f"{', '.join(HOUSE_STRATEGIES)}")
        house = _house_for(strategy, taken, ladder)
        taken.add(house.pk)
        return TableSeat(index=index, kind=kind, player=house)
    if kind == "challenge":
        return _challenged_bot_seat(spec.get("name"), index, where, taken)
    bot_id = spec.get("bot")
    bot = (Bot.objects.select_related("player").filter(pk=bot_id, owner=creator.user).first()
           if isinstance(bot_id, int) and not isinstance(bot_id, bool) and creator.user_id else None)
    if bot is None:
        raise _bad(f"{where}: {bot_id!r:.20} is not one of your bots (give a bot id from GET /api/bots/)")
    if not bot.verified_at or not bot.player.is_active or bot.player.pk in taken:
        raise _bad(f"{where}: the bot {bot.player.name} cannot play now (verify it first, or it is seated already)")
    taken.add(bot.player.pk)
    return TableSeat(index=index, kind=kind, player=bot.player)


def _owner_seated(user_id: int | None, taken: set[int]) -> bool:
    """Whether a player of the account ``user_id`` (a person, or a bot it owns) is among ``taken`` (player ids): no
    owner sits twice at a table (a person and their bot could share cards; ``match_create`` refuses it too)."""
    return user_id is not None and Player.objects.filter(pk__in=taken, user_id=user_id).exists()


def _challenged_bot_seat(name: object, index: int, where: str, taken: set[int]) -> TableSeat:
    """The seat of another owner's bot named ``name`` that accepts challenges (``Bot.accepts_challenges``, verified,
    playing). No owner sits twice at a table (a person and their bot could share cards): a bot whose owner or whose
    owner's other bot is seated already is refused, and its owner may not take a seat later (``table_join``)."""
    bot = (Bot.objects.select_related("player").filter(player__name=name).first()
           if isinstance(name, str) else None)
    if bot is None or not bot.accepts_challenges:
        raise _bad(f"{where}: {name!r:.60} is not a bot that accepts challenges (its owner switches that on: "
                   "accepts_challenges in PATCH /api/bots/<id>/)")
    if not bot.verified_at or not bot.player.is_active or bot.player.pk in taken:
        raise _bad(f"{where}: the bot {bot.player.name} cannot play now (not verified or disabled, or seated already)")
    if _owner_seated(bot.player.user_id, taken):
        raise _bad(f"{where}: the owner of {bot.player.name} has a player at this table already (they could share "
                   "cards): choose another bot")
    taken.add(bot.player.pk)
    return TableSeat(index=index, kind=TableSeat.Kind.CHALLENGE, player=bot.player)


def table_create(*, creator: Player, preset: str | None, seats: object, listed: bool = True, request=None,
                 challenge: bool = False, ladder: str | None = None) -> Table:
    """A table of ``preset`` (any preset, RULES.md) with ``creator`` (a person's or a guest's player) in seat 0 and
    the other seats as ``seats`` asks (a list of seat specs, ``_seat_from``), waiting ``TABLE_WAIT_MINUTES`` for its
    players; started at once when no seat is left to fill. ``ladder`` (a ladder's slug): rated on that ladder, under
    its rules and seat count (``preset`` None, or the ladder's), every seat one of its entries (a person joining gets
    theirs; house seats are its house entries; no bot of one's own). ``request``: counted against its address's
    budget of new tables (``TABLE_CREATE_RATE``). Raises ``TableError``: ``bad_table`` (what is wrong and what would
    be right), ``sign_up`` (a guest asking for a rated table), ``too_many_tables`` (the address's budget, or
    ``TABLES_WAITING_PER_PLAYER`` waiting tables of the creator); at a rated table, ``bad_table`` too when the
    creator or a person a seat is kept for is banned from rated play (``games.people.fairplay``)."""
    rated = None
    if ladder is not None:
        rated = Ladder.objects.filter(slug=ladder, is_active=True).first() if isinstance(ladder, str) else None
        if rated is None:
            raise _bad(f"no open ladder {ladder!r:.40}: give a ladder's slug (GET /api/ladders/), or leave ladder out "
                       "for a casual table")
        if preset is not None and preset != rated.preset:
            raise _bad(f"a table rated on {rated.name} plays its rules (preset {rated.preset}): leave preset out")
        preset = rated.preset
    preset = "web-table" if preset is None else preset
    if preset not in PRESETS:
        raise _bad(f"unknown preset {preset!r:.40}: choose one of {', '.join(sorted(PRESETS))}")
    ruleset = Ruleset.from_dict(rated.ruleset) if rated else Ruleset.preset(preset)
    if not isinstance(seats, list):
        raise _bad("seats is a list of the other seats, e.g. [{\"kind\": \"open\"}, {\"kind\": \"house\"}]")
    count = len(seats) + 1
    if rated is not None and count != rated.seats_per_match:
        raise _bad(f"the ladder {rated.name} plays {rated.seats_per_match} seats; this table has {count} (you and the "
                   "seats listed)")
    if not ruleset.seats_min <= count <= ruleset.seats_max:
        raise _bad(f"the preset {preset} seats {ruleset.seats_min} to {ruleset.seats_max}; this table has {count} "
                   "(you and the seats listed)")
    kinds = {spec.get("kind") for spec in seats if isinstance(spec, dict)}
    if rated is not None and "bot" in kinds:
        raise _bad("your own bot may not sit at a rated table with you: make the seat open, invited or a house bot")
    if rated is not None and "challenge" in kinds:
        raise _bad("a rated table seats the ladder's entries: challenge a bot at a casual table")
    budget = TableCreateBudget()
    if request is not None and budget.full(request):
        raise TableError("too_many_tables", _("too many new tables from your address (limit %(limit)s); try again in "
                                              "%(wait)s s") % {"limit": budget.rate,
                                                               "wait": budget.retry_after()},
                         retry_after=budget.retry_after())
    _check_running(creator, rated)
    waiting = tables_waiting_of(creator).count()
    if waiting >= settings.TABLES_WAITING_PER_PLAYER:
        raise TableError("too_many_tables", _("you have %(waiting)s tables waiting for players (limit %(limit)s): "
                                              "start or cancel one first") % {
            "waiting": waiting, "limit": settings.TABLES_WAITING_PER_PLAYER}, retry_after=60)
    if "bot" in kinds and kinds & {"open", "invited"}:
        raise _bad("your bot may sit only at a table of you, your bots and house bots: at a table with other people "
                   "it could tell you their cards (make the other seats house bots, or leave your bot out)")
    with transaction.atomic():
        taken = {creator.pk}
        rows = [TableSeat(index=0, kind=TableSeat.Kind.CREATOR, player=creator)]
        rows += [_seat_from(spec, i, creator, taken, rated) for i, spec in enumerate(seats, start=1)]
        banned = next((p for p in [creator, *(r.invited for r in rows)] if p is not None and p.banned_at), None)
        if rated is not None and banned is not None:  # refused now, not when the seat is taken
            raise _bad(f"{banned.name} is banned from rated play after a fair-play review: leave the ladder out for a "
                       "casual table")
        wait = timedelta(minutes=settings.CHALLENGE_MINUTES if challenge else settings.TABLE_WAIT_MINUTES)
        table = Table.objects.create(code=_new_code(), created_by=creator, preset=preset, ruleset=ruleset.to_dict(),
                                     seat_count=count, listed=bool(listed) and not challenge, challenge=challenge,
                                     ladder=rated, expires_at=timezone.now() + wait)
        for row in rows:
            row.table = table
        TableSeat.objects.bulk_create(rows)
        for row in rows:  # the people a seat is kept for are told (a notification; an e-mail if they opted in)
            if row.invited is not None and row.invited.kind == Player.Kind.HUMAN:
                notify_player(player=row.invited, kind=(Notification.Kind.CHALLENGE if challenge
                                                        else Notification.Kind.TABLE_INVITE),
                              params={"name": creator.name, "preset": preset,
                                      **({"ladder": rated.name} if rated is not None else {})},
                              url=reverse("table-detail", args=[table.code]), key=f"table:{table.code}")
        if all(row.player_id for row in rows):
            _start(table)
    if request is not None:
        budget.count(request)
    return table


def tables_waiting_of(player: Player) -> QuerySet[Table]:
    """The tables ``player`` created that still wait for players."""
    return Table.objects.filter(created_by=player, status=Table.Status.WAITING, expires_at__gt=timezone.now())


def tables_open(*, limit: int = 100) -> list[Table]:
    """The lobby: listed tables waiting for players (not expired), newest first, at most ``limit``, each with its
    seats and their players loaded, in two queries."""
    seats = TableSeat.objects.select_related("player", "invited").order_by("index")
    return list(Table.objects.filter(status=Table.Status.WAITING, listed=True, expires_at__gt=timezone.now())
                .select_related("created_by", "rematch", "rematch_of", "ladder").prefetch_related(Prefetch("seats", queryset=seats))
                .order_by("-created_at", "-id")[:limit])


def table_by_code(code: object, *, with_seats: bool = True) -> Table:
    """The table with invite ``code`` (any case), its seats loaded (``with_seats``: a change that reads them under
    its lock passes False). ``TableError`` ``not_found`` otherwise."""
    if not isinstance(code, str) or not 1 <= len(code) <= 32:
        raise TableError("not_found", _("no table has this invite code: check the link you were sent"))
    tables = Table.objects.filter(code=code.strip().upper())
    if with_seats:
        tables = (tables.select_related("created_by", "match", "rematch", "rematch_of", "ladder")
                  .prefetch_related(Prefetch("seats", queryset=TableSeat.objects.select_related("player", "invited"))))
    table = tables.first()
    if table is None:
        raise TableError("not_found", _("no table has this invite code: check the link you were sent"))
    return table


def _lock_row(table: Table, busy: str) -> None:
    """Lock ``table``'s row for this transaction without waiting: ``TableError`` 409 ``busy`` (``busy``: what someone
    else is doing) when another transaction holds it."""
    try:
        Table.objects.select_for_update(nowait=True).filter(pk=table.pk).values_list("pk").first()
    except DatabaseError:
        raise TableError("busy", _("someone else is %(what)s right now; try again in 1 s") % {
            "what": busy}, retry_after=1) from None


def _locked(code: str) -> Table:
    """The waiting table ``code``, its row locked for this transaction without waiting."""
    table = table_by_code(code, with_seats=False)
    _lock_row(table, _("taking a seat at this table"))
    table.refresh_from_db(fields=["status", "match"])
    _check_waiting(table)
    return table


def _check_waiting(table: Table) -> None:
    if table.status == Table.Status.STARTED:
        raise TableError("gone", _("this table's match has started: watch it from the table's page"))
    if table.status == Table.Status.CANCELLED or table.expires_at <= timezone.now():
        raise TableError("gone", _("this table was cancelled or waited too long for players: ask for a new link"))


def seat_of(table: Table, player: Player | None) -> TableSeat | None:
    """The seat ``player`` sits in at ``table`` (its seats as loaded), or None."""
    if player is None:
        return None
    return next((s for s in table.seats.all() if s.player_id == player.pk), None)


def table_join(*, code: str, player: Player) -> TableSeat:
    """``player`` (a person's or a guest's) takes a seat at table ``code``: the seat kept for them when invited,
    else the first open one; the match starts when it was the last free seat. Raises ``TableError``: ``not_found``,
    ``gone``, ``already_seated``, ``full`` (no seat this player may take), ``busy``."""
    with transaction.atomic():
        table = _locked(code)
        seats = list(TableSeat.objects.select_for_update().filter(table=table).order_by("index"))
        if any(s.player_id == player.pk for s in seats):
            raise TableError("already_seated", _("you have a seat at this table already"))
        if _owner_seated(player.user_id, {s.player_id for s in seats if s.player_id}):
            raise TableError("already_seated", _("your bot sits at this table: you may not sit with it (you would see "
                                                 "its cards)"))
        _check_running(player, table.ladder)
        free = [s for s in seats if s.player_id is None]
        mine = next((s for s in free if s.kind == TableSeat.Kind.INVITED and s.invited_id == player.pk), None)
        seat = mine or next((s for s in free if s.kind == TableSeat.Kind.OPEN), None)
        if seat is None:
            raise TableError("full", _("no free seat here is open to you: every seat is taken or kept for someone "
                                       "invited"))
        seat.player = player
        seat.save(update_fields=["player"])
        if all(s.player_id for s in seats):
            _start(table)
    return seat


def table_leave(*, code: str, player: Player) -> None:
    """``player`` gives up their seat at a waiting table (not the creator's: the creator cancels). ``TableError``:
    ``not_found``, ``gone``, ``not_yours`` (no seat of theirs), ``busy``."""
    player = _someone(player)
    with transaction.atomic():
        table = _locked(code)
        updated = TableSeat.objects.filter(table=table, player=player).exclude(
            kind__in=[TableSeat.Kind.CREATOR, TableSeat.Kind.HOUSE, TableSeat.Kind.BOT]).update(player=None)
        if not updated:
            raise TableError("not_yours", _("you have no seat to leave at this table (its creator cancels it "
                                            "instead)"))


def table_cancel(*, code: str, player: Player) -> None:
    """The creator cancels their waiting table. ``TableError``: ``not_found``, ``gone``, ``not_yours``, ``busy``."""
    player = _someone(player)
    with transaction.atomic():
        table = _locked(code)
        if table.created_by_id != player.pk:
            raise TableError("not_yours", _("only the table's creator may cancel it"))
        Table.objects.filter(pk=table.pk).update(status=Table.Status.CANCELLED)


def table_start(*, code: str, player: Player) -> Match:
    """The creator starts now: every free seat gets a house bot (``GUEST_OPPONENTS``' strategies in turn, a
    beginner's opponents), then the match starts. ``TableError``: ``not_found``, ``gone``, ``not_yours``, ``busy``."""
    player = _someone(player)
    with transaction.atomic():
        table = _locked(code)
        if table.created_by_id != player.pk:
            raise TableError("not_yours", _("only the table's creator may start it before every seat is filled"))
        seats = list(TableSeat.objects.select_for_update().filter(table=table).order_by("index"))
        taken = {s.player_id for s in seats if s.player_id}
        strategies = list(settings.GUEST_OPPONENTS)
        if table.ladder is not None:  # its own house entries, in turn
            strategies = list(_ladder_houses(table.ladder).exclude(pk__in=taken).values_list("strategy", flat=True))
            if len(strategies) < sum(1 for s in seats if s.player_id is None):
                raise _bad(f"the ladder {table.ladder.name} has too few house bots free to fill the seats: wait for "
                           "people, or open a casual table")
        for i, seat in enumerate(s for s in seats if s.player_id is None):
            seat.player = _house_for(strategies[i % len(strategies)], taken, table.ladder)
            taken.add(seat.player.pk)
            seat.save(update_fields=["player"])
        return _start(table)


def challenge_create(*, challenger: Player, name: object, preset: str | None = None, request=None,
                     ladder: str | None = None) -> Table:
    """``challenger`` challenges the person named ``name`` to a one-on-one casual match of ``preset`` (default
    web-table), or rated on ``ladder`` (a ladder of two seats): an unlisted table with that person's seat kept for them, answered within ``CHALLENGE_MINUTES`` (accepting is taking the
    seat: the match starts; declining cancels it). The challenged person sees it on every page
    (``invitations_for``). ``TableError`` as ``table_create`` (``bad_table`` for a name that is not a person's,
    or one's own)."""
    return table_create(creator=challenger, preset=preset, seats=[{"kind": "invited", "name": name}], listed=False,
                        request=request, challenge=True, ladder=ladder)


def invitations_for(player: Player | None = None, *, user=None) -> list[Table]:
    """The waiting tables with a free seat kept for ``player`` (or for ``user``'s person player), challenges and
    table invitations, newest first (one query): what every page shows them (``tables.context_processors``) and
    ``GET /api/challenges/``."""
    if player is None and (user is None or not user.is_authenticated):
        return []
    kept = {"seats__invited": player} if player is not None else {"seats__invited__user": user,
                                                                   "seats__invited__kind": Player.Kind.HUMAN}
    return list(Table.objects.filter(status=Table.Status.WAITING, expires_at__gt=timezone.now(),
                                     seats__player__isnull=True, **kept)
                .select_related("created_by").order_by("-created_at", "-id")[:10])


def table_decline(*, code: str, player: Player) -> None:
    """``player`` turns down the seat kept for them: a challenge is cancelled; at a table of more seats the seat
    becomes open to anyone with the link. ``TableError``: ``not_found``, ``gone``, ``not_yours`` (no seat kept
    for them), ``busy``."""
    player = _someone(player)
    with transaction.atomic():
        table = _locked(code)
        seat = TableSeat.objects.filter(table=table, invited=player, player__isnull=True).first()
        if seat is None:
            raise TableError("not_yours", _("no seat at this table is kept for you"))
        if table.challenge:
            Table.objects.filter(pk=table.pk).update(status=Table.Status.CANCELLED)
        else:
            TableSeat.objects.filter(pk=seat.pk).update(kind=TableSeat.Kind.OPEN, invited=None)


def on_guest_adopted(sender, *, guest: Player, person: Player, **kwargs) -> None:
    """``games.hooks.guest_adopted`` receiver: a guest who signs up or logs in keeps their tables under the account
    (the seats they took, the seats kept for them, the tables they opened), in the adopting transaction; the guest
    player's delete would otherwise take them along (and a finished table's rematch would miss a seat)."""
    TableSeat.objects.filter(player=guest).update(player=person)
    TableSeat.objects.filter(invited=guest).update(invited=person)
    Table.objects.filter(created_by=guest).update(created_by=person)


def on_account_banned(sender, *, player_ids: list[int], **kwargs) -> None:
    """``games.hooks.account_banned`` receiver: the waiting rated tables (challenges too) made by a banned player, or
    keeping or holding a seat for one, are cancelled, in the banning transaction: their match could not start."""
    Table.objects.filter(Q(created_by_id__in=player_ids) | Q(seats__invited_id__in=player_ids)
                         | Q(seats__player_id__in=player_ids),
                         status=Table.Status.WAITING, ladder__isnull=False).update(status=Table.Status.CANCELLED)


def _rematch_code(table: Table) -> str | None:
    try:
        return table.rematch.code
    except Table.DoesNotExist:
        return None


def table_rematch(*, code: str, player: Player) -> Table:
    """Play the table's finished match again: a new table with the same rules and seats, each seat moved on by one
    (seat i sits at i + 1), the people's seats kept for them (``invited``: a guest's too) and the bots in theirs;
    ``player`` takes their seat at once, and the match starts when everyone has (each by ``table_join``, or by
    asking for the rematch too). Asked again, by anyone who sat there, it is the same rematch table. ``TableError``:
    ``not_found``, ``not_yours`` (no seat at the table), ``gone`` (its match is not finished), ``busy``."""
    player = _someone(player)
    table = table_by_code(code)
    if seat_of(table, player) is None:
        raise TableError("not_yours", _("only the people who sat at this table may ask for a rematch"))
    if table.match is None or table.match.status != Match.Status.FINISHED:
        raise TableError("gone", _("a rematch is offered once the table's match is finished"))
    with transaction.atomic():
        _lock_row(table, _("asking for this rematch"))
        again = Table.objects.filter(rematch_of=table).first()
        if again is None:
            old = {s.index: s for s in table.seats.all()}  # loaded with their players by table_by_code
            count = table.seat_count
            again = Table.objects.create(
                code=_new_code(), created_by=player, preset=table.preset, ruleset=table.ruleset, seat_count=count,
                listed=False, rematch_of=table, ladder=table.ladder,
                expires_at=timezone.now() + timedelta(minutes=settings.TABLE_WAIT_MINUTES))
            rows = []
            for index in range(count):
                was = old[(index - 1) % count]  # seats move on by one
                person = was.player.kind == Player.Kind.HUMAN
                rows.append(TableSeat(table=again, index=index,
                                      kind=TableSeat.Kind.INVITED if person else was.kind,
                                      invited=was.player if person else None,
                                      player=None if person else was.player))
            TableSeat.objects.bulk_create(rows)
    again = table_by_code(again.code)
    if seat_of(again, player) is None:
        try:
            table_join(code=again.code, player=player)
        except TableError as exc:
            if exc.code != "already_seated":
                raise
        again = table_by_code(again.code)
    return again


def _start(table: Table) -> Match:
    """Create the table's match (in the caller's transaction, the table's row locked): the seated players in seat
    order, the table's rules, a guest's move clock when a guest sits there. Woken for the worker on commit."""
    seats = list(TableSeat.objects.filter(table=table).select_related("player").order_by("index"))
    players = [s.player for s in seats]
    if table.ladder_id is not None:  # rated: the ladder's own match (its rules and clocks), rated at its end
        try:
            match = ladder_table_match_create(ladder=table.ladder, players=players)
        except ValueError as exc:
            raise _bad(f"this table cannot start rated: {exc}") from None
        Table.objects.filter(pk=table.pk).update(status=Table.Status.STARTED, match=match)
        table.status, table.match = Table.Status.STARTED, match
        match_wake(match_id=match.pk)
        return match
    guests = any(p.is_guest for p in players)
    # the creator's own bots sit only with the creator and house bots (table_create): nobody else's cards to share
    own_bots = any(s.kind == TableSeat.Kind.BOT for s in seats)
    match = match_create(players=players, ruleset=Ruleset.from_dict(table.ruleset), preset=table.preset,
                         move_seconds=settings.GUEST_MOVE_SECONDS if guests else None, same_owner_ok=own_bots)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.STARTED, match=match)
    table.status, table.match = Table.Status.STARTED, match
    match_wake(match_id=match.pk)
    return match


def table_view(table: Table, *, viewer: Player | None = None) -> dict:
    """What anyone may see of ``table`` (the lobby, the invite page, ``GET /api/tables/<code>/``): its code, rules,
    seats (index, kind, who sits there, who it is kept for), status and match, the table it plays again
    (``rematch_of``) and the one that plays it again (``rematch``: codes); for ``viewer`` (the person's or guest's
    player, if any) which seat is theirs and what they may do now. Nothing of any hand."""
    waiting = table.status == Table.Status.WAITING and table.expires_at > timezone.now()
    mine = seat_of(table, viewer)
    seats = []
    for s in table.seats.all():
        seats.append({"index": s.index, "kind": s.kind,
                      "player": s.player.name if s.player_id else None,
                      "player_kind": s.player.kind if s.player_id else None,
                      "invited": s.invited.name if s.invited_id else None,
                      "yours": mine is not None and s.index == mine.index})
    free = [s for s in table.seats.all() if s.player_id is None]
    me = viewer.pk if viewer is not None else None  # a browser without a player joins as a guest: an open seat
    can_join = waiting and mine is None and any(
        s.kind == TableSeat.Kind.OPEN or (s.kind == TableSeat.Kind.INVITED and me is not None and s.invited_id == me)
        for s in free)
    return {"code": table.code, "invite_url": f"/tables/{table.code}/", "preset": table.preset,
            "seat_count": table.seat_count, "listed": table.listed, "challenge": table.challenge,
            "ladder": table.ladder.slug if table.ladder_id else None, "rated": table.ladder_id is not None,
            "status": table.status if table.status != Table.Status.WAITING or waiting else "expired",
            "created_by": table.created_by.name, "created_at": table.created_at, "expires_at": table.expires_at,
            "match_id": table.match_id, "seats": seats, "free_seats": len(free),
            "rematch_of": table.rematch_of.code if table.rematch_of_id else None,
            "rematch": _rematch_code(table),
            "your_seat": mine.index if mine is not None else None,
            "can_join": can_join, "can_start": waiting and viewer is not None and table.created_by_id == viewer.pk,
            "can_leave": waiting and mine is not None and mine.kind in (TableSeat.Kind.OPEN, TableSeat.Kind.INVITED)}
