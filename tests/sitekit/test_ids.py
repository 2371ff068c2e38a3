"""sitekit.ids.parse_id: the one check every id from a URL, a form or a filter goes through."""

import pytest

from sitekit.ids import parse_id


@pytest.mark.parametrize("text, expected", [
    ("0", 0), ("42", 42), ("9" * 18, int("9" * 18)), (7, 7),
    ("²", None), ("٣", None), ("-1", None), ("+1", None), (" 1", None), ("1 ", None), ("", None),
    ("9" * 19, None), ("1e3", None), (-3, None), (True, None), (None, None), (1.0, None),
])
def test_parse_id_takes_ascii_digits_only(text, expected):
    assert parse_id(text) == expected
