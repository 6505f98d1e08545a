"""The optimal strategy's table, built once per session by the provider into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.strategy import OptimalStrategy, StrategyProvider, load_values, resolve_table_path
from app.strategy.tables import FloatArray


@pytest.fixture(scope="session")
def table_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the saved table (built in the provider's background thread)."""
    folder = tmp_path_factory.mktemp("strategy-table")
    provider = StrategyProvider(folder)
    provider.start()
    assert provider.wait(600), f"the strategy table was not built: {provider.error!r}"
    return folder


@pytest.fixture(scope="session")
def table(table_folder: Path) -> FloatArray:
    """The table of expected future points of every turn-start state."""
    values = load_values(resolve_table_path(table_folder))
    assert values is not None
    return values


@pytest.fixture(scope="session")
def optimal(table: FloatArray) -> OptimalStrategy:
    """The optimal strategy."""
    return OptimalStrategy(table)
