"""The start every database benchmark shares, without touching the environment (each benchmark sets its own
``DATABASE_URL`` and broker before it imports this)."""

from __future__ import annotations

import os


def ensure_database() -> None:
    """Create the PostgreSQL database ``DATABASE_URL`` names when it is missing."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def database_ready() -> None:
    """The benchmark's database created when missing (``ensure_database``), Django set up, the migrations applied."""
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def drop_database(create: bool = False) -> None:
    """Drop the database ``DATABASE_URL`` names (connections forced off), and with ``create`` make it again, empty:
    a benchmark's throwaway database."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')
