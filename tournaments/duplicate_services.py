"""Duplicate ladder matches, the database part: create a duplicate set, rate it once when all of it is finished, and
read it for its page. The scoring is in ``tournaments.duplicate`` (pure).

A duplicate ladder (``Ladder.duplicate``) plays each pairing the scheduler makes as a set of ``rotations``: n matches
with one match seed (so deal k deals seat s the same cards with the same dealer in each of them), all created and
queued together but played one after another (``Match.after``: a rotation waits, running, until the previous one
ends; played at once, each entrant would see its opponent's hand and the stock from its own seat in the mirror),
sharing ``Match.reveal_group`` so that none publishes its seeds, codes, hands or record while one of
them runs (``games.matches.exports.match_is_public``). The ratings move once per set, from ``duplicate.combined_places``,
when its last match finishes; a set with an aborted match is not rated (as an aborted match is not).

What duplicate cannot hide: a bot plays every seat of the set's deals (one per match), so it has seen the starting hand
its opponent holds in the other match. A bot that remembers hands across matches could use that, as in any duplicate
format between the same two players (duplicate poker between bots has the same limit). People are never seated in a
duplicate set: Play now on a duplicate ladder starts an ordinary rated match.
"""

from __future__ import annotations


from django.db import transaction
from django.utils import timezone

from eights_engine import Ruleset
from games.models import Match, Player
from games.services import match_create, new_match_secret
from tournaments.duplicate import SetMatch, combined_places, deal_swings, rotations, swing_totals
from tournaments.models import DuplicateSet, DuplicateSetMatch, Ladder, LadderMatch
from tournaments.seasons import season_open


def duplicate_set_create(*, ladder: Ladder, players: list[Player], seed: int | None = None) -> list[Match]:
    """Create a duplicate set of ``players`` (seat order of its first match) on ``ladder``: one rated ladder match per
    rotation, all dealt the same cards: from one fresh match secret shared by the set (``new_match_secret``), or from
    match seed ``seed`` when one is given (reproducible), under the ladder's rules, bot turn timeout and
    move clock. Returns the matches in rotation order; the caller queues them (``match_wake``), as for any ladder
    match. Rotation r + 1 is played only once rotation r has ended (``Match.after``): the same entrants never hold
    the same cards in two running matches (with two seats, X's hand in one is Y's hand in the other). ``ValueError`` as ``games.services.match_create`` raises it (e.g. two players of one owner)."""
    secret = new_match_secret() if seed is None else None
    ruleset = Ruleset.from_dict(ladder.ruleset)
    with transaction.atomic():
        dup = DuplicateSet.objects.create(ladder=ladder, seed=seed, seat_count=len(players))
        season = season_open(ladder=ladder)  # every rotation belongs to the season the set started in
        matches = []
        for rotation, seating in enumerate(rotations(players)):
            match = match_create(players=seating, ruleset=ruleset, preset=ladder.preset, seed=seed, secret=secret,
                                 turn_timeout_ms=ladder.turn_timeout_ms, move_seconds=ladder.move_seconds,
                                 reveal_group=dup.reveal_key, after=matches[-1] if matches else None)
            LadderMatch.objects.create(ladder=ladder, match=match, season=season)
            DuplicateSetMatch.objects.create(duplicate_set=dup, match=match, rotation=rotation)
            matches.append(match)
    return matches


def on_set_match_finished(*, match: Match) -> bool:
    """The rating hook (``tournaments.services.on_match_finished``, inside the transaction that finished ``match``):
    False when ``match`` belongs to no duplicate set (rate it on its own). Otherwise True, and when this was the last
    running match of its set, the set is rated once from its combined result (``rate_set``), or marked void when a
    match of it was aborted.

    Two matches of a set finishing at once: each transaction locks the set's row after writing its own match's end,
    and reads its siblings' status only then; the second to get the lock sees the first one's end committed, so
    exactly one of them finds the set complete."""
    entry = DuplicateSetMatch.objects.filter(match=match).first()
    if entry is None:
        return False
    dup = DuplicateSet.objects.select_for_update().get(pk=entry.duplicate_set_id)
    if dup.rated_at is not None or dup.void_reason:
        return True
    statuses = dict(Match.objects.filter(duplicate_entry__duplicate_set=dup).values_list("id", "status"))
    statuses[match.pk] = match.status
    if Match.Status.RUNNING in statuses.values():
        return True
    if Match.Status.ABORTED in statuses.values():
        dup.void_reason = "a match of the set was aborted: the set is not rated"
        dup.save(update_fields=["void_reason"])
        return True
    rate_set(duplicate_set=dup)
    return True


def set_matches(duplicate_set: DuplicateSet) -> list[SetMatch]:
    """The set's matches as ``duplicate.SetMatch`` (player ids by seat, finished deals' points, the forfeiter) in
    rotation order."""
    return [set_match_of(entry.match) for entry in duplicate_set.set_matches.select_related("match")
            .prefetch_related("match__seats", "match__deals").order_by("rotation")]


def set_match_of(match: Match) -> SetMatch:
    """One match of a duplicate set or pod as the scoring reads it: player ids by seat, the points of its finished
    deals in deal order, the player who forfeited it (or None). Prefetch ``seats`` and ``deals`` for many."""
    seats = sorted(match.seats.all(), key=lambda s: s.index)
    deals = sorted((d for d in match.deals.all() if d.points is not None), key=lambda d: d.number)
    forfeited = next((s.player_id for s in seats if s.forfeited), None)
    return SetMatch.of([s.player_id for s in seats], [d.points for d in deals], forfeited)


def rate_set(*, duplicate_set: DuplicateSet) -> None:
    """Rate a complete set once: openskill from ``combined_places`` (``ladder_rate_match`` with the places of the
    set, its rating changes stored against the set's first match), then every match of the set marked rated. Call
    holding the set's row lock (``on_set_match_finished``)."""
    from tournaments.services import ladder_rate_match  # services calls this module from its rating hook

    ladder = duplicate_set.ladder
    ruleset = Ruleset.from_dict(ladder.ruleset)
    places = combined_places(set_matches(duplicate_set), lower_is_better=ruleset.lower_total_wins,
                             partnership=ruleset.partnership)
    first = duplicate_set.set_matches.select_related("match").order_by("rotation").first()
    ladder_match = LadderMatch.objects.select_for_update().get(match=first.match)
    ladder_rate_match(ladder_match=ladder_match, places=places)
    now = timezone.now()
    LadderMatch.objects.filter(match__duplicate_entry__duplicate_set=duplicate_set).update(rated_at=now)
    duplicate_set.rated_at = now
    duplicate_set.save(update_fields=["rated_at"])


def duplicate_set_page(*, duplicate_set: DuplicateSet) -> dict:
    """The set page's data: ``matches`` (rotation order: match, seats with players, totals, status), ``running``
    (whether a match of it runs: then no deal code is shown), ``deals`` (per common deal: number, per seat the
    points each match scored with those cards, and per player the swing), ``players`` (with their duplicate score
    and combined place, once every match is finished) and ``common`` (how many deals are compared)."""
    entries = list(duplicate_set.set_matches.select_related("match")
                   .prefetch_related("match__seats__player", "match__deals").order_by("rotation"))
    matches = [e.match for e in entries]
    running = any(m.status == Match.Status.RUNNING for m in matches)
    scored = set_matches(duplicate_set)
    ruleset = Ruleset.from_dict(matches[0].ruleset)
    lower = ruleset.lower_total_wins
    players = {s.player_id: s.player for m in matches for s in m.seats.all()}
    order = scored[0].seating
    codes = {}
    if not running and matches[0].status == Match.Status.FINISHED:  # the same codes in every match of the set
        codes = {d.number: d.code for d in matches[0].deals.all()}
    rows = []
    for k, swings in enumerate(deal_swings(scored, lower_is_better=lower), start=1):
        rows.append({"number": k, "code": codes.get(k),
                     "seats": [[sm.deal_points[k - 1][s] for sm in scored] for s in range(duplicate_set.seat_count)],
                     "swings": [float(swings[p]) for p in order]})
    totals = swing_totals(scored, lower_is_better=lower, partnership=ruleset.partnership)
    complete = not running and all(m.status == Match.Status.FINISHED for m in matches)
    places = combined_places(scored, lower_is_better=lower, partnership=ruleset.partnership) if complete else {}
    return {
        "matches": [{"match": m, "rotation": e.rotation, "seats": sorted(m.seats.all(), key=lambda s: s.index),
                     "deals": sum(1 for d in m.deals.all() if d.points is not None)} for e, m in zip(entries, matches)],
        "running": running, "deals": rows, "common": len(rows), "lower_is_better": lower,
        "players": [{"player": players[p], "score": float(totals[p]), "place": places.get(p)} for p in order],
    }
