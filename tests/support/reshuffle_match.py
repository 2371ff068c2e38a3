"""A stored match brought to the moment a person's draw reshuffles the discard pile (issue 10, part 3): for the
service, replay and browser tests of the ``reshuffle`` history entry."""

from __future__ import annotations

from eights_engine import Ruleset

#: pagat with 20-card hands: 2 seats leave a stock of 11 cards, so the stock runs out within a few turns
SMALL_STOCK = Ruleset.preset("pagat", hand_size=20)


def match_at_a_reshuffle(*, user, person, bot, ruleset: Ruleset = SMALL_STOCK, seed: int = 1, limit: int = 400):
    """A running match, ``person`` (the user's player) at seat 0 against house ``bot``, played through the
    services (seat 0 draws whenever it may, else plays its first legal action; the bot answers by
    ``match_advance``) until it is seat 0's turn with an empty stock and a draw that must reshuffle. Returns the
    match; ``AssertionError`` when ``limit`` plies pass without that."""
    from eights_engine.actions import DRAW
    from games.models import Match
    from games.selectors import match_state
    from games.services import match_advance, match_create, match_submit_action

    match = match_create(players=[person, bot], ruleset=ruleset, seed=seed, move_seconds=600)
    for _ in range(limit):
        match_advance(match_id=match.pk)
        match = Match.objects.get(pk=match.pk)
        assert match.status == Match.Status.RUNNING, "the match ended before a reshuffle"
        state = match_state(match=match)
        if state.to_play != 0:
            continue
        ids = state.legal_ids()
        if DRAW in ids and state.deal.stock_count == 0:
            return match
        action = {"type": "draw"} if DRAW in ids else state.legal_actions()[0]
        match_submit_action(match_id=match.pk, seat=0, ply=match.ply_count, action=action, user=user)
    raise AssertionError("no reshuffle within the limit")
