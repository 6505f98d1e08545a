"""The language tests read the compiled catalogs."""

from __future__ import annotations

import pytest

from tests.catalogs import compile_catalogs


@pytest.fixture(scope="session", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()
