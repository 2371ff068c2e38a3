"""How to play, on the site (issue 10 part 5): a rules page per preset, per ladder and per match, written from the
ruleset's options (eights_engine.describe), linked from the table, the ladder and the match pages. The page of every
preset and of random option mixes names each option in force."""

import html
import random
import re

import pytest
from django.urls import reverse

from eights_engine import PRESETS, Ruleset
from eights_engine.describe import describe_rules
from eights_engine.rules import _CHOICES

WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def _text(response) -> str:
    """The page's words as a reader gets them: tags dropped, entities decoded, spaces squeezed."""
    body = response.content.decode()
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _w(n):
    return WORDS.get(n, str(n))


def expected_phrases(r: Ruleset, seats: int) -> list[str]:
    """An oracle written apart from describe.py: for each option in force, words the page must say."""
    out = [f"{_w(r.seats_min)} to {_w(r.seats_max)} players" if r.seats_min != r.seats_max
           else f"exactly {_w(r.seats_min)} players",
           "36-card deck" if r.ranks == "36" else "52-card deck"]
    if r.deck_count(seats) == 2:
        out.append("two ")
    if r.partnership:
        out.append("Partnership")
    if r.hand_size == "all":
        out.append("whole deck is dealt out")
    else:
        n = r.cards_per_hand(seats)
        out.append(f"dealt {_w(n)} card")
        out.append({"dealer_declares": "the dealer is taken to have played it", "reshuffle": "shuffled back into the stock",
                    "bury": "middle of the stock", "own_suit": "its own printed suit"}[r.starter_eight])
        out.append({"one": "one card per turn", "until_playable": "until a card that fits comes",
                    "up_to": f"at most {_w(r.draw_limit)} card"}[r.draw])
        out.append("even when you could play" if r.voluntary_draw else "Forced play")
        out.append({"drawn_only": {"one": "If the card you drew fits", "until_playable": "only the card you drew",
                                   "up_to": "only the card you just drew"}[r.draw],
                    "any": "After drawing you may play any card", "none": "Drawing ends your turn"}[r.play_after_draw])
        out.append("you press Pass" if r.explicit_pass else "your turn ends by itself")
        if r.empty_stock == "reshuffle":
            out.append("you stop drawing" if r.stock_out_ends_turn else "you go on drawing")
        else:
            out.append("never reshuffled")
    out.append({"anytime": "an eight fits on anything", "match_suit": "an eight is not wild",
                "no_declare": "Eights name no new suit"}[r.eights])
    out.append("You may go out on an eight" if r.go_out_on_eight else "You may not go out on an eight")
    if r.twos != "off":
        out.append("winding twos" if r.twos == "winding" else "answer with a two")
    if r.queen_of_spades_draw:
        out.append("Queen of spades: the next player draws five")
    if r.skip_rank:
        out.append("Jack:" if r.skip_rank == "J" else "Queen (other than" if r.queen_of_spades_draw else "Queen:")
    if r.reverse_rank:
        out.append("direction of play reverses")
        out.append("lets you play again" if r.reverse_two_seats == "skip" else "does nothing special")
    else:
        out.append("no direction arrow")
    if r.last_card_penalty:
        out.append("Last card")
    if r.twos != "off" or r.queen_of_spades_draw or r.skip_rank or r.reverse_rank:
        out.append("without its effect" if r.action_on_going_out == "void" else "still has its effect")
    out.append({"penalty": "Penalty scoring", "winner_collects": "The winner collects",
                "hollywood": "Hollywood scoring"}[r.scoring])
    out.append("= 66" if r.card_values == "standard" else "20 + 10 + 15 + 5 = 50")
    if r.blocked == "lowest_collects_difference" and r.scoring != "penalty":
        out.append("split the winnings" if r.blocked_tie == "split" else "nobody scores")
    out.append(f"past {r.ply_limit} moves")
    target = r.target_for(seats)
    out.append(f"{target} points" if not r.target_per_seat else f"{r.target_per_seat} points per player")
    if r.scoring == "hollywood":
        out.append(f"{_w(r.hollywood_games).capitalize()} game")
        out.append(f"all {r.hollywood_total_games} games")
        out.append("wins that game" if r.target_reached_wins else "loses that game")
    else:
        out.append("the lowest total wins" if r.scoring == "penalty" else "the highest total wins")
        out.append("share first place" if r.match_tie == "share" else "play goes on deal by deal")
    out.append("Seat 0 plays first" if r.first_player == "left_of_dealer" else "won the previous deal plays first")
    out.append("passes one seat to the left" if r.dealer_rotates else "The same seat deals every deal")
    return out


def _random_ruleset(rng: random.Random) -> Ruleset:
    """A valid mix of options drawn field by field (values from the ruleset's own checks)."""
    pools = {
        "seats_min": range(2, 9), "seats_max": range(2, 9), "decks": ["auto", 1, 2], "ranks": ["52", "36"],
        "hand_size": ["auto", "all", *range(1, 11)], "draw_limit": range(1, 8), "target": [50, 100, 150, 300],
        "target_per_seat": [0, 0, 50], "hollywood_games": range(1, 4), "hollywood_total_games": range(1, 6),
        "queen_of_spades_draw": [0, 5], "skip_rank": [None, "J", "Q"], "reverse_rank": [None, "A"],
        "last_card_penalty": [0, 2], "ply_limit": [10, 1000],
    }
    for _ in range(10000):
        d = {}
        for name, check in _CHOICES.items():
            pool = pools.get(name)
            if pool is None:
                pool = [v for v in ("anytime", "match_suit", "no_declare", "dealer_declares", "reshuffle", "bury",
                                    "own_suit", "one", "until_playable", "up_to", "drawn_only", "any", "none", "pass",
                                    "off", "stack", "winding", "skip", "noop", "void", "apply", "penalty",
                                    "winner_collects", "hollywood", "standard", "each_own",
                                    "lowest_collects_difference", "split", "nobody", "share", "play_on",
                                    "left_of_dealer", "previous_winner", True, False) if check(v)]
            d[name] = rng.choice(list(pool))
        try:
            return Ruleset.from_dict(d)
        except ValueError:
            continue
    raise AssertionError("no valid mix drawn")


@pytest.mark.django_db
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_has_a_rules_page_naming_its_options(client, preset):
    r = Ruleset.preset(preset)
    page = client.get(reverse("rules-preset", args=[preset]))
    assert page.status_code == 200
    text = _text(page)
    for section in describe_rules(r):
        assert section.title in text
        for paragraph in section.paragraphs:
            assert paragraph in text
    assert 'first_player "previous_winner"' in text or r.first_player != "previous_winner"
    assert "<code>true</code>" in page.content.decode() and "None" not in text and "True" not in text
    for seats in (r.seats_min, r.seats_max):  # a seat count of the preset's range: ?seats=
        text = _text(client.get(reverse("rules-preset", args=[preset]) + f"?seats={seats}"))
        for phrase in expected_phrases(r, seats):
            assert phrase in text, (preset, seats, phrase)


@pytest.mark.django_db
def test_the_rules_index_lists_every_preset(client):
    text = client.get(reverse("rules-index")).content.decode()
    for preset in PRESETS:
        assert reverse("rules-preset", args=[preset]) in text


@pytest.mark.django_db
def test_unknown_preset_or_seat_count_answers_plainly(client):
    page = client.get(reverse("rules-preset", args=["no-such-preset"]))
    assert page.status_code == 404
    page = client.get(reverse("rules-preset", args=["hollywood"]) + "?seats=5")
    assert page.status_code == 404 and b"2 to 2 seats" in page.content
    assert client.get(reverse("rules-preset", args=["pagat"]) + "?seats=x").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(12))
def test_a_ladder_with_a_random_option_mix_is_described_exactly(client, house_bots, seed):
    from tournaments.services import ladder_create

    rng = random.Random(seed)
    r = _random_ruleset(rng)
    if r.scoring == "hollywood":  # a ladder must seat what its ruleset plays: hollywood scoring is for 2 seats
        r = Ruleset.from_dict({**r.to_dict(), "seats_min": 2, "seats_max": 2, "partnership": False})
    seats = rng.randint(r.seats_min, r.seats_max)
    if r.partnership:
        seats = 4
    ladder = ladder_create(name=f"Mix {seed}", slug=f"mix-{seed}", preset="pagat", seats_per_match=seats,
                           overrides=r.to_dict())
    page = client.get(reverse("ladder-rules", args=[ladder.slug]))
    assert page.status_code == 200
    text = _text(page)
    for phrase in expected_phrases(r, seats):
        assert phrase in text, (r, seats, phrase)
    detail = client.get(reverse("ladder-detail", args=[ladder.slug])).content.decode()
    assert reverse("ladder-rules", args=[ladder.slug]) in detail


@pytest.mark.django_db
def test_a_match_has_a_rules_page_linked_from_its_pages(client, house_bots):
    from django.contrib.auth import get_user_model

    from games.services import match_create, player_for_user

    user = get_user_model().objects.create_user("reader", password="a-long-pass-9876")
    r = Ruleset.preset("web-table", twos="winding", reverse_rank="A")
    match = match_create(players=[player_for_user(user=user), house_bots[0], house_bots[1]], ruleset=r, seed=7)
    page = client.get(reverse("match-rules", args=[match.pk]))
    assert page.status_code == 200
    text = _text(page)
    for phrase in expected_phrases(r, 3):
        assert phrase in text, phrase
    assert "This table has three seats" in text
    rules_url = reverse("match-rules", args=[match.pk])
    assert rules_url in client.get(reverse("match-detail", args=[match.pk])).content.decode()
    client.force_login(user)
    assert rules_url in client.get(reverse("match-table", args=[match.pk])).content.decode()
    assert client.get(reverse("match-rules", args=[999999])).status_code == 404


@pytest.mark.django_db
def test_the_footer_links_the_rules(client):
    assert reverse("rules-index") in client.get(reverse("home")).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("seats", ["%C2%B2", "%E2%91%A0", "%D9%A2", "%EF%BC%92", "+2", "%202", "2_0", "0002"])
def test_seats_is_ascii_digits_only(client, seats):
    """Superscript two, circled one, Arabic-Indic and fullwidth digits pass str.isdigit() (or int()): a 404 page
    saying seats is a number, never a 500 and never read as a number (breaker F5)."""
    page = client.get(reverse("rules-preset", args=["pagat"]) + f"?seats={seats}")
    assert page.status_code == 404 and b"seats is a number" in page.content
