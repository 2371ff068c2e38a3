"""Settings read from the environment refuse what they cannot mean, naming the variable and the range."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_float


@pytest.mark.parametrize("raw, value", [("0.25", 0.25), ("1", 1.0), (" 0.5 ", 0.5), ("", 0.25)])
def test_a_share_in_range_is_read(raw, value, monkeypatch):
    monkeypatch.setenv("BOT_FAILED_MATCH_FAULT_SHARE", raw)
    assert env_float("BOT_FAILED_MATCH_FAULT_SHARE", 0.25, 0.01, 1.0) == value


@pytest.mark.parametrize("raw, words", [("0", "out of range"), ("1.5", "out of range"), ("nan", "out of range"),
                                        ("half", "is not a number"), ("-0.1", "out of range")])
def test_a_share_out_of_range_or_not_a_number_is_refused(raw, words, monkeypatch):
    monkeypatch.setenv("BOT_FAILED_MATCH_FAULT_SHARE", raw)
    with pytest.raises(ImproperlyConfigured, match=words) as err:
        env_float("BOT_FAILED_MATCH_FAULT_SHARE", 0.25, 0.01, 1.0)
    assert "BOT_FAILED_MATCH_FAULT_SHARE" in str(err.value)
