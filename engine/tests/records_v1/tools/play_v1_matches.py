"""Play the engine-version-1 test matches through the service (run from a checkout of commit 3983c7e):

    EIGHTS_VAR_DIR=/tmp/v1rec-var .venv/bin/python manage.py migrate -v0
    EIGHTS_VAR_DIR=/tmp/v1rec-var .venv/bin/python manage.py shell -c "exec(open('out/play_v1_matches.py').read())"

House bots only (the demo's HOUSE_BOTS, made by games.services.player_house_create), one finished match per preset
(games.services.match_create, then games.services.match_advance in ladder-loop-sized slices until "finished"),
one "Play this deal" replay of the pagat match's first deal (games.services.deal_replay_create; its person seat
played with match_submit_action, choosing with the heuristic strategy), and one duplicate set (pagat, 2 seats:
tournaments.duplicate_services.duplicate_set_create on a duplicate ladder). Writes out/match_ids.json:
{file name stem: match id}. Records are exported afterwards with manage.py export_matches (out/split_records.py).
"""

import json
from pathlib import Path

from django.contrib.auth import get_user_model

from eights_engine import Ruleset
from eights_engine.strategies import choose
from games.models import Match
from games.selectors import match_state_snapshot, seat_view
from games.services import (deal_replay_create, match_advance, match_create, match_submit_action,
                            player_house_create)
from tournaments.duplicate_services import duplicate_set_create
from tournaments.management.commands.demo_setup import HOUSE_BOTS
from tournaments.services import ladder_create, ladder_entry_create

OUT = Path("out")
MAX_BYTES = 300_000

house = {name: player_house_create(name=name, strategy=strategy, description=description)
         for name, strategy, description in HOUSE_BOTS}
ORDER = ["Professor", "Old Hand", "Greedy Gus", "Eager Ed"]  # seat order; the first n are seated

#: (preset, seats, overrides, first seed to try)
PLAN = [
    ("pagat", 2, {}, 101),
    ("web-table", 3, {}, 201),
    ("eights-classic", 4, {"partnership": True}, 301),  # as the demo's classic-partners ladder
    ("crazy-eights", 3, {}, 401),  # the preset's own target is 300, as the demo's crazy-eights-300 ladder
    ("points-game", 4, {}, 501),
    ("hollywood", 2, {}, 601),
    ("no-draw", 4, {}, 701),  # the preset seats exactly 4 (seats_min = seats_max = 4)
    ("russian-36", 3, {}, 801),
]


def play_out(match_id: int) -> str:
    """The ladder loop's way: slices of at most 12 plies until the match ends."""
    while True:
        outcome = match_advance(match_id=match_id, ply_budget=12, time_budget_ms=250)
        if outcome != "budget":
            return outcome


def pretty_size(match: Match) -> int:
    from games.selectors import match_export

    return len(json.dumps(match_export(match=match), indent=1))


ids: dict[str, int] = {}
for preset, seats, overrides, seed in PLAN:
    ruleset = Ruleset.preset(preset, **overrides)
    for attempt in range(10):
        match = match_create(players=[house[n] for n in ORDER[:seats]], ruleset=ruleset, preset=preset,
                             seed=seed + attempt)
        outcome = play_out(match.pk)
        match.refresh_from_db()
        assert outcome == "finished" and match.status == Match.Status.FINISHED, (preset, outcome, match.status)
        size = pretty_size(match)
        print(f"{preset}: match {match.pk} seed {match.seed} seats {seats}: {match.deals.count()} deals, "
              f"{match.ply_count} plies, ~{size} bytes pretty")
        if size <= MAX_BYTES:
            ids[preset] = match.pk
            break
    else:
        raise SystemExit(f"{preset}: no match under {MAX_BYTES} bytes in 10 seeds")

# "Play this deal": the pagat match's first deal, a person in seat 0 against the same house strategies
user = get_user_model().objects.filter(username="v1rec").first() or get_user_model().objects.create_user(
    "v1rec", password="v1rec-not-a-real-password-1")
pagat = Match.objects.get(pk=ids["pagat"])
code = pagat.deals.order_by("number").first().code
replay = deal_replay_create(code=code, user=user, seat=0)
while True:
    outcome = play_out(replay.pk)
    if outcome == "finished" or Match.objects.get(pk=replay.pk).status != Match.Status.RUNNING:
        break  # the bots' last ply ended it, or the person's move did (then "not_running")
    assert outcome == "waiting", outcome
    snapshot = match_state_snapshot(match=Match.objects.get(pk=replay.pk))
    seats = list(replay.seats.select_related("player__user").order_by("index"))
    view = seat_view(snapshot=snapshot, seat=0, seats=seats)
    assert view["your_turn"], view
    action = choose("heuristic", view["view"], view["legal_actions"], snapshot.state.deal.seed)
    match_submit_action(match_id=replay.pk, seat=0, ply=view["ply"], action=action, user=user)
replay.refresh_from_db()
print(f"single-deal-pagat: match {replay.pk} (deal code {code} of match {pagat.pk}): {replay.deals.count()} deal, "
      f"{replay.ply_count} plies, status {replay.status}")
ids["single-deal-pagat"] = replay.pk

# a duplicate set: pagat, 2 seats, a match and its mirror from one seed
ladder = ladder_create(name="Duplicate (v1 records)", slug="duplicate-v1rec", preset="pagat", seats_per_match=2,
                       duplicate=True)
for name in ORDER[:2]:
    ladder_entry_create(ladder=ladder, player=house[name])
rotations = duplicate_set_create(ladder=ladder, players=[house[n] for n in ORDER[:2]], seed=901)
for rotation, match in enumerate(rotations):
    outcome = play_out(match.pk)
    match.refresh_from_db()
    assert outcome == "finished" and match.status == Match.Status.FINISHED, (rotation, outcome, match.status)
    print(f"duplicate-pagat rotation {rotation}: match {match.pk} seed {match.seed}: {match.deals.count()} deals, "
          f"{match.ply_count} plies")
    ids[f"duplicate-pagat-rotation{rotation}"] = match.pk

(OUT / "match_ids.json").write_text(json.dumps(ids, indent=1) + "\n", encoding="utf-8")
print(json.dumps(ids))
