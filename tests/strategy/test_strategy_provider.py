"""The provider: fallback at once, the optimal strategy after a background build, then from disk."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from app.rules import Scoresheet
from app.strategy import (
    GreedyStrategy,
    StrategyProvider,
    fingerprint,
    load_values,
    resolve_table_path,
    save_values,
    table_file_name,
)
from app.strategy.tables import FloatArray


def test_builds_in_the_background_saves_and_reloads_without_building(
    tmp_path: Path, table: FloatArray
) -> None:
    release = threading.Event()
    builds: list[str] = []

    def gated_build() -> FloatArray:
        builds.append("built")
        assert release.wait(60)
        return table.copy()

    provider = StrategyProvider(tmp_path, build=gated_build)
    provider.start()

    assert not provider.is_ready
    assert isinstance(provider.current(), GreedyStrategy)
    assert provider.current().is_optimal is False
    assert not provider.wait(0)
    release.set()
    assert provider.wait(60)
    assert provider.current().is_optimal is True
    assert provider.loaded_from_disk is False
    assert provider.path == tmp_path / table_file_name()
    assert provider.path.is_file()
    assert builds == ["built"]

    def refuse() -> FloatArray:
        raise AssertionError("the table on disk should have been loaded")

    again = StrategyProvider(tmp_path, build=refuse)
    again.start()

    assert again.is_ready
    assert again.loaded_from_disk is True
    assert again.current().expected_total(Scoresheet()) == provider.current().expected_total(
        Scoresheet()
    )


def test_start_twice_builds_once(tmp_path: Path, table: FloatArray) -> None:
    builds: list[str] = []

    def build() -> FloatArray:
        builds.append("built")
        return table.copy()

    provider = StrategyProvider(tmp_path, build=build)
    provider.start()
    provider.start()

    assert provider.wait(60)
    assert builds == ["built"]


def test_a_failed_build_keeps_the_fallback(tmp_path: Path) -> None:
    def broken() -> FloatArray:
        raise RuntimeError("out of memory")

    provider = StrategyProvider(tmp_path, build=broken)
    provider.start()

    assert provider.wait(60) is False
    assert isinstance(provider.error, RuntimeError)
    assert isinstance(provider.current(), GreedyStrategy)
    assert not resolve_table_path(tmp_path).exists()


def test_file_names_carry_the_fingerprint(tmp_path: Path) -> None:
    assert table_file_name() == f"strategy-{fingerprint()}.npz"
    assert len(fingerprint()) == 12
    assert resolve_table_path(tmp_path) == tmp_path / table_file_name()
    assert resolve_table_path(tmp_path / "mine.npz") == tmp_path / "mine.npz"


def test_a_stale_or_broken_file_is_not_loaded(tmp_path: Path, table: FloatArray) -> None:
    stale = tmp_path / "stale.npz"
    np.savez(stale, values=table, fingerprint=np.array("000000000000"))
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a table")
    wrong_shape = tmp_path / "short.npz"
    np.savez(wrong_shape, values=table[:10], fingerprint=np.array(fingerprint()))

    assert load_values(stale) is None
    assert load_values(broken) is None
    assert load_values(wrong_shape) is None
    assert load_values(tmp_path / "missing.npz") is None


def test_save_is_atomic_and_round_trips(tmp_path: Path, table: FloatArray) -> None:
    path = tmp_path / "nested" / "table.npz"
    save_values(path, table)
    loaded = load_values(path)

    assert loaded is not None
    assert np.array_equal(loaded, table, equal_nan=True)
    assert [item.name for item in path.parent.iterdir()] == ["table.npz"]
    with pytest.raises(ValueError, match="read-only"):
        loaded[0] = 1.0


def test_the_log_says_whether_the_table_was_built_or_loaded_and_how_long_it_took(
    tmp_path: Path, table: FloatArray, caplog: pytest.LogCaptureFixture
) -> None:
    # The first look for the file at 0, the build from 10 to 52.25, a load from 100 to 100.5.
    ticks = iter([0.0, 10.0, 52.25, 100.0, 100.5])

    def clock() -> float:
        return next(ticks)

    caplog.set_level("INFO", logger="app.strategy.provider")
    provider = StrategyProvider(tmp_path, build=table.copy, clock=clock)
    provider.start()
    assert provider.wait(60)
    path = tmp_path / table_file_name()
    assert caplog.messages == [
        f"strategy table not found at {path}: building it in the background; until it is "
        "ready the computer plays a simple fallback and hints say it is still preparing",
        f"strategy table built in 42.2 s; saved to {path}",
    ]
    caplog.clear()
    StrategyProvider(tmp_path, clock=clock).start()
    assert caplog.messages == [f"strategy table loaded from {path} in 0.50 s"]
