"""The databases the tests run on: SQLite, and PostgreSQL when one is reachable.

Each PostgreSQL test gets a schema of its own in a database made for the test session (from
``PENTA_TEST_POSTGRES_URL``, default the local server as user ``postgres``); both are dropped
afterwards. Without a reachable server the PostgreSQL runs are skipped, each saying why.
``PENTA_TEST_DATABASES=sqlite`` (or ``postgresql``) runs one kind only.

Every test that asks for a database (``database_kind``: the in-process apps of
``make_client``, the uvicorn processes of ``start_server``) runs once on each kind, unless it
is marked ``single_kind``: a test of SQLite itself, or one that makes its own database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import psycopg
from sqlalchemy.engine import URL, make_url

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
ADMIN_URL = os.environ.get(
    "PENTA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
CONNECT_TIMEOUT_SECONDS = 3


def kinds() -> list[str]:
    """The database kinds to run the tests on."""
    chosen = os.environ.get("PENTA_TEST_DATABASES", f"{SQLITE},{POSTGRESQL}")
    return [kind.strip() for kind in chosen.split(",") if kind.strip()]


def _libpq(url: URL) -> str:
    """``url`` as psycopg's own connection string."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


@cache
def unreachable_reason() -> str | None:
    """Why PostgreSQL cannot be used by the tests, or None when it can (asked once)."""
    try:
        with psycopg.connect(_libpq(make_url(ADMIN_URL)), connect_timeout=CONNECT_TIMEOUT_SECONDS):
            return None
    except psycopg.Error as error:
        return f"PostgreSQL is not reachable at {ADMIN_URL}: {str(error).strip()}"


class TestDatabase:
    """A database made for this test session; a schema in it for each test."""

    def __init__(self) -> None:
        admin = make_url(ADMIN_URL)
        self.name = f"penta_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        self.url = admin.set(database=self.name)
        with psycopg.connect(_libpq(admin), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.name}"')

    @contextmanager
    def schema(self) -> Iterator[str]:
        """A fresh schema's URL (its ``search_path``) while the test runs; dropped after."""
        name = f"test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(_libpq(self.url), autocommit=True) as connection:
            connection.execute(f'CREATE SCHEMA "{name}"')
        try:
            url = self.url.update_query_dict({"options": f"-csearch_path={name}"})
            yield url.render_as_string(hide_password=False)
        finally:
            with psycopg.connect(_libpq(self.url), autocommit=True) as connection:
                connection.execute(f'DROP SCHEMA "{name}" CASCADE')

    def drop(self) -> None:
        with psycopg.connect(_libpq(make_url(ADMIN_URL)), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
