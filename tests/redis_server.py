"""A redis-server of a test's own, on a free loopback port, that the test may stop and start."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

REDIS_SERVER = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class RedisServer:
    """``redis-server`` without persistence; :meth:`stop` and :meth:`start` keep the port."""

    def __init__(self, folder: Path) -> None:
        if REDIS_SERVER is None:
            pytest.skip("redis-server is not installed: the Redis bus cannot be tested here")
        self.folder = folder
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        assert REDIS_SERVER is not None
        options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), *options, "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        """Kill it (SIGKILL: as an outage, not a shutdown)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def subscribers(self, channel: str) -> int:
        """How many connections Redis counts as subscribed to ``channel``."""
        with redis.Redis.from_url(self.url) as client:
            ((_, count),) = client.pubsub_numsub(channel)
            return int(count)

    def until_subscribers(self, channel: str, count: int = 1, wait: float = 10.0) -> None:
        """Wait until ``count`` connections are subscribed to ``channel``."""
        deadline = time.monotonic() + wait
        while self.subscribers(channel) != count:
            assert time.monotonic() < deadline, f"{channel} never had {count} subscribers"
            time.sleep(0.01)
