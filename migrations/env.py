"""Alembic environment: migrates the URL given by app.store.migrate or alembic.ini."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from app.settings import Settings
from app.store.models import Base

config = context.config
url = config.get_main_option("sqlalchemy.url") or Settings().resolved_database_url


def run_migrations() -> None:
    """Run every pending migration in one transaction."""
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    given = config.attributes.get("connection")
    if given is not None:  # app.store.migrate's, holding the migration lock
        context.configure(connection=given, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection, target_metadata=Base.metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations()
