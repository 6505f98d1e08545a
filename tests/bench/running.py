"""Running a bench script as a person does, from the repository's root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *arguments: str, timeout: float = 180) -> str:
    """What ``bench/<script>`` printed, run with ``arguments`` (it must exit with 0)."""
    done = subprocess.run(
        [sys.executable, f"bench/{script}", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    return done.stdout
