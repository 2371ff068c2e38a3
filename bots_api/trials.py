"""Trials: unrated test runs of an owner's bot on the service (docs/TRIALS.md).

``trial_create`` checks a request (opponents, ruleset or ladder, number of matches, an optional fixed seed set,
duplicate seating) against the owner's limits and creates every match of the trial at once, in
``TRIAL_PARALLEL_MATCHES`` lanes: each match waits (``Match.after``) for the one before it in its lane, so a trial
never holds more than that many matches on the workers, and a duplicate set's rotations (the same seed from each
seat, ``tournaments.duplicate.rotations``) are consecutive in one lane: they are played one after another, never at
once, and share a ``reveal_group`` (no rotation publishes its cards while another runs).

Unrated: a trial match has no ``LadderMatch`` (ratings move only for those: ``tournaments.services.on_match_finished``)
and no tournament, so no rating, leaderboard or ladder count ever sees it; the bots' fault policy
(``bots_api.services.on_match_finished``) leaves it out too: a broken version under test is not suspended for it.

Reads (``trial_detail``): each match's result as it comes in, and a summary: the win rate (a win is place 1 of the
bot's seat, shared places included; under partnership the side's place) with a 95 % Wilson score interval, and the
mean points per deal of the bot's seat with a 95 % normal interval; plus, when an earlier trial of the same bot used
the same seed set, opponents, rules and seating, that trial side by side ("this version against the last one").
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from bots_api.models import Bot, Trial, TrialMatch
from bots_api.services import BotError
from eights_engine import HOUSE_STRATEGIES, PRESETS, Ruleset
from eights_engine.deal import check_ruleset_seats
from sitekit.limits import LimitRefused
from games.models import Match, Player
from games.matches.exports import match_is_public
from games.services import match_create, match_wake, new_match_secret, player_house_create
from tournaments.duplicate import rotations
from tournaments.models import Ladder

#: the prefix naming a house strategy (or a house bot) as an opponent, as ``eights_engine.bots.localrun`` names it
HOUSE_PREFIX = "house:"
#: a fixed seed is a JSON-safe integer: 0 to 2**53 - 1 (any JavaScript client reads it exactly)
SEED_MAX = 2**53 - 1
#: the 95 % normal quantile of the intervals
Z95 = 1.959963984540054
#: advisory lock namespace (two-int form): a trial of this owner being created
_OWNER_LOCK = 0x7E1A


class TrialError(BotError):
    """A trial refused for its input (400) or for the bot's or the ladder's state (409: ``code`` in
    ``bots_api.services.CONFLICT_CODES``)."""


class TrialRefused(LimitRefused):
    """A trial refused by an owner's limit (429 with Retry-After): ``detail`` names the limit."""


# ---- create -------------------------------------------------------------------------------------------------------

def _opponent(name: object, *, bot: Bot) -> Player:
    """The player ``name`` stands for: ``house:STRATEGY`` (a house bot playing that strategy, created when there is
    none), ``house:NAME`` or a house bot's name, one of the owner's other bots, or another owner's bot that accepts
    challenges and can play. ``TrialError`` otherwise."""
    strategies = ", ".join(f"{HOUSE_PREFIX}{s}" for s in HOUSE_STRATEGIES)
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise TrialError("invalid_opponent", f"an opponent is a string: {strategies}, a house bot's name, one of "
                                             "your other bots' names, or a bot that accepts challenges")
    if name.startswith(HOUSE_PREFIX):
        key = name[len(HOUSE_PREFIX):]
        if key in HOUSE_STRATEGIES:
            house = Player.objects.filter(kind=Player.Kind.HOUSE, strategy=key).order_by("pk").first()
            return house or player_house_create(name=f"House {key}", strategy=key)
        house = Player.objects.filter(kind=Player.Kind.HOUSE, name=key).first()
        if house is None:
            raise TrialError("unknown_opponent", f"{name[:60]!r} is no house bot: name a house strategy "
                                                 f"({strategies}) or a house bot's name")
        return house
    player = Player.objects.filter(name=name).select_related("bot").first()
    if player is not None and player.kind == Player.Kind.HOUSE:
        return player
    other = getattr(player, "bot", None) if player is not None and player.kind == Player.Kind.BOT else None
    if other is not None and other.pk == bot.pk:
        raise TrialError("invalid_opponent", "a bot cannot be its own opponent: name house bots or other bots")
    if other is not None and other.owner_id == bot.owner_id:
        if not other.can_play:
            raise TrialError("opponent_cannot_play", f"your bot {name!r} cannot play now (enabled, verified and not "
                                                     "suspended are needed): verify it or name another opponent")
        return player
    if other is not None and other.accepts_challenges and other.can_play:
        return player
    # a person, an unknown name, or another owner's bot that does not take challenges (or cannot play now): the
    # same words, so nothing about another owner's bot is learnt
    raise TrialError("unknown_opponent", f"{name[:60]!r} is not an opponent you can name: use a house strategy "
                                         f"({strategies}), a house bot's name, one of your other bots, or a bot "
                                         "whose owner lets it accept challenges")


def _check_seeds(seeds: object) -> list[int] | None:
    if seeds is None:
        return None
    if not isinstance(seeds, list) or not seeds:
        raise TrialError("invalid_seeds", "seeds is a non-empty list of integers from 0 to 9007199254740991 "
                                          "(2**53 - 1), e.g. [1, 2, 3]; leave it out for random seeds")
    bad = [s for s in seeds if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= SEED_MAX]
    if bad:
        raise TrialError("invalid_seeds", f"seeds are integers from 0 to 9007199254740991 (2**53 - 1); "
                                          f"{str(bad[0])[:40]!r} is not one")
    if len(set(seeds)) != len(seeds):
        raise TrialError("invalid_seeds", "each seed appears once in a seed set (a repeated seed would deal the same "
                                          "cards to two matches of the trial at once)")
    return list(seeds)


def _rules(*, preset: object, ladder: object, bot: Bot, seats: int) -> tuple[Ruleset, str, Ladder | None, int]:
    """(ruleset, preset name, ladder or None, bot turn timeout in ms) of a request. ``TrialError`` for an unknown
    preset or ladder, both given, a ladder the bot may not play on, or a seat count the rules do not allow."""
    if ladder is not None and preset is not None:
        raise TrialError("invalid_rules", "give either preset (a ruleset preset) or ladder (a ladder's slug, whose "
                                          "rules are used), not both")
    if ladder is not None:
        if not isinstance(ladder, str):
            raise TrialError("unknown_ladder", "ladder is a ladder's slug, e.g. \"demo\"")
        lad = Ladder.objects.filter(slug=ladder).first()
        if lad is None:
            raise TrialError("unknown_ladder", f"there is no ladder {ladder[:60]!r}: GET /api/ladders/ lists them "
                                               "(or give a preset instead)")
        if not lad.is_active:
            raise TrialError("ladder_closed", f"the ladder {lad.slug!r} is not active: its rules take no trials")
        if bot.suspended_reason:
            raise TrialError("suspended", f"the bot is not allowed on the ladder {lad.slug!r} while it is suspended "
                                          f"({bot.suspended_reason}); run the trial under a preset instead")
        if lad.seats_per_match != seats:
            raise TrialError("invalid_opponents", f"the ladder {lad.slug!r} seats {lad.seats_per_match} per match: "
                                                  f"name {lad.seats_per_match - 1} opponents, not {seats - 1}")
        return Ruleset.from_dict(lad.ruleset), lad.preset, lad, lad.turn_timeout_ms
    preset = "pagat" if preset is None else preset
    if not isinstance(preset, str) or preset not in PRESETS:
        raise TrialError("unknown_preset", f"{str(preset)[:40]!r} is no preset: choose one of {', '.join(PRESETS)}")
    ruleset = Ruleset.preset(preset)
    try:
        if not ruleset.seats_min <= seats <= ruleset.seats_max:
            raise ValueError(f"it seats {ruleset.seats_min} to {ruleset.seats_max}")
        check_ruleset_seats(ruleset, seats)
    except ValueError as exc:
        raise TrialError("invalid_opponents", f"preset {preset!r} cannot seat {seats} ({exc}): name a number of "
                                              "opponents it allows, or choose another preset") from None
    return ruleset, preset, None, settings.BOT_TURN_TIMEOUT_MS


def _match_count(*, matches: object, seeds: list[int] | None, duplicate: bool, seats: int) -> int:
    per_seed = seats if duplicate else 1
    cap = settings.TRIAL_MAX_MATCHES
    if matches is not None and (isinstance(matches, bool) or not isinstance(matches, int) or matches < 1):
        raise TrialError("invalid_matches", f"matches is a whole number from 1 to {cap}")
    if seeds is not None:
        wanted = len(seeds) * per_seed
        if matches is not None and matches != wanted:
            raise TrialError("invalid_matches", f"{len(seeds)} seeds make {wanted} matches"
                                                + (f" ({seats} rotations each, duplicate)" if duplicate else "")
                                                + f": give matches {wanted}, or leave it out")
        matches = wanted
    if matches is None:
        raise TrialError("invalid_matches", f"give matches (1 to {cap}) or a seed set (seeds)")
    if matches > cap:
        raise TrialError("too_many_matches", f"a trial plays at most {cap} matches (TRIAL_MAX_MATCHES), not "
                                             f"{matches}")
    if duplicate and matches % seats:
        raise TrialError("invalid_matches", f"a duplicate trial plays sets of {seats} matches (one per seat): give "
                                            f"a multiple of {seats}, e.g. {max(seats, matches - matches % seats)}")
    return matches


def _try_lock(user_id: int) -> bool:
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_OWNER_LOCK, user_id % 2**31])
        return bool(cursor.fetchone()[0])


def trials_running(*, owner) -> int:
    """How many of ``owner``'s trials have a match still running (a waiting one included)."""
    return (Trial.objects.filter(owner=owner, trial_matches__match__status=Match.Status.RUNNING)
            .values("pk").distinct().count())


def _check_limits(owner, matches: int) -> None:
    running = trials_running(owner=owner)
    if running >= settings.TRIAL_RUNNING_PER_OWNER:
        raise TrialRefused(f"You have {running} trials running (limit {settings.TRIAL_RUNNING_PER_OWNER} running "
                           "trials per owner, TRIAL_RUNNING_PER_OWNER): wait for one to finish.", 60)
    since = timezone.now() - timedelta(days=1)
    recent = list(Trial.objects.filter(owner=owner, created_at__gte=since).order_by("created_at")
                  .values_list("created_at", "match_count"))
    used = sum(n for _at, n in recent)
    cap = settings.TRIAL_MATCHES_PER_DAY
    if used + matches > cap:
        # the earliest moment enough of the window's matches have aged out
        free, wait = cap - used, 60
        for at, n in recent:
            free += n
            wait = max(1, math.ceil((at + timedelta(days=1) - timezone.now()).total_seconds()))
            if free >= matches:
                break
        raise TrialRefused(f"{used} trial matches started in the last 24 hours and {matches} more would pass the limit "
                           f"of {cap} per owner (TRIAL_MATCHES_PER_DAY): ask for fewer, or try again in {wait} s.",
                           wait)


def trial_create(*, bot: Bot, opponents: object = None, matches: object = None, preset: object = None,
                 ladder: object = None, seeds: object = None, duplicate: object = False) -> Trial:
    """Create and queue an unrated trial of ``bot`` (the caller's: ``selectors.access_bot``).

    ``opponents``: a list of names (``_opponent``); the match seats the bot and them (1 + len); missing (None) is
    ``invalid_opponents`` like any other non-list. ``preset`` (default
    pagat) or ``ladder`` (a slug: its rules and bot turn timeout; never rated there). ``matches``: 1 to
    ``TRIAL_MAX_MATCHES``; with ``seeds`` (a list of distinct integers, 0 to 2**53 - 1) one match per seed, or one
    per seat with ``duplicate``, and ``matches`` may be left out. The bot's seat rotates from match to match; under
    ``duplicate`` each seed is played once from each seat (the rotations), one after another.

    Raises ``TrialError`` (400/409: what is wrong and what would be right) and ``TrialRefused`` (429: an owner's
    limit, ``TRIAL_RUNNING_PER_OWNER`` running trials or ``TRIAL_MATCHES_PER_DAY`` matches a day, or another
    trial of the owner being created this instant). No bot is called here (no outbound call in a web request).
    """
    if not bot.is_enabled:
        raise TrialError("disabled", "enable the bot first (PATCH /api/bots/{id}/ with is_enabled true)")
    if bot.verified_at is None:
        raise TrialError("not_verified", "verify the bot first: POST /api/bots/{id}/verify/ runs the conformance "
                                         "checks, which it must pass")
    if not isinstance(duplicate, bool):
        raise TrialError("invalid_duplicate", "duplicate is true or false")
    if not isinstance(opponents, list) or not opponents:
        raise TrialError("invalid_opponents", "opponents is a non-empty list, e.g. [\"house:heuristic\"]")
    if len(opponents) > 7:
        raise TrialError("invalid_opponents", f"a match seats at most 8: name 1 to 7 opponents, not {len(opponents)}")
    seed_list = _check_seeds(seeds)
    seats = 1 + len(opponents)
    ruleset, preset_name, lad, timeout = _rules(preset=preset, ladder=ladder, bot=bot, seats=seats)
    count = _match_count(matches=matches, seeds=seed_list, duplicate=duplicate, seats=seats)
    with transaction.atomic():
        players = [_opponent(name, bot=bot) for name in opponents]
        if len({p.pk for p in players}) != len(players):
            raise TrialError("invalid_opponents", "each opponent takes one seat: name each once (house strategies "
                                                  "may be named once each)")
        if not _try_lock(bot.owner_id):
            raise TrialRefused("Another trial of yours is being created right now; try again in 1 s.", 1)
        _check_limits(bot.owner, count)
        trial = Trial.objects.create(
            bot=bot, owner=bot.owner, bot_version=bot.reported_version, opponents=list(opponents),
            opponent_players=[p.pk for p in players], preset=preset_name, ruleset=ruleset.to_dict(), ladder=lad,
            seat_count=seats, match_count=count, seeds=seed_list, duplicate=duplicate, turn_timeout_ms=timeout)
        _create_matches(trial, [bot.player, *players], ruleset)
    return trial


def _create_matches(trial: Trial, players: list[Player], ruleset: Ruleset) -> None:
    """The trial's matches in ``TRIAL_PARALLEL_MATCHES`` lanes (see the module docstring); the lanes' first matches
    are queued on commit, the others are woken by the end of the one before them."""
    seats = trial.seat_count
    seatings = rotations(players)  # seating r puts the bot (players[0]) in seat r
    per_unit = seats if trial.duplicate else 1
    units = trial.match_count // per_unit
    lanes = max(1, settings.TRIAL_PARALLEL_MATCHES)
    last_in_lane: list[Match | None] = [None] * lanes
    number = 0
    for unit in range(units):
        # fixed seeds deal reproducible cards (the author chose them); else one fresh secret a unit (its rotations)
        seed = trial.seeds[unit] if trial.seeds is not None else None
        secret = None if seed is not None else new_match_secret()
        lane = unit % lanes
        group = f"trial-{trial.pk}-{unit}" if trial.duplicate else ""
        for r in range(per_unit):
            rotation = r if trial.duplicate else unit % seats
            match = match_create(players=seatings[rotation], ruleset=ruleset, preset=trial.preset, seed=seed,
                                 secret=secret,
                                 turn_timeout_ms=trial.turn_timeout_ms, reveal_group=group,
                                 after=last_in_lane[lane], same_owner_ok=True)
            TrialMatch.objects.create(trial=trial, match=match, number=number, bot_seat=rotation,
                                      rotation=r if trial.duplicate else None)
            if last_in_lane[lane] is None:
                match_wake(match_id=match.pk)
            last_in_lane[lane] = match
            number += 1


def is_trial_match(*, match_id: int) -> bool:
    """Whether ``match_id`` is a trial's match (unrated, left out of the fault policy)."""
    return TrialMatch.objects.filter(match_id=match_id).exists()


# ---- read ---------------------------------------------------------------------------------------------------------

def access_trial(*, user, trial_id: int) -> Trial:
    """The trial ``trial_id`` if ``user`` owns it; ``Http404`` otherwise (the same answer for missing and foreign)."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("no such trial")
    trial = Trial.objects.filter(pk=trial_id, owner=user).select_related("bot__player", "ladder").first()
    if trial is None:
        raise Http404(f"you have no trial with id {trial_id}")
    return trial


def trial_list(*, bot: Bot):
    """The bot's trials, newest first."""
    return Trial.objects.filter(bot=bot).select_related("bot__player", "ladder")


def wilson_interval(wins: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval (default 95 %) of a proportion ``wins`` / ``n``; None when ``n`` is 0."""
    if n <= 0:
        return None
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[float], z: float = Z95) -> tuple[float | None, tuple[float, float] | None]:
    """(mean, its normal 95 % interval: mean +- z * s / sqrt(n), s the sample standard deviation); (None, None)
    without values, no interval with one."""
    n = len(values)
    if n == 0:
        return None, None
    mean = sum(values) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return mean, (mean - half, mean + half)


def _rows(trial: Trial) -> list[dict]:
    """The trial's matches in order, as of one read: each with its status, seats, the bot's result and, when the
    match is public, its replay link (the seed too when the owner chose it or the match is public)."""
    entries = list(TrialMatch.objects.filter(trial=trial).select_related("match__after")
                   .prefetch_related("match__seats__player", "match__deals").order_by("number"))
    rows = []
    for entry in entries:
        match = entry.match
        seats = sorted(match.seats.all(), key=lambda s: s.index)
        mine = seats[entry.bot_seat]
        finished = match.status == Match.Status.FINISHED
        public = finished and match_is_public(match=match)
        points = [d.points[entry.bot_seat] for d in sorted(match.deals.all(), key=lambda d: d.number)
                  if d.points is not None]
        rows.append({
            "number": entry.number, "match_id": match.pk, "status": match.status, "rotation": entry.rotation,
            "seed": match.seed if (trial.seeds is not None or public) else None,
            "bot_seat": entry.bot_seat, "players": [s.player.name for s in seats],
            "waiting": (match.status == Match.Status.RUNNING and match.after is not None
                        and match.after.status == Match.Status.RUNNING),
            "bot_total": mine.total if finished else None, "bot_place": mine.place if finished else None,
            "forfeited": mine.forfeited if finished else False,
            "win": (mine.place == 1) if finished else None,
            "deals": len(points), "points": points if finished else [],
            "match_url": reverse("match-detail", args=[match.pk]),
            "replay_url": reverse("match-replay", args=[match.pk]) if public else None,
        })
    return rows


def _summary(trial: Trial, rows: list[dict]) -> dict:
    done = [r for r in rows if r["status"] == Match.Status.FINISHED]
    wins = sum(1 for r in done if r["win"])
    points = [p for r in done for p in r["points"]]
    mean, interval = mean_interval(points)
    ci = wilson_interval(wins, len(done))
    lower = Ruleset.from_dict(trial.ruleset).lower_total_wins
    return {
        "finished": len(done), "aborted": sum(1 for r in rows if r["status"] == Match.Status.ABORTED),
        "running": sum(1 for r in rows if r["status"] == Match.Status.RUNNING),
        "wins": wins, "win_rate": wins / len(done) if done else None,
        "win_rate_ci95": list(ci) if ci else None,
        "deals": len(points), "mean_points_per_deal": mean,
        "mean_points_per_deal_ci95": list(interval) if interval else None,
        "lower_points_are_better": lower,
    }


def _status(rows: list[dict]) -> str:
    return "running" if any(r["status"] == Match.Status.RUNNING for r in rows) else "finished"


def trial_previous(*, trial: Trial) -> Trial | None:
    """The latest earlier trial of the same bot on the same fixed seed set, opponents, rules and seating, of another
    version (``bot_version``: what the bot said in its matches, ``bots_api.versions.match_version_ask``), or None
    (a trial on random seeds, or no such trial): the one "this version" is compared with."""
    if trial.seeds is None:
        return None
    return (Trial.objects.filter(bot_id=trial.bot_id, seeds=trial.seeds, opponent_players=trial.opponent_players,
                                 ruleset=trial.ruleset, duplicate=trial.duplicate, pk__lt=trial.pk)
            .exclude(bot_version=trial.bot_version)  # never a version against itself
            .order_by("-pk").first())


def trial_overview(*, trial: Trial) -> dict:
    """A trial without its match rows (the list's shape): settings, status and summary."""
    rows = _rows(trial)
    return {**_head(trial), "status": _status(rows), "summary": _summary(trial, rows)}


def _head(trial: Trial) -> dict:
    return {"id": trial.pk, "bot_id": trial.bot_id, "bot": trial.bot.player.name, "bot_version": trial.bot_version,
            "created_at": trial.created_at, "preset": trial.preset,
            "ladder": trial.ladder.slug if trial.ladder_id else None, "seats": trial.seat_count,
            "opponents": trial.opponents, "matches": trial.match_count, "duplicate": trial.duplicate,
            "seeds": trial.seeds, "url": reverse("trial-detail", args=[trial.pk])}


def trial_detail(*, trial: Trial) -> dict:
    """The trial page's and ``GET /api/trials/<id>/``'s data: ``_head`` fields, ``status`` (running or finished),
    ``results`` (``_rows``), ``summary`` (``_summary``) and ``comparison`` (None, or the previous comparable trial's
    ``id``, ``bot_version``, ``summary`` and per match number this trial's and that one's place and total)."""
    rows = _rows(trial)
    out = {**_head(trial), "status": _status(rows), "results": rows, "summary": _summary(trial, rows),
           "comparison": None}
    previous = trial_previous(trial=trial)
    if previous is not None:
        before = {r["number"]: r for r in _rows(previous)}
        out["comparison"] = {
            "trial_id": previous.pk, "bot_version": previous.bot_version,
            "url": reverse("trial-detail", args=[previous.pk]),
            "summary": _summary(previous, list(before.values())),
            "matches": [{"number": r["number"], "seed": r["seed"], "bot_seat": r["bot_seat"],
                         "this_place": r["bot_place"], "this_total": r["bot_total"],
                         "last_place": before.get(r["number"], {}).get("bot_place"),
                         "last_total": before.get(r["number"], {}).get("bot_total"),
                         "last_match_id": before.get(r["number"], {}).get("match_id")} for r in rows],
        }
    return out
