"""bin/services (run by `make test`): starts PostgreSQL and Redis when they are installed but down, and says
exactly what to install when they are missing. Tried with fake tools on PATH, so the machine's real services are
never stopped or started; and once for real, where it must only find both up."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bin" / "services"
BASH = shutil.which("bash")
#: the ordinary tools the script needs; the PostgreSQL and Redis ones are faked (or missing) per test
BASICS = ["bash", "sleep", "grep", "awk", "head", "mkdir", "cat", "touch", "env"]


def _bin(tmp_path: Path, fakes: dict[str, str]) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in BASICS:
        (folder / tool).symlink_to(shutil.which(tool))
    for name, body in fakes.items():
        path = folder / name
        path.write_text(f"#!{BASH}\n{body}\n")
        path.chmod(0o755)
    return folder


def _run(tmp_path: Path, fakes: dict[str, str], **env) -> subprocess.CompletedProcess:
    folder = _bin(tmp_path, fakes)
    environment = {"PATH": str(folder), "STATE": str(tmp_path), "REDIS_DIR": str(tmp_path / "redis"),
                   "SERVICES_WAIT_SECONDS": "1", "TEST_DATABASE_URL": "postgres://postgres@127.0.0.1:5999/eights",
                   "TEST_CELERY_BROKER_URL": "redis://127.0.0.1:6999/7", **env}
    return subprocess.run([BASH, str(SCRIPT)], cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=60)


#: PostgreSQL and Redis installed and down: each answers once its start command has run
DOWN = {
    "pg_isready": '[ -e "$STATE/pg" ]',
    "pg_lsclusters": 'echo "15 main 5999 down postgres /var/lib/postgresql/15/main /var/log/pg.log"',
    "pg_ctlcluster": 'echo "$@" > "$STATE/pg_ctlcluster.args"; touch "$STATE/pg"',
    "redis-cli": '[ -e "$STATE/redis" ] && echo PONG || exit 1',
    "redis-server": 'echo "$@" > "$STATE/redis-server.args"; touch "$STATE/redis"',
}


def test_missing_services_are_named_with_the_command_that_installs_them(tmp_path):
    result = _run(tmp_path, {})
    assert result.returncode == 1
    assert "PostgreSQL is not installed" in result.stderr and "Redis is not installed" in result.stderr
    assert "apt-get install -y postgresql redis-server" in result.stderr
    assert "apt-get install -y redis-server" in result.stderr and "brew install redis" in result.stderr


def test_client_tools_without_servers_say_to_install_the_servers(tmp_path):
    result = _run(tmp_path, {"pg_isready": "exit 2", "redis-cli": "exit 1"})
    assert result.returncode == 1
    assert "PostgreSQL's server is not installed" in result.stderr and "apt-get install -y" in result.stderr
    assert "Redis's server is not installed" in result.stderr


def test_installed_services_that_are_down_are_started(tmp_path):
    result = _run(tmp_path, DOWN)
    assert result.returncode == 0, result.stderr
    assert "starting PostgreSQL 15/main on port 5999" in result.stdout
    assert "starting Redis on port 6999" in result.stdout
    assert (tmp_path / "pg_ctlcluster.args").read_text().split() == ["--skip-systemctl-redirect", "15", "main",
                                                                     "start"]
    assert "--port 6999" in (tmp_path / "redis-server.args").read_text()
    assert "are up" in result.stdout


def test_a_service_that_will_not_start_says_how_to_start_it(tmp_path):
    result = _run(tmp_path, {**DOWN, "pg_ctlcluster": "exit 1", "redis-server": "exit 1"})
    assert result.returncode == 1
    assert "PostgreSQL is installed but not running on 127.0.0.1:5999" in result.stderr
    assert "pg_ctlcluster <version> main start" in result.stderr
    assert "Redis is installed but not running on port 6999" in result.stderr


def test_a_remote_service_is_not_started_here(tmp_path):
    result = _run(tmp_path, DOWN, TEST_DATABASE_URL="postgres://u@db.example.net:5432/x")
    assert result.returncode == 1 and "does not answer at db.example.net:5432" in result.stderr
    assert not (tmp_path / "pg_ctlcluster.args").exists()


@pytest.mark.skipif(not shutil.which("pg_isready") or not shutil.which("redis-cli"), reason="no local services")
def test_on_this_machine_both_are_up_and_left_alone():
    env = {k: v for k, v in os.environ.items() if k not in ("TEST_DATABASE_URL", "TEST_CELERY_BROKER_URL")}
    result = subprocess.run([BASH, str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) are up"
