"""Create the demo ladders and their house bots (idempotent): the default ladder (pagat unless told otherwise) and
one ladder for each other rule system of RULES.md (``SYSTEM_LADDERS``), so the demo shows every system playing."""

from datetime import timedelta

from django.conf import settings
from django.core.management import call_command
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
    ("Maven", "expert", "searches: plays each legal action out in hundreds of deals it cannot tell from the real one "
     "and takes the one that scored best"),
]

#: the demo's duplicate ladder and who plays on it (house bots of HOUSE_BOTS)
DUPLICATE_SLUG = "duplicate"
DUPLICATE_BOTS = ["Old Hand", "Professor", "Greedy Gus", "Eager Ed"]


#: The rule-system ladders beside the default one: (slug, name, preset, seats, overrides). One match at a time
#: each, so `make run` stays light; every house bot is on each, and people join through Play now.
SYSTEM_LADDERS = [
    ("web-table-3", "Web table (B), 3 seats", "web-table", 3, {}),
    ("classic-partners", "Eights classic (A), partners 2 against 2", "eights-classic", 4, {"partnership": True}),
    ("crazy-eights-300", "Crazy eights (C), race to 300", "crazy-eights", 3, {"target": 300}),
    ("points-game-4", "Points game (E), 4 seats", "points-game", 4, {}),
    ("hollywood", "Hollywood eights (A1)", "hollywood", 2, {}),
]


class Command(BaseCommand):
    help = ("Create the demo ladder (pagat, 2 seats, to 100 points) and a ladder for each other rule system "
            "(web-table 3 seats, eights-classic partners, crazy-eights to 300, points-game 4 seats, hollywood), and "
            "put the house bots on them; the duplicate ladder 'duplicate' (pagat, 2 seats, mirrored matches) with four "
            "of them; and play a small Swiss tournament of house bots once.")

    def add_arguments(self, parser):
        parser.add_argument("--preset", default="pagat", help="ruleset preset of the demo ladder (default pagat)")
        parser.add_argument("--seats", type=int, default=2, help="seats per match (default 2)")
        parser.add_argument("--target", type=int, default=None,
                            help="points that end a match (default: the preset's, e.g. 100 for pagat)")
        parser.add_argument("--max-running", type=int, default=3, help="matches running at once (default 3)")
        parser.add_argument("--slug", default="demo", help="the ladder's slug (default demo); a ladder that has "
                            "matches keeps its rules, so use a new slug for other rules")
        parser.add_argument("--only", action="store_true",
                            help="create only this ladder, not the rule-system ladders beside it")

    def handle(self, *args, preset, seats, target, max_running, slug, only, **options):
        if target is not None and not 1 <= target <= 100_000:
            raise CommandError(f"--target must be from 1 to 100000 points, not {target}")
        if not 1 <= max_running <= 1000:
            raise CommandError(f"--max-running must be from 1 to 1000, not {max_running}")
        try:
            ladder = ladder_create(name=f"Demo ladder ({preset}, {seats} seats)", slug=slug, preset=preset,
                                   seats_per_match=seats, target=target, max_running_matches=max_running)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        house = {name: player_house_create(name=name, strategy=strategy, description=description)
                 for name, strategy, description in HOUSE_BOTS}
        bots = list(house.values())
        ladders = [ladder]
        if not only:
            for system_slug, name, system_preset, system_seats, overrides in SYSTEM_LADDERS:
                try:
                    ladders.append(ladder_create(name=name, slug=system_slug, preset=system_preset,
                                                 seats_per_match=system_seats, overrides=overrides,
                                                 max_running_matches=1))
                except ValueError as exc:  # e.g. a ladder of this slug that played under other rules
                    raise CommandError(f"ladder {system_slug!r}: {exc}") from None
        for lad in ladders:
            for bot in bots:
                ladder_entry_create(ladder=lad, player=bot)
            self.stdout.write(self.style.SUCCESS(
                f"ladder '{lad.slug}' ready: {lad.entries.count()} players, preset {lad.preset}, "
                f"{lad.seats_per_match} seats, to {lad.target} points"))
        if not only:
            ladders.append(self._duplicate_ladder(house))
        self._demo_seasons(ladders)
        self._demo_tournament()

    def _demo_seasons(self, ladders: list) -> None:
        """The demo ladders run in short seasons (``DEMO_SEASON_MINUTES``), so a newcomer sees one end and the next
        begin; a ladder given another length (the admin) keeps it."""
        from tournaments.models import Ladder

        length = timedelta(minutes=settings.DEMO_SEASON_MINUTES)
        Ladder.objects.filter(pk__in=[lad.pk for lad in ladders], season_length__isnull=True).update(
            season_length=length)

    def _demo_tournament(self) -> None:
        """A finished Swiss tournament of six house bots (3 rounds, matches to 50: a few seconds), played here once."""
        from games.models import Player
        from tournaments.models import Tournament
        from tournaments.tournament_services import tournament_create, tournament_register

        if Tournament.objects.filter(slug="demo-swiss").exists():
            return
        names = [name for name, _strategy, _description in HOUSE_BOTS[:6]]
        t = tournament_create(name="Demo Swiss", slug="demo-swiss", format="swiss", rounds=3, target=50,
                              entrants="bots")
        for player in Player.objects.filter(name__in=names, kind=Player.Kind.HOUSE):
            tournament_register(tournament=t, player=player)
        call_command("tournament_run", str(t.pk), stdout=self.stdout)

    def _duplicate_ladder(self, house: dict) -> None:
        """-- duplicate play: a duplicate ladder (pagat, 2 seats: each pairing plays a match and its mirror
        from one seed, rated once from the combined result), kept running by the ladder loop like the others."""
        ladder = ladder_create(name="Duplicate ladder (pagat, 2 seats, mirrored)", slug=DUPLICATE_SLUG, preset="pagat",
                               seats_per_match=2, max_running_matches=2, duplicate=True)
        for name in DUPLICATE_BOTS:
            ladder_entry_create(ladder=ladder, player=house[name])
        self.stdout.write(self.style.SUCCESS(
            f"ladder '{ladder.slug}' ready: {ladder.entries.count()} players, duplicate play (a match and its mirror)"))
        return ladder
