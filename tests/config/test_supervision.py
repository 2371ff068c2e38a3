"""Issue 21: every long-running process is supervised. docker-compose restarts each service but the one-shot
migrate; each Procfile process (but the example bots) has a systemd unit in deploy/systemd/ that runs the same
program with the same queues and pool and is restarted whenever it exits."""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"


def _procfile() -> dict[str, list[str]]:
    lines = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, sep, command = line.partition(":")
        if sep and not line.startswith("#"):
            words = [w for w in shlex.split(command) if "=" not in w.split("/")[0] or w.startswith("-")]
            lines[name.strip()] = words
    return lines


def _program(words: list[str]) -> tuple:
    """What identifies a process: its program, its celery command, node name stem, queues and pool."""
    words = [w.rsplit("/", 1)[-1] if i == 0 else w for i, w in enumerate(words)]
    def after(flag):
        return words[words.index(flag) + 1] if flag in words else None
    node = (after("-n") or "").split("@")[0]
    queue = re.sub(r"\$\{CELERY_QUEUE:-([^}]*)\}", r"\1", after("-Q") or "")
    return words[0], words[1:4] if words[0] == "celery" else words[1:2], node, queue, after("-P")


def test_every_long_running_compose_service_is_restarted():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    anchors = yaml.safe_load((ROOT / "docker-compose.yml").read_text()).get("x-app", {})
    for name, service in services.items():
        restart = service.get("restart", anchors.get("restart") if name not in ("postgres", "redis", "migrate")
                              else None)
        if name == "migrate":
            assert restart in (None, "no"), "the one-shot migrate must not be restarted"
        else:
            assert restart in ("always", "unless-stopped"), f"{name} has no restart policy"


def test_every_procfile_process_has_a_systemd_unit_that_runs_it_and_restarts_it():
    procs = {name: words for name, words in _procfile().items() if not name.startswith("bot") or name == "botworker"}
    assert set(procs) == {"web", "worker", "botworker", "housekeeping", "beat"}
    for name, words in procs.items():
        unit = configparser.ConfigParser(interpolation=None, strict=False)
        unit.read_string((UNITS / f"eights-{name}.service").read_text())
        service = unit["Service"]
        assert service["Restart"] == "always" and service["KillSignal"] == "SIGTERM"
        exec_words = shlex.split(service["ExecStart"].replace("%%", "%"))
        assert _program(exec_words) == _program(words), name
    target = (UNITS / "eights.target").read_text()
    assert all(f"eights-{name}.service" in target for name in procs)
