"""A real uvicorn process serving Penta on loopback, for browser and live-update tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Row, create_engine, text
from sqlalchemy.pool import NullPool

ROOT = Path(__file__).resolve().parents[1]
TEST_SECRET_KEY = "test-secret-key-0123456789abcdef-0123456789"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


PORT_ATTEMPTS = 3
"""Ports tried for a server's first start (another process may take a free port before it)."""


class PortTakenError(RuntimeError):
    """The server could not listen on its port: another process had taken it."""


class Server:
    """A uvicorn process serving Penta on loopback with its own data directory.

    It can be killed (SIGKILL, as a crash) and restarted on the same data and port.
    """

    def __init__(
        self,
        data_dir: Path,
        strategy_table: Path,
        *,
        flags: tuple[str, ...] = ("--timeout-graceful-shutdown", "1"),
        **env: str,
    ) -> None:
        """``flags``: uvicorn's options besides the host and port (``()``: a plain start)."""
        self.flags = flags
        self.port = _free_port()
        self.environment = {
            **os.environ,
            "PENTA_DATA_DIR": str(data_dir),
            "PENTA_STRATEGY_TABLE": str(strategy_table),
            "PENTA_SECRET_KEY": TEST_SECRET_KEY,
            "PENTA_TESTING": "true",
            # Tests play faster than any person: the action limits are on where a test
            # says so (tests/hardening/test_action_limits.py).
            "PENTA_ACTIONS_PER_MINUTE": "0",
            "PENTA_SEAT_ACTIONS_PER_MINUTE": "0",
            **env,
        }
        data_dir.mkdir(parents=True)
        self.log_path = data_dir / "server.log"
        self.log = self.log_path.open("w")
        for attempt in range(1, PORT_ATTEMPTS + 1):
            try:
                self._start()
                break
            except PortTakenError:
                if attempt == PORT_ATTEMPTS:
                    raise
                self.port = _free_port()

    def _start(self) -> None:
        log_from = self.log_path.stat().st_size  # where this start's lines begin
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
                *self.flags,
            ],
            cwd=ROOT,
            env=self.environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_healthy(log_from)

    def _wait_healthy(self, log_from: int) -> None:
        """Until this server answers ``/healthz``. The port was free when chosen, but another
        test's server may have taken it since: only an answer once this one's log says it
        listens there counts (an answer before is the other server's)."""
        listening = f"Uvicorn running on {self.url}"
        for _ in range(300):
            if self.process.poll() is not None:
                if "address already in use" in self._log_since(log_from):
                    raise PortTakenError(self.port)
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200 and listening in self._log_since(log_from):
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not become healthy")

    def _log_since(self, offset: int) -> str:
        with self.log_path.open(encoding="utf-8", errors="replace") as log:
            log.seek(offset)
            return log.read()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_url(self) -> str:
        """The URL of the server's database: its PostgreSQL schema, or its SQLite file."""
        return self.environment.get(
            "PENTA_DATABASE_URL", f"sqlite:///{self.environment['PENTA_DATA_DIR']}/penta.db"
        )

    @contextmanager
    def database(self) -> Iterator[Connection]:
        """A connection to the server's database, whichever kind it is, in a transaction
        committed on leaving the block: the test's own look behind the server's back."""
        engine = create_engine(self.database_url, poolclass=NullPool)
        try:
            with engine.begin() as connection:
                yield connection
        finally:
            engine.dispose()

    def query(self, sql: str, **parameters: Any) -> list[Row[Any]]:
        """The rows of ``sql`` (with ``:name`` parameters) in the server's database."""
        with self.database() as connection:
            return list(connection.execute(text(sql), parameters))

    def kill(self) -> None:
        """Crash the server: SIGKILL, no shutdown of any kind."""
        self.process.kill()
        self.process.wait(timeout=10)

    def restart(self) -> None:
        """Start the server again on the same data directory and port, once it has ended."""
        assert self.process.poll() is not None, "the server is still running"
        self._start()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.log.close()
