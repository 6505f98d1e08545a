"""The optimal strategy's table, built once per session by the provider into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.strategy import OptimalStrategy, load_values, resolve_table_path
from app.strategy.tables import FloatArray


@pytest.fixture(scope="session")
def table_folder(strategy_table: Path) -> Path:
    """The folder of the table that tests/conftest.py builds once for the whole suite."""
    return strategy_table


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
