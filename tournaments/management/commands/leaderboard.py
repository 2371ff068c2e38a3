"""Print the leaderboards of the ladders (one, or every active one), and how sure each order is."""

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Ladder
from tournaments.selectors import ladder_leaderboard, ladder_trust


class Command(BaseCommand):
    help = "Print the leaderboard of a ladder (default: of every active ladder) and how sure its order is."

    def add_arguments(self, parser):
        parser.add_argument("--ladder", default=None, help="ladder slug (default: every active ladder)")

    def handle(self, *args, ladder, **options):
        if ladder is None:
            ladders = list(Ladder.objects.filter(is_active=True).order_by("created_at", "pk"))
            if not ladders:
                raise CommandError("there is no active ladder: run `python manage.py demo_setup` first")
        else:
            ladders = list(Ladder.objects.filter(slug=ladder))
            if not ladders:
                slugs = ", ".join(Ladder.objects.values_list("slug", flat=True)) or "none; run demo_setup first"
                raise CommandError(f"no ladder {ladder!r}; ladders: {slugs}")
        for i, lad in enumerate(ladders):
            if i:
                self.stdout.write("")
            self._board(lad)

    def _board(self, lad: Ladder) -> None:
        self.stdout.write(f"{lad.name} ({lad.slug}): rank by rating = mu - 3 sigma (openskill Plackett-Luce); "
                          "'-' = provisional")
        self.stdout.write(f"{'rank':>4}  {'player':<14} {'rating':>7} {'mu':>6} {'sigma':>6} {'matches':>7} {'wins':>5}")
        board = ladder_leaderboard(ladder=lad)
        for e in board:
            rank = "-" if e.provisional else e.rank
            self.stdout.write(f"{rank:>4}  {e.player.name:<14} {e.ordinal:>7.2f} {e.mu:>6.2f} {e.sigma:>6.2f} "
                              f"{e.matches_played:>7} {e.wins:>5}")
        trust = ladder_trust(board=board)
        if trust["pairs"] or trust["provisional"]:
            self.stdout.write("How sure is this order (the chance the one above is really stronger):")
            for sentence in [*trust["pairs"], *([trust["provisional"]] if trust["provisional"] else [])]:
                self.stdout.write(f"  {sentence}")
