"""Real-browser fixtures: a uvicorn process per test, Playwright driving Debian's Chromium."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = os.environ.get("PENTA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = pytest.mark.browser

playwright_sync = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="session")
def browser(strategy_table: Path) -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package (.ci/run does)")
    with playwright_sync.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield Chromium(launched)
        launched.close()


class Chromium:
    """The session's browser, whose new contexts and pages ask for reduced motion unless a
    test says otherwise (``reduced_motion=MOTION``), as a player may ask: the dice land
    without tumbling. Playwright waits for a die to stand still before it clicks it, 450 ms
    a roll, and a whole game took twice as long (the computer-seat game 24.3 s against 12.7,
    alone on the machine). The tumble's own tests, the live-version tests, the whole solo
    game by clicking, the console test and a spectator play with motion."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def new_context(self, **options: Any) -> Any:
        options.setdefault("reduced_motion", "reduce")
        return self.browser.new_context(**options)

    def new_page(self, **options: Any) -> Any:
        options.setdefault("reduced_motion", "reduce")
        return self.browser.new_page(**options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.browser, name)


@pytest.fixture(autouse=True)
def _contexts_closed_after_each_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test's browser contexts end with it: a page left open would keep its scripts and its
    live stream running (retrying a server that is gone) for the rest of the session, and a
    whole run's worth of them slowed every later browser test."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script (npm, installed by `make test` with `npm ci`)."""
    if not AXE.exists():
        pytest.skip(f"no {AXE.relative_to(ROOT)}: run `npm ci` (make test does)")
    return AXE.read_text()
