"""Fixtures for the service's use cases, called directly: no web layer in between."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.service.dice import ScriptedDice
from app.service.games import GameService
from app.store.database import Database
from app.store.migrate import upgrade
from app.strategy import StrategyProvider

DICE = (1, 1, 3, 4, 6)
"""What every roll deals in these tests (a cycle of five: each fresh roll deals these)."""


@pytest.fixture
def database(tmp_path: Path, database_url: str | None) -> Iterator[Database]:
    """A fresh, migrated database for this test: a SQLite file, or a PostgreSQL schema."""
    url = database_url or f"sqlite:///{tmp_path / 'penta.db'}"
    upgrade(url)
    database = Database(url)
    yield database
    database.dispose()


@pytest.fixture
def strategy(strategy_table: Path) -> StrategyProvider:
    provider = StrategyProvider(strategy_table)
    provider.start()
    assert provider.wait(60), "the strategy table did not load"
    return provider


@pytest.fixture
def service(database: Database, strategy: StrategyProvider) -> GameService:
    return GameService(database, ScriptedDice(DICE), strategy)
