"""Players and the matches people start: a house bot's or a person's player (names checked by ``sitekit.names``),
a casual match against house bots, and a replay of a dealt deal ("Play this deal")."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.db.models import Q

from eights_engine import Ruleset
from games.matches.lifecycle import match_create, match_wake
from games.models import Match, Player
from sitekit.names import NameRefused, looks_like_a_guest, name_normalize, name_problem, name_skeleton

log = logging.getLogger(__name__)



def player_house_create(*, name: str, strategy: str, description: str = "") -> Player:
    """A house bot playing engine strategy ``strategy``, named ``name``: the house bot of that name is updated when
    there is one; when a person or a user's bot has the name (or a look-alike of it) the new house bot is named
    ``"<name> (2)"``, ``"<name> (3)"``, ... instead, and the other player is left alone. ``ValueError`` for an
    unknown strategy."""
    from eights_engine import HOUSE_STRATEGIES

    if strategy not in HOUSE_STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: choose one of {', '.join(HOUSE_STRATEGIES)}")
    wanted, n = name, 1
    with transaction.atomic():
        while True:
            player = Player.objects.select_for_update().filter(name=name).first()
            if player is not None and player.kind == Player.Kind.HOUSE:  # the same house bot again: update it
                player.strategy, player.description = strategy, description
                player.save(update_fields=["strategy", "description"])
                return player
            # never rewrite a person's or a user's bot's player, nor take a look-alike of their name
            if player is None and not Player.objects.filter(name_skeleton=name_skeleton(name)).exclude(
                    kind=Player.Kind.HOUSE).exists():
                try:  # another request may be inserting this name right now: its row wins, then update it
                    with transaction.atomic():
                        return Player.objects.create(name=name, kind=Player.Kind.HOUSE, strategy=strategy,
                                                     description=description)
                except IntegrityError:
                    if Player.objects.filter(name=name).exists():
                        continue  # read it again (the loop's first step): a house bot is updated, else the next name
            n += 1
            name = f"{wanted[:52]} ({n})"


def player_for_user(*, user) -> Player:
    """The person's player (kind ``human``), created on first use with their user name (normalised, and suffixed
    " (2)", " (3)", ... while it is taken or looks like a taken name: ``sitekit.names``, or is ASCII digits only, which
    ``/api/players/<ref>/`` would read as an id: a user made by ``createsuperuser`` or the admin is not checked at
    sign-up)."""
    player = Player.objects.filter(user=user, kind=Player.Kind.HUMAN).first()
    if player is not None:
        return player
    base = name_normalize(user.get_username())[:50]
    name, n = base, 1
    while (name.isascii() and name.isdigit()) or Player.objects.filter(
            Q(name=name) | Q(name_skeleton=name_skeleton(name))).exists():
        n += 1
        name = f"{base} ({n})"
    return Player.objects.create(name=name, kind=Player.Kind.HUMAN, user=user)


def deal_replay_create(*, code: str, user, seat: int = 0) -> Match:
    """"Play this deal": a casual (unrated) single-deal match with the cards of a finished deal's code, the
    person in ``seat`` and house bots in the other seats (the same strategy where the original seat was a house
    bot, the heuristic elsewhere). ``ValueError`` when the code is not public (no finished match dealt it) or the
    seat does not exist."""
    from games.matches.exports import deal_plays

    plays = deal_plays(code=code)
    if not plays:
        raise ValueError(f"no finished match has a deal with the code {code!r}: a code is public once its match ends")
    original = plays[0]
    match = original.match
    if not (isinstance(seat, int) and 0 <= seat < match.seat_count):
        raise ValueError(f"this deal has seats 0 to {match.seat_count - 1}")
    person = player_for_user(user=user)
    players = []
    for s in sorted(match.seats.all(), key=lambda s: s.index):
        if s.index == seat:
            players.append(person)
            continue
        strategy = s.player.strategy if s.player.kind == Player.Kind.HOUSE else "heuristic"
        house = Player.objects.filter(kind=Player.Kind.HOUSE, strategy=strategy).exclude(
            pk__in=[p.pk for p in players]).order_by("pk").first()
        players.append(house or player_house_create(name=f"House {strategy} {s.index}", strategy=strategy))
    replay_match = match_create(players=players, ruleset=Ruleset.from_dict(match.ruleset), preset=match.preset,
                                single_deal=({"key": original.key} if original.key else {"seed": original.seed})
                                | {"dealer": original.dealer})
    match_wake(match_id=replay_match.pk)
    return replay_match


def casual_match_create(*, user, opponents: list[str], preset: str = "pagat") -> Match:
    """A casual (unrated) match: the person in seat 0 against the named house bots. ``ValueError`` for an
    unknown name, a player that is not a house bot, a repeated name, or a seat count the preset does not allow."""
    if not isinstance(opponents, list) or not opponents or not all(isinstance(n, str) for n in opponents):
        raise ValueError("name one or more house bots to play against, e.g. [\"Professor\"]")
    houses = {p.name: p for p in Player.objects.filter(name__in=opponents, kind=Player.Kind.HOUSE)}
    missing = [n for n in opponents if n not in houses]
    if missing:
        names = ", ".join(Player.objects.filter(kind=Player.Kind.HOUSE).values_list("name", flat=True))
        raise ValueError(f"{missing[0]!r:.60} is not a house bot; house bots: {names}")
    ruleset = Ruleset.preset(preset)
    match = match_create(players=[player_for_user(user=user), *(houses[n] for n in opponents)], ruleset=ruleset,
                         preset=preset)
    match_wake(match_id=match.pk)
    return match


def player_name_check(*, name: object, exclude_player_id: int | None = None, min_length: int = 2,
                      max_length: int = 40) -> str:
    """A name a new or renamed player may take: returns it normalised (``name_normalize``). Raises ``NameRefused``:
    ``invalid_name`` for a length outside ``min_length``..``max_length`` characters or an invisible or control
    character, a name of ASCII digits only (it would read as a player id), or a name that looks like a guest's
    (``looks_like_a_guest``), ``name_taken`` when another player (not
    ``exclude_player_id``) has a name that looks the same."""
    if not isinstance(name, str):
        raise NameRefused("invalid_name", f"a name is {min_length} to {max_length} characters of text")
    problem = name_problem(name)
    if problem:
        raise NameRefused("invalid_name", problem)
    name = name_normalize(name)
    if not min_length <= len(name) <= max_length:
        raise NameRefused("invalid_name", f"a name is {min_length} to {max_length} characters (after joining "
                                          f"spaces); {name!r:.60} has {len(name)}")
    problem = name_problem(name)  # NFKC could make one (it maps U+3164 to U+1160)
    if problem:
        raise NameRefused("invalid_name", problem)
    if name.isascii() and name.isdigit():  # /api/players/<ref>/ reads digits as an id: this name could never be
        raise NameRefused("invalid_name", f"the name {name!r} is all digits, which reads as a player id "  # looked up
                                          "(/api/players/<id>/): add a letter")
    if looks_like_a_guest(name):
        raise NameRefused("invalid_name", f"the name {name!r} looks like a guest's (guests who play without an "
                                          "account are named \"Guest\" and six hex digits): choose another name")
    taken = Player.objects.filter(name_skeleton=name_skeleton(name))
    if exclude_player_id is not None:
        taken = taken.exclude(pk=exclude_player_id)
    other = taken.values_list("name", flat=True).first()
    if other is not None:
        if other == name:
            raise NameRefused("name_taken", f"the name {name!r} is taken: choose another name")
        if other.casefold() == name.casefold():
            raise NameRefused("name_taken", f"the name {name!r} is taken by {other!r} (names are compared ignoring "
                                            "case): choose another name")
        raise NameRefused("name_taken", f"the name {name!r} looks like {other!r}, which is taken (case, accents, "
                                        "letters from other scripts, small capitals, fullwidth forms and look-alike "
                                        "characters count as the same): choose another name")
    return name
