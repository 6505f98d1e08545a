"""bench/metrics_cost.py runs and adds its pieces up (a small repeat: the figures are not
judged here, only that each piece is timed and the sum printed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_metrics_cost_bench_times_every_piece_and_sums_them() -> None:
    done = subprocess.run(
        [sys.executable, "bench/metrics_cost.py", "--repeat", "2000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    figures = dict(re.findall(r"^  (.+?)\s+(-?[\d.]+) µs$", done.stdout, re.MULTILINE))
    assert len(figures) == 6, done.stdout
    pieces = [float(value) for name, value in figures.items() if name != "in all"]
    assert abs(sum(pieces) - float(figures["in all"])) < 0.02
    assert re.search(r"against a move of 3.3 ms of CPU \(bench/load.py\): [\d.]+%", done.stdout)
