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


@pytest.mark.parametrize("raw, secure", [(None, False), ("true", True), ("1", True), ("off", False)])
def test_secure_cookies_is_one_switch_for_the_session_and_csrf_cookies(raw, secure):
    """SECURE_COOKIES (default off: `make run` and docker-compose serve plain HTTP) sets SESSION_COOKIE_SECURE and
    CSRF_COOKIE_SECURE together (breaker F8)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != "SECURE_COOKIES"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    if raw is not None:
        env["SECURE_COOKIES"] = raw
    code = ("import django, json; django.setup(); from django.conf import settings; "
            "print(json.dumps([settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [secure, secure]
