"""The databases the in-process tests run on: SQLite, and PostgreSQL when one is reachable.

Each PostgreSQL test gets a schema of its own in a database made for the test session (from
``PENTA_TEST_POSTGRES_URL``, default the local server as user ``postgres``); both are dropped
afterwards. Without a reachable server the PostgreSQL runs are skipped, each saying why.
``PENTA_TEST_DATABASES=sqlite`` (or ``postgresql``) runs one kind only.

Run on both, the in-process tests would take twice as long as on SQLite alone (a PostgreSQL
run costs about what a SQLite one does): more than the suite's budget. So by default the
tests of the store, the service and the web layer's use of them (``POSTGRESQL_PATHS``) run on
both, and the rest (pages, languages, form fuzzing, fairness pages) on SQLite;
``PENTA_TEST_POSTGRESQL_EVERYWHERE=1`` runs every in-process test on both.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from functools import cache

import psycopg
from sqlalchemy.engine import URL, make_url

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
ADMIN_URL = os.environ.get(
    "PENTA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
CONNECT_TIMEOUT_SECONDS = 3

IN_PROCESS_FOLDERS = ("web", "service", "store", "i18n", "hardening", "fairness")
"""The test folders whose in-process app can run on every database kind."""
POSTGRESQL_PATHS = (
    "store/",
    "service/",
    "web/test_api.py",
    "web/test_multiplayer.py",
    "web/test_deadlines.py",
    "web/test_rematch.py",
    "web/test_table.py",
    "web/test_activity.py",
    "web/test_stats.py",
    "web/test_review.py",
    "fairness/test_verifier.py",
    "hardening/test_form_input.py",
)
"""The tests (paths under tests/) that run on PostgreSQL too by default."""


def runs_on_postgresql(path: str) -> bool:
    """Whether the in-process tests of ``path`` (relative to tests/) run on PostgreSQL too."""
    if os.environ.get("PENTA_TEST_POSTGRESQL_EVERYWHERE") == "1":
        return path.split("/")[0] in IN_PROCESS_FOLDERS
    return path.startswith(POSTGRESQL_PATHS)


def kinds() -> list[str]:
    """The database kinds to run the in-process tests on."""
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
