"""Deterministic shuffles: pinned test vectors, deal codes, and the engine's independence from Django.

The vectors below were computed once with the documented algorithm (``eights_engine/rng.py``) and are
hard-coded on purpose: if they change, every stored deal code deals different cards and old records stop
replaying. Change them only together with ``ENGINE_VERSION``.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from eights_engine import Deal, Ruleset, deal_code, seed_from_code
from eights_engine.cards import card_code, deck_cards
from eights_engine.rng import MASK64, SplitMix64, derive_seed

ROOT = Path(__file__).resolve().parents[2]

SPLITMIX_42_0 = [
    4136323552446367313,
    9864988799632599451,
    17709404964179864864,
    499371262291791522,
    7930181224850740700,
]

SHUFFLE_2026 = [
    "KD", "QH", "QC", "JH", "TC", "QD", "5D", "6S", "KH", "4D", "AC", "JD", "2H",
    "8H", "7S", "6H", "2D", "3D", "AH", "5S", "2S", "TS", "7C", "5H", "9D", "8D",
    "QS", "KS", "TD", "3C", "3S", "AD", "7H", "9S", "AS", "4H", "4S", "3H", "7D",
    "JS", "9H", "JC", "8S", "TH", "4C", "5C", "8C", "6C", "KC", "2C", "9C", "6D",
]


def test_splitmix64_vector():
    rng = SplitMix64(42, 0)
    assert [rng.next() for _ in range(5)] == SPLITMIX_42_0


def test_splitmix64_outputs_are_64_bit_and_purpose_changes_stream():
    a, b = SplitMix64(42, 0), SplitMix64(42, 1)
    xs = [a.next() for _ in range(20)]
    ys = [b.next() for _ in range(20)]
    assert all(0 <= x <= MASK64 for x in xs + ys)
    assert xs != ys


def test_shuffle_vector_seed_2026():
    deck = deck_cards()
    SplitMix64(2026, 0).shuffle(deck)
    assert [card_code(c) for c in deck] == SHUFFLE_2026
    assert sorted(deck) == sorted(deck_cards())


def test_deal_start_uses_the_pinned_shuffle():
    """Deal.start deals from the end of the shuffled deck, one card at a time from the dealer's left."""
    deal = Deal.start(Ruleset.preset("pagat"), 2, 2026, dealer=0)
    shuffled = list(SHUFFLE_2026)
    expected = [[], []]
    for _ in range(7):
        for seat in (1, 0):
            expected[seat].append(shuffled.pop())
    assert deal.hand(0) == [card_code(c) for c in sorted(deck_cards()) if card_code(c) in expected[0]]
    assert deal.hand(1) == [card_code(c) for c in sorted(deck_cards()) if card_code(c) in expected[1]]
    assert deal.top_card == shuffled.pop()
    assert deal.stock_count == len(shuffled)


def test_same_seed_same_deal_and_code_equals_seed():
    rules = Ruleset.preset("pagat")
    a = Deal.start(rules, 3, 2026)
    b = Deal.start(rules, 3, deal_code(2026))
    assert a.hands == b.hands and a.stock == b.stock and a.discard == b.discard
    assert a.code == deal_code(2026)
    c = Deal.start(rules, 3, 2027)
    assert (a.hands, a.stock) != (c.hands, c.stock)


def test_derive_seed_is_deterministic_and_40_bit():
    assert derive_seed(7, 1) == derive_seed(7, 1)
    assert derive_seed(7, 1) != derive_seed(7, 2)
    assert all(0 <= derive_seed(s, k) < 2**40 for s in range(20) for k in range(1, 5))


@pytest.mark.parametrize("seed", [0, 1, 31, 32, 2026, 2**40 - 1, 2**40, 123456789012345, MASK64])
def test_deal_code_round_trip(seed):
    code = deal_code(seed)
    assert len(code) >= 8
    assert code.isalnum() and code == code.upper()
    assert seed_from_code(code) == seed
    assert seed_from_code(code.lower()) == seed
    assert seed_from_code(code[:4] + "-" + code[4:]) == seed


def test_deal_code_known_values():
    assert deal_code(0) == "00000000"
    assert deal_code(2026) == "000001ZA"
    assert deal_code(2**40 - 1) == "ZZZZZZZZ"


def test_deal_code_confusable_letters():
    assert seed_from_code("0000000O") == seed_from_code("00000000") == 0
    assert seed_from_code("0000000I") == seed_from_code("0000000L") == 1


@pytest.mark.parametrize("bad", ["", "   ", "ABC!DEFG", "0000000U", "héllo", None, 12, "Z" * 14])
def test_bad_codes_raise_value_error(bad):
    with pytest.raises(ValueError):
        seed_from_code(bad)


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "12", True, None])
def test_bad_seeds_raise_value_error(bad):
    with pytest.raises(ValueError):
        deal_code(bad)


def test_deal_start_rejects_bad_code():
    with pytest.raises(ValueError):
        Deal.start(Ruleset.preset("pagat"), 2, "not a code!")


def test_engine_imports_without_django():
    code = (
        "import sys; import eights_engine; "
        "bad = sorted(m for m in sys.modules if m.startswith('django')); "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"eights_engine pulled in Django modules: {proc.stdout} {proc.stderr}"
    assert proc.stdout.strip() == ""
