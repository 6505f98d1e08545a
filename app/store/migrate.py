"""Apply the Alembic migrations in ``migrations/`` to a database."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.settings import ROOT


def alembic_config(database_url: str) -> Config:
    """An Alembic configuration for ``database_url`` without needing alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str) -> None:
    """Bring the database schema to the newest revision."""
    command.upgrade(alembic_config(database_url), "head")
