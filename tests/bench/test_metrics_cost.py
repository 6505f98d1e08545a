"""bench/metrics_cost.py runs and adds its pieces up (a small repeat: the figures are not
judged here, only that each piece is timed and the sum printed)."""

from __future__ import annotations

import re

from tests.bench.running import run_bench


def test_the_metrics_cost_bench_times_every_piece_and_sums_them() -> None:
    printed = run_bench("metrics_cost.py", "--repeat", "2000", timeout=120)
    figures = dict(re.findall(r"^  (.+?)\s+(-?[\d.]+) µs$", printed, re.MULTILINE))
    assert len(figures) == 6, printed
    pieces = [float(value) for name, value in figures.items() if name != "in all"]
    assert abs(sum(pieces) - float(figures["in all"])) < 0.02
    assert re.search(r"against a move of 3.3 ms of CPU \(bench/load.py\): [\d.]+%", printed)
