"""Create the demo ladder and its house bots (idempotent)."""

from django.core.management.base import BaseCommand, CommandError

from games.services import player_house_create
from tournaments.services import ladder_create, ladder_entry_create

HOUSE_BOTS = [
    ("Rando", "random", "plays a uniformly random legal action"),
    ("Eager Ed", "eager", "plays the first card that fits, draws only when stuck"),
    ("Greedy Gus", "greedy", "sheds the highest-value card that fits"),
    ("Professor", "heuristic", "holds eights, follows its longest suit, sheds high cards"),
    ("Rando Jr", "random", "another random player, to fill the ladder"),
    ("Counsel", "heuristic", "a second heuristic player"),
    ("Old Hand", "tactician", "plays the web table's tactics: holds eights while its hand is long, leads into its "
     "longest suit once a suit is gone, changes suit or sheds its dearest card when someone is on a last card"),
]

#: the demo's duplicate ladder and who plays on it (house bots of HOUSE_BOTS)
DUPLICATE_SLUG = "duplicate"
DUPLICATE_BOTS = ["Old Hand", "Professor", "Greedy Gus", "Eager Ed"]


class Command(BaseCommand):
    help = ("Create the demo ladder (pagat, 2 seats, to 100 points) and put the house bots on it, and the duplicate "
            "ladder 'duplicate' (pagat, 2 seats, mirrored matches) with four of them.")

    def add_arguments(self, parser):
        parser.add_argument("--preset", default="pagat", help="ruleset preset of the demo ladder (default pagat)")
        parser.add_argument("--seats", type=int, default=2, help="seats per match (default 2)")
        parser.add_argument("--target", type=int, default=None,
                            help="points that end a match (default: the preset's, e.g. 100 for pagat)")
        parser.add_argument("--max-running", type=int, default=3, help="matches running at once (default 3)")
        parser.add_argument("--slug", default="demo", help="the ladder's slug (default demo); a ladder that has "
                            "matches keeps its rules, so use a new slug for other rules")

    def handle(self, *args, preset, seats, target, max_running, slug, **options):
        if target is not None and not 1 <= target <= 100_000:
            raise CommandError(f"--target must be from 1 to 100000 points, not {target}")
        if not 1 <= max_running <= 1000:
            raise CommandError(f"--max-running must be from 1 to 1000, not {max_running}")
        try:
            ladder = ladder_create(name=f"Demo ladder ({preset}, {seats} seats)", slug=slug, preset=preset,
                                   seats_per_match=seats, target=target, max_running_matches=max_running)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        house = {}
        for name, strategy, description in HOUSE_BOTS:
            house[name] = player_house_create(name=name, strategy=strategy, description=description)
            ladder_entry_create(ladder=ladder, player=house[name])
        self.stdout.write(self.style.SUCCESS(
            f"ladder '{ladder.slug}' ready: {ladder.entries.count()} players, preset {preset}, to {ladder.target} points"))
        self._duplicate_ladder(house)

    def _duplicate_ladder(self, house: dict) -> None:
        """-- duplicate play (issue 12): a duplicate ladder (pagat, 2 seats: each pairing plays a match and its mirror
        from one seed, rated once from the combined result), kept running by the ladder loop like the others."""
        ladder = ladder_create(name="Duplicate ladder (pagat, 2 seats, mirrored)", slug=DUPLICATE_SLUG, preset="pagat",
                               seats_per_match=2, max_running_matches=4, duplicate=True)
        for name in DUPLICATE_BOTS:
            ladder_entry_create(ladder=ladder, player=house[name])
        self.stdout.write(self.style.SUCCESS(
            f"ladder '{ladder.slug}' ready: {ladder.entries.count()} players, duplicate play (a match and its mirror)"))
