"""Real-browser fixtures: a uvicorn process per test, Playwright driving Debian's Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import TEST_SECRET_KEY

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("PENTA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = pytest.mark.browser

playwright_sync = pytest.importorskip("playwright.sync_api")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Server:
    """A uvicorn process serving Penta on loopback with its own data directory."""

    def __init__(self, data_dir: Path, strategy_table: Path, **env: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {
            **os.environ,
            "PENTA_DATA_DIR": str(data_dir),
            "PENTA_STRATEGY_TABLE": str(strategy_table),
            "PENTA_SECRET_KEY": TEST_SECRET_KEY,
            "PENTA_TESTING": "true",
            **env,
        }
        data_dir.mkdir(parents=True)
        self.log = (data_dir / "server.log").open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            cwd=ROOT,
            env=environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        for _ in range(300):
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not become healthy")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


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
        yield launched
        launched.close()


@pytest.fixture
def start_server(tmp_path: Path, strategy_table: Path) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(**env: str) -> Server:
        server = Server(tmp_path / f"server{len(servers)}", strategy_table, **env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def server(start_server: Callable[..., Server]) -> Server:
    return start_server()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
