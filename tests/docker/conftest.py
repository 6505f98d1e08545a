"""Prints the image's figures (sizes, timings) that the Docker tests record, after the run."""

from __future__ import annotations

import pytest

FIGURES: list[tuple[str, str]] = []
"""(what, how much) in the order measured; filled by tests/docker/test_image.py."""


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:
        terminalreporter.write_sep("-", "Docker image figures")
        for name, value in FIGURES:
            terminalreporter.write_line(f"{name}: {value}")
