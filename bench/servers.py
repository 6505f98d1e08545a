"""Real uvicorn processes on loopback for the benchmarks, and the strategy table they need."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
BENCH_SECRET_KEY = "bench-secret-key-0123456789abcdef-0123456789"
_TICKS = os.sysconf("SC_CLK_TCK")


def ensure_strategy_table(path: Path) -> Path:
    """The strategy table at ``path``, built first if missing (about ten seconds), so that no
    server builds it in the background while it is being measured."""
    if not any(path.glob("strategy-*.npz")):
        print(f"building the strategy table into {path} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [sys.executable, "-m", "app.strategy", "build", "--path", str(path)],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Uvicorn:
    """``uvicorn <target>`` with one worker on 127.0.0.1, stopped on leaving the block."""

    def __init__(self, target: str, env: dict[str, str], *, log: Path, root: Path = ROOT) -> None:
        """``root``: the checkout to serve (another one, to compare with this)."""
        self.target = target
        self.root = root
        self.env = {**os.environ, "PENTA_SECRET_KEY": BENCH_SECRET_KEY, **env}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self._log: IO[str] | None = None
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Uvicorn:
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                self.target,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
            ],
            cwd=self.root,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.target} exited; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:  # not listening yet, or answering with an error
                time.sleep(0.1)
        self.__exit__(None, None, None)  # a server that never came up is not left running
        raise RuntimeError(f"{self.target} did not become healthy; see {self.log_path}")

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        assert self.process is not None
        assert self._log is not None
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()

    def cpu_seconds(self) -> float:
        """User and system CPU time the server process has used so far."""
        assert self.process is not None
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
