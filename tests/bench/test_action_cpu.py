"""bench/action_cpu.py plays through the app and prints a figure (a few actions: the figure
is not judged here, only that the games are played and measured)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bench.running import run_bench


@pytest.mark.single_kind
def test_the_action_cpu_bench_plays_and_measures(strategy_table: Path) -> None:
    printed = run_bench(
        "action_cpu.py", "--actions", "60", "--rounds", "1", "--strategy-table", str(strategy_table)
    )
    assert re.search(r"round 1: this [\d.]+ ms", printed), printed
    assert re.search(r"CPU per action, median [\d.]+ ms", printed), printed


@pytest.mark.single_kind
def test_the_action_cpu_bench_compares_moves_after_an_idle_loop(strategy_table: Path) -> None:
    printed = run_bench(
        "action_cpu.py",
        *("--actions", "40", "--rounds", "1", "--idle-ms", "1"),
        *("--strategy-table", str(strategy_table)),
    )
    assert re.search(r"round 1: idle [\d.]+ ms, other [\d.]+ ms", printed), printed
    assert re.search(r"1 ms idle before each action\): CPU per action, median", printed), printed
    assert re.search(r"idle / other, round by round [\d.]+, median [\d.]+", printed), printed


@pytest.mark.single_kind
def test_the_action_cpu_bench_plays_watched_games_beside_the_bare_write(
    strategy_table: Path,
) -> None:
    """Four-player games, each seat's page stream open (a move counted once all four show
    it), and the bare write in the same round."""
    printed = run_bench(
        "action_cpu.py",
        *("--actions", "60", "--rounds", "1", "--page-streams", "--bare"),
        *("--strategy-table", str(strategy_table)),
    )
    assert re.search(r"round 1: this [\d.]+ ms, bare [\d.]+ ms", printed), printed
    assert re.search(r"page-streams\): CPU per action, median [\d.]+ ms", printed), printed
    assert re.search(r"this / bare, round by round [\d.]+, median [\d.]+", printed), printed
