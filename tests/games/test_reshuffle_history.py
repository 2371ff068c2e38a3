"""The reshuffle entry (issue 10, part 3) outside the engine: in the seat API's view, in the bot protocol's turn
body (valid under the v1 schema), and in the history a stored match rebuilds when it is replayed."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient
from reshuffle_match import match_at_a_reshuffle

from eights_engine.bots.protocol import schema_errors, turn_request
from eights_engine import replay
from eights_engine.referee import turn_for
from games.models import Match, Move
from games.selectors import match_record, match_state
from games.services import match_advance, match_submit_action, player_for_user


@pytest.mark.django_db
def test_a_stored_reshuffle_is_in_the_seat_view_the_turn_body_and_the_replayed_history(house_bots):
    user = get_user_model().objects.create_user("shuffler", password="pw-shuf-12345")
    match = match_at_a_reshuffle(user=user, person=player_for_user(user=user), bot=house_bots[3])
    before = match_state(match=match)
    discard = before.deal.view(0)["discard_count"]
    ply = match.ply_count
    match_submit_action(match_id=match.pk, seat=0, ply=ply, action={"type": "draw"}, user=user)
    match = Match.objects.get(pk=match.pk)
    stored = list(Move.objects.filter(deal__match=match).order_by("deal__number", "ply")
                  .values_list("seat", "action"))[ply:]
    assert stored[0] == (0, {"type": "draw"}), stored  # the reshuffle stored no ply of its own
    assert all(seat == 1 for seat, _ in stored[1:]), stored  # only the house's answers, stored with the draw
    entry = {"seat": 0, "type": "reshuffle", "count": discard - 1}

    state = replay(match_record(match=match))  # the replay data: the stored actions give the entry back
    history = state.deal.history
    assert entry in history and history[history.index(entry) + 1] == {"seat": 0, "type": "draw"}
    for seat in range(2):
        assert entry in state.view(seat)["history"]

    client = APIClient()
    client.force_authenticate(user)
    view = client.get(f"/api/matches/{match.pk}/seats/0/").json()["view"]
    assert entry in view["history"]

    match_advance(match_id=match.pk)  # the bot's turn comes, or seat 0 plays on: either way a turn body
    state = match_state(match=Match.objects.get(pk=match.pk))
    assert not state.is_over and state.deal.history[:len(history)] == history  # the same deal goes on
    body = turn_request(turn_for(state, match_id=match.pk, deadline_ms=1000, time_bank_ms=5000))
    assert entry in body["view"]["history"]
    assert schema_errors("turn", body) == []
