"""Engine version 2's dealing (eights_engine/keys.py, rng.KeyStream; docs/FAIRNESS.md "Version 2"): pinned vectors,
an independent re-implementation from the documented algorithm alone, key sizes, independence of a match's deals,
uniform shuffles, contributions, and version 1 records that keep verifying."""

import hashlib
import json
import math
import os
import struct
from pathlib import Path

import pytest

from eights_engine import MatchState, Ruleset, choose, replay
from eights_engine.cards import deck_cards
from eights_engine.deal import ENGINE_VERSION, Deal
from eights_engine.keys import (
    deal_key, deal_key_commitment, encode_contributions, key_code, secret_commitment, secret_from_seed,
)
from eights_engine.match import ReplayMismatch
from eights_engine.record import summary, verify_record
from eights_engine.rng import KeyStream, seed_from_code

SECRET = bytes(range(32))
RECORDS_V1 = Path(__file__).parent / "records_v1"


# ---- pinned vectors (docs/FAIRNESS.md quotes them) ------------------------------------------------------------------

def test_pinned_vectors():
    assert secret_from_seed(1).hex() == "e44c83014f571dc55b0e176c0e76ef1e741ff2873885d4276e8e7fa4e38106e9"
    assert secret_commitment(SECRET) == "abc7e407a2b1753efd71a83f270cdbaf1d24399d59e21852318d4232ce21ed95"
    assert secret_commitment(SECRET, [7, 12]) == "0386bcd92e3a58c0c7ec012545af7c5b70369eaec76916a132e404ee70cd08b1"
    key = deal_key(SECRET, 1)
    assert key.hex() == "18617be8f07a9f302fafa4d1d4cabcde6af99814f273f1d4aa4d954c68f6dfa4"
    assert deal_key(SECRET, 2, [bytes.fromhex("aa" * 32), None]).hex() == (
        "92bbaa1225033b05e1aaa714d830553d2208cbea3ae44d14c720ec8c4c7ceadc")
    assert deal_key_commitment(key) == "6fea13b622af671c58e78c9dec0bc65582f48259e5b15c602471bc1cb2dfd7ae"
    assert key_code(key) == "UWZG5EV1WMKYZ"
    stream = KeyStream(key, 0)
    assert [stream.next() for _ in range(5)] == [0xa6a4f6a172b6c0ed, 0xca735300da240b66, 0x3c652ecfc92d53f4,
                                                 0x753adabc32e89cec, 0xa0a6fd6310630ec4]
    deck = list(range(52))
    KeyStream(key, 0).shuffle(deck)
    assert deck[:12] == [49, 16, 26, 21, 36, 27, 34, 1, 25, 35, 40, 33]


def _sha(label: str, *parts: bytes) -> bytes:
    return hashlib.sha256(f"eights-ladder/v2/{label}".encode() + b"\0" + b"".join(parts)).digest()


def _documented_shuffle(key: bytes, purpose: int, n: int) -> list[int]:
    """Fisher-Yates over SHA-256 in counter mode, written again from docs/FAIRNESS.md alone."""
    words, block = [], 0

    def nxt() -> int:
        nonlocal words, block
        if not words:
            digest = hashlib.sha256(key + purpose.to_bytes(4, "big") + block.to_bytes(8, "big")).digest()
            words, block = list(struct.unpack(">4Q", digest)), block + 1
        return words.pop(0)

    items = list(range(n))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = 2**64 - 2**64 % bound
        while (x := nxt()) >= limit:
            pass
        j = x % bound
        items[i], items[j] = items[j], items[i]
    return items


@pytest.mark.parametrize("number", [1, 2, 7])
def test_the_documented_algorithm_alone_deals_the_same_cards(number):
    """Anyone can re-deal a version 2 deal from the published secret: the key, the shuffle and the hands follow
    from the text of docs/FAIRNESS.md, without this engine."""
    secret = secret_from_seed(2026)
    assert secret == _sha("seed", (2026).to_bytes(8, "big"))
    key = _sha("deal", secret, number.to_bytes(4, "big"), b"\0")
    assert key == deal_key(secret, number)
    rules = Ruleset.preset("pagat")
    deck = deck_cards(rules.ranks, 1)
    order = [deck[i] for i in _documented_shuffle(key, 0, len(deck))]
    deal = Deal.start(rules, 2, key, dealer=1)
    hands = [[], []]
    for k in range(7):  # one card at a time from the top (the end of the list), starting left of the dealer
        for seat in (0, 1):
            hands[seat].append(order.pop())
    assert [sorted(h) for h in hands] == [sorted(deal.hands[0]), sorted(deal.hands[1])]


def test_contributions_are_encoded_as_documented():
    assert encode_contributions(None) == encode_contributions([None, b""]) == b"\0"
    assert encode_contributions([b"\x01\x02", None, b"\xff"]) == bytes([3, 2, 1, 2, 0, 1, 0xff])
    with pytest.raises(ValueError, match="0 to 32 bytes"):
        encode_contributions([b"x" * 33])


# ---- sizes and independence -----------------------------------------------------------------------------------------

def test_a_new_match_secret_and_every_deal_key_are_256_bits():
    state = MatchState.start(Ruleset.preset("pagat"), 2, secret=os.urandom(32))
    assert state.version == ENGINE_VERSION == "2" and len(state.secret) == 32
    keys = [state.deal_seed(n) for n in range(1, 40)]
    assert all(isinstance(k, bytes) and len(k) == 32 for k in keys) and len(set(keys)) == len(keys)


def test_no_deal_of_a_match_derives_from_a_smaller_secret():
    """A deal key changes with every bit of the 256-bit secret (so no smaller part of it decides the cards), and two
    deals of one match share nothing but that secret."""
    base = deal_key(SECRET, 3)
    for bit in range(256):
        flipped = bytearray(SECRET)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert deal_key(bytes(flipped), 3) != base, bit
    one, two = deal_key(SECRET, 1), deal_key(SECRET, 2)
    assert bin(int.from_bytes(one, "big") ^ int.from_bytes(two, "big")).count("1") in range(80, 177)


def test_a_match_is_reproducible_from_a_chosen_seed_and_from_its_secret_alike():
    rules = Ruleset.preset("web-table")
    by_seed, by_secret = MatchState.start(rules, 3, 42), MatchState.start(rules, 3, secret=secret_from_seed(42).hex())
    assert by_seed.deal.hands == by_secret.deal.hands
    with pytest.raises(ValueError, match="not the one seed 41 gives"):
        MatchState.start(rules, 3, 41, secret=secret_from_seed(42))
    with pytest.raises(ValueError, match="secret"):
        MatchState.start(rules, 3)


def test_every_card_lands_in_every_position_uniformly():
    """Chi-square of the 52 x 52 table (card, position) over 20,000 shuffles, one key each: within five standard
    deviations of its mean (df = 51 * 51); and the same for the top card of the stock after a pagat deal."""
    trials = 20_000
    counts = [[0] * 52 for _ in range(52)]
    for t in range(trials):
        deck = list(range(52))
        KeyStream(deal_key(SECRET, 1 + t), 0).shuffle(deck)
        for position, card in enumerate(deck):
            counts[card][position] += 1
    expected = trials / 52
    chi2 = sum((c - expected) ** 2 / expected for row in counts for c in row)
    df = 51 * 51
    assert abs(chi2 - df) < 5 * math.sqrt(2 * df), chi2
    rules = Ruleset.preset("pagat")
    tops = [0] * 52
    for t in range(5_000):
        tops[Deal.start(rules, 2, deal_key(SECRET, 1 + t)).stock[-1]] += 1
    chi2 = sum((c - 5_000 / 52) ** 2 / (5_000 / 52) for c in tops)
    assert abs(chi2 - 51) < 5 * math.sqrt(2 * 51), chi2


# ---- contributions --------------------------------------------------------------------------------------------------

def test_a_contribution_changes_its_deal_and_no_other():
    rules = Ruleset.preset("pagat")
    plain = MatchState.start(rules, 2, secret=SECRET)
    given = MatchState.start(rules, 2, secret=SECRET, contributions={2: ["ab" * 16, None]})
    assert plain.deal_seed(1) == given.deal_seed(1) and plain.deal_seed(3) == given.deal_seed(3)
    assert plain.deal_seed(2) != given.deal_seed(2)
    assert given.deal_seed(2) == deal_key(SECRET, 2, [bytes.fromhex("ab" * 16), None])


@pytest.mark.parametrize("bad", [["zz", None], ["ab" * 33, None], ["AB", None], ["abc", None], ["ab"], "ab"])
def test_a_malformed_contribution_list_is_refused(bad):
    with pytest.raises(ValueError, match="contribution"):
        MatchState.start(Ruleset.preset("pagat"), 2, secret=SECRET, contributions={2: bad})


def test_a_deal_already_dealt_takes_no_contribution():
    state = MatchState.start(Ruleset.preset("pagat"), 2, secret=SECRET)
    with pytest.raises(ValueError, match="dealt already"):
        state.contribute(1, ["ab", None])
    state.contribute(2, ["ab", None])
    with pytest.raises(ValueError, match="version 2"):
        MatchState.start(Ruleset.preset("pagat"), 2, 5, version="1").contribute(2, [None, None])


# ---- records --------------------------------------------------------------------------------------------------------

def _played(contributions: dict | None = None) -> dict:
    state = MatchState.start(Ruleset.preset("pagat", target=60), 2, secret=SECRET, contributions=contributions)
    while not state.is_over:
        state.apply(choose("heuristic", state.view(state.to_play), state.legal_actions(), state.deal.seed))
    return state.record()


def test_a_version_2_record_states_its_version_secret_keys_and_commitments_and_verifies():
    record = _played({2: [None, "cd" * 32]})
    assert record["engine_version"] == "2" and record["secret"] == SECRET.hex()
    assert record["commitment"] == secret_commitment(SECRET) and "seed" not in record
    assert record["deals"][1]["contributions"] == [None, "cd" * 32]
    for deal in record["deals"]:
        assert len(deal["key"]) == 64 and deal["commitment"] == deal_key_commitment(bytes.fromhex(deal["key"]))
    state = verify_record(record)
    assert "engine version 2" in summary(record, state) and replay(record).totals == state.totals


@pytest.mark.parametrize("change, message", [
    ("secret", "match: commitment expected"),
    ("commitment", "match: commitment expected"),
    ("key", "deal 2: key expected"),
    ("deal_commitment", "deal 2: commitment expected"),
    ("contribution", "deal 2: key expected"),
    ("code", "deal 2: code expected"),
])
def test_a_changed_secret_key_contribution_or_commitment_is_refused_at_the_first_deal_that_differs(change, message):
    record = _played({2: [None, "cd" * 32]})
    record["deals"][1]["code"] = key_code(bytes.fromhex(record["deals"][1]["key"]))
    if change == "secret":
        record["secret"] = "00" * 32
    elif change == "commitment":
        record["commitment"] = "00" * 32
    elif change == "key":
        record["deals"][1]["key"] = "00" * 32
    elif change == "deal_commitment":
        record["deals"][1]["commitment"] = "00" * 32
    elif change == "contribution":
        record["deals"][1]["contributions"] = [None, "ce" * 32]
    else:
        record["deals"][1]["code"] = "U0000000000000"[:13]
    with pytest.raises(ReplayMismatch, match=message):
        verify_record(record)


def test_a_version_2_code_names_a_deal_and_deals_nothing():
    code = key_code(deal_key(SECRET, 1))
    assert code[0] == "U" and len(code) == 13
    with pytest.raises(ValueError, match="version 2 deal"):
        seed_from_code(code)
    with pytest.raises(ValueError, match="version 2 deal"):
        Deal.start(Ruleset.preset("pagat"), 2, code)


@pytest.mark.parametrize("path", sorted(RECORDS_V1.glob("*.json")), ids=lambda p: p.stem)
def test_a_record_exported_before_version_2_still_verifies(path):
    """Records exported by the service at engine version 1 (engine/tests/records_v1/README.md says how they were
    made): every one verifies with this engine, commitments and all, and names version 1."""
    record = json.loads(path.read_text())
    assert record["engine_version"] == "1" and all("salt" in d for d in record["deals"])
    state = verify_record(record)
    assert state.version == "1" and "every deal's commitment opened" in summary(record, state)
    record["deals"][-1]["seed"] += 1
    with pytest.raises(ReplayMismatch, match="seed"):
        verify_record(record)


def test_every_preset_has_a_version_1_record():
    from eights_engine import PRESETS

    assert {json.loads(p.read_text())["preset"] for p in RECORDS_V1.glob("*.json")} >= set(PRESETS)
