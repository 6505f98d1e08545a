"""bench/action_cpu.py plays through the app and prints a figure (a few actions: the figure
is not judged here, only that the games are played and measured)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.single_kind
def test_the_action_cpu_bench_plays_and_measures(strategy_table: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "bench/action_cpu.py",
            "--actions",
            "60",
            "--rounds",
            "1",
            "--strategy-table",
            str(strategy_table),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=180,
    )
    assert re.search(r"round 1: this [\d.]+ ms", done.stdout), done.stdout
    assert re.search(r"CPU per action, median [\d.]+ ms", done.stdout), done.stdout
