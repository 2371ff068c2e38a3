"""Hollywood scoring (RULES.md system A1): three games kept at once, written deal by deal (``HollywoodScore``)."""

from __future__ import annotations

from .rules import Ruleset


class HollywoodScore:
    """Hollywood scoring (system A1, 2 seats): ``hollywood_games`` games are kept at once.

    A seat's first deal won is written in the first open game only, its second in the first two, its third and
    later in all of them (the points it collected in that deal). A game ends when a seat's score in it reaches
    the target: that seat wins the game (``target_reached_wins``, the usual convention) or loses it (the source's
    wording, ``target_reached_wins=false``). A new game opens in its place until ``hollywood_total_games`` games
    have been opened; the match ends when all of them are finished.
    """

    def __init__(self, ruleset: Ruleset, target: int) -> None:
        self.target = target
        self.reached_wins = ruleset.target_reached_wins
        self.total_games = ruleset.hollywood_total_games
        self.open: list[dict] = []
        self.finished: list[dict] = []
        self.deals_won = [0, 0]
        self.games_won = [0, 0]
        self.opened = 0
        for _ in range(ruleset.hollywood_games):
            self._open()

    def _open(self) -> None:
        self.opened += 1
        self.open.append({"game": self.opened, "scores": [0, 0]})

    @property
    def is_over(self) -> bool:
        return len(self.finished) >= self.total_games

    def add_deal(self, points: list[int]) -> None:
        """Write a deal's points: the seat that scored (if any) writes into its first k open games."""
        for seat in (0, 1):
            if points[seat] <= 0:
                continue
            self.deals_won[seat] += 1
            for game in self.open[: self.deals_won[seat]]:
                game["scores"][seat] += points[seat]
        for game in list(self.open):
            scores = game["scores"]
            if max(scores) >= self.target:
                reacher = 0 if scores[0] >= scores[1] else 1
                winner = reacher if self.reached_wins else 1 - reacher
                self.games_won[winner] += 1
                self.finished.append({**game, "winner": winner})
                self.open.remove(game)
                if self.opened < self.total_games:
                    self._open()

    def to_dict(self) -> dict:
        return {"open": [dict(g, scores=list(g["scores"])) for g in self.open],
                "finished": [dict(g, scores=list(g["scores"])) for g in self.finished],
                "games_won": list(self.games_won), "deals_won": list(self.deals_won)}
