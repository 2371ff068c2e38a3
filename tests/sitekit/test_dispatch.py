"""Where tasks run is decided in one place: ``settings.TASKS``, read by ``sitekit.dispatch`` (issue 22, 3a)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from sitekit import dispatch

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("games", "tournaments", "bots_api", "config", "sitekit")
#: what used to decide it, in four expressions across nine places
DECIDERS = re.compile(r"CELERY_TASK_ALWAYS_EAGER|MATCH_WORKER|memory://|\.delay\(|\.delay_on_commit\(|\.apply_async\(")
OWNERS = {ROOT / "sitekit" / "dispatch.py", ROOT / "config" / "settings.py"}


def test_only_the_dispatch_module_sends_tasks_or_asks_where_they_run():
    found = []
    for package in PRODUCTION:
        for path in (ROOT / package).rglob("*.py"):
            if path in OWNERS or "migrations" in path.parts:
                continue
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if DECIDERS.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "decide with sitekit.dispatch.tasks_mode() and send with send_task:\n" + "\n".join(found)


def test_the_setting_follows_the_broker_and_a_wrong_value_says_what_is_allowed(settings):
    assert settings.TASKS == "celery"  # the test settings name a broker
    settings.TASKS = "threads"
    with pytest.raises(ImproperlyConfigured, match="one of celery, in_process, eager"):
        dispatch.tasks_mode()
