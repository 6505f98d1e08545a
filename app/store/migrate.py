"""Apply the Alembic migrations in ``migrations/`` to a database."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.settings import ROOT


class UnknownRevision(Exception):
    """The database carries a schema revision these migrations do not know: a newer Penta's."""

    def __init__(self, revision: str, head: str) -> None:
        super().__init__(f"unknown schema revision {revision} (known up to {head})")
        self.revision = revision
        self.head = head


def alembic_config(database_url: str) -> Config:
    """An Alembic configuration for ``database_url`` without needing alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


MIGRATION_LOCK = 0x50_454E_5441
"""The PostgreSQL advisory lock held while migrating ("PENTA" in ASCII)."""


def upgrade(database_url: str) -> None:
    """Bring the database schema to the newest revision.

    On PostgreSQL under an advisory lock: workers started together would otherwise each
    create the tables, and all but one fail. The others wait for it, then find the schema
    at its newest revision and do nothing.
    """
    config = alembic_config(database_url)
    if make_url(database_url).get_backend_name() != "postgresql":
        command.upgrade(config, "head")
        return
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            lock = {"key": MIGRATION_LOCK}
            connection.execute(text("SELECT pg_advisory_lock(:key)"), lock)
            connection.commit()
            try:
                config.attributes["connection"] = connection  # see migrations/env.py
                command.upgrade(config, "head")
            finally:
                connection.rollback()
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), lock)
                connection.commit()
    finally:
        engine.dispose()


def head_revision() -> str:
    """The newest revision these migrations know."""
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None, "migrations/versions holds no migration"
    return head


def current_revision(database_url: str) -> str | None:
    """The revision the database is at, or None for a new (or never migrated) database."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def check_known_revision(database_url: str) -> None:
    """Raise :class:`UnknownRevision` if the database is at a revision not among ours."""
    revision = current_revision(database_url)
    scripts = ScriptDirectory.from_config(alembic_config(database_url))
    known = {script.revision for script in scripts.walk_revisions()}
    if revision is not None and revision not in known:
        raise UnknownRevision(revision, head_revision())
