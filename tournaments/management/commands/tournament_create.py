"""Create a tournament of named players (house bots by name, e.g. Professor) and print its id."""

from django.core.management.base import BaseCommand, CommandError

from games.models import Player
from tournaments.tournament_services import TournamentError, tournament_create, tournament_register


class Command(BaseCommand):
    help = ("Create a tournament, register the named players (house bots, bots or people by player name) and print "
            "the new tournament's id; play it with `manage.py tournament_run ID`.")

    def add_arguments(self, parser):
        parser.add_argument("--format", required=True, choices=["round_robin", "swiss", "knockout"])
        parser.add_argument("--duplicate", action="store_true",
                            help="each pod plays the same cards once per seat rotation (2 seats: the mirror)")
        parser.add_argument("--preset", default="pagat", help="ruleset preset (default pagat)")
        parser.add_argument("--seats", type=int, default=2, help="seats per match (default 2)")
        parser.add_argument("--entrants", required=True, help="player names, comma-separated")
        parser.add_argument("--rounds", type=int, default=None, help="Swiss: rounds (default 3)")
        parser.add_argument("--k", type=int, default=1, help="round robin: matches per pairing (default 1)")
        parser.add_argument("--target", type=int, default=None, help="points that end a match (default: preset's)")
        parser.add_argument("--name", default=None, help="the tournament's name")

    def handle(self, *args, format, duplicate, preset, seats, entrants, rounds, k, target, name, **options):
        names = [n.strip() for n in entrants.split(",") if n.strip()]
        if len(set(names)) != len(names):
            raise CommandError("--entrants names a player twice: name each once")
        players = {p.name: p for p in Player.objects.filter(name__in=names)}
        missing = [n for n in names if n not in players]
        if missing:
            houses = ", ".join(Player.objects.filter(kind=Player.Kind.HOUSE).values_list("name", flat=True))
            raise CommandError(f"no player named {missing[0]!r}; house bots: {houses or 'none (run demo_setup)'}")
        name = name or f"{format.replace('_', ' ').title()}{' duplicate' if duplicate else ''} ({preset}, {seats} seats)"
        try:
            tournament = tournament_create(name=name, format=format, preset=preset, seats_per_match=seats,
                                           rounds=rounds, matches_per_pairing=k, target=target, duplicate=duplicate)
            for n in names:
                tournament_register(tournament=tournament, player=players[n])
        except TournamentError as exc:
            raise CommandError(exc.detail) from None
        self.stdout.write(str(tournament.pk))
