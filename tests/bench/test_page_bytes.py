"""bench/page_bytes.py asks for every page and board answer it lists, and each went gzipped
(the bytes are judged here loosely; the figures are the bench's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bench.running import run_bench

ANSWERS = ("home page", "rules page", "game page, round 3", "board (resync)", "roll's answer")


@pytest.mark.single_kind
def test_the_page_bytes_bench_asks_every_answer_and_each_went_gzipped(
    strategy_table: Path,
) -> None:
    printed = run_bench("page_bytes.py", "--repeat", "5", "--strategy-table", str(strategy_table))
    for answer in ANSWERS:
        row = re.search(rf"^{re.escape(answer)}.*?([\d,]+) +([\d,]+) +([\d.]+) ", printed, re.M)
        assert row, (answer, printed)
        raw, wire = (int(figure.replace(",", "")) for figure in row.group(1, 2))
        assert wire < 0.5 * raw, (answer, raw, wire)
