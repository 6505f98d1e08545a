"""bench/page_bytes.py asks for every page and board answer it lists, and each went gzipped
(the bytes are judged here loosely; the figures are the bench's)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ("home page", "rules page", "game page, round 3", "board (resync)", "roll's answer")


@pytest.mark.single_kind
def test_the_page_bytes_bench_asks_every_answer_and_each_went_gzipped(
    strategy_table: Path,
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "bench/page_bytes.py",
            "--repeat",
            "5",
            "--strategy-table",
            str(strategy_table),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=180,
    )
    for answer in ANSWERS:
        row = re.search(rf"^{re.escape(answer)}.*?([\d,]+) +([\d,]+) +([\d.]+) ", done.stdout, re.M)
        assert row, (answer, done.stdout)
        raw, wire = (int(figure.replace(",", "")) for figure in row.group(1, 2))
        assert wire < 0.5 * raw, (answer, raw, wire)
