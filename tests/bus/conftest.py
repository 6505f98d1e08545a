"""Fixtures of the bus tests: a Redis of their own, and workers sharing the test's database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.live_server import Server
from tests.redis_server import RedisServer


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    yield server
    server.stop()


@pytest.fixture
def start_workers(
    start_server: Callable[..., Server],
    tmp_path: Path,
    redis_server: RedisServer,
    database_url: str | None,
) -> Callable[..., list[Server]]:
    """``n`` uvicorn processes on one database (a SQLite file, or the test's PostgreSQL
    schema), joined by the bus of ``redis_server``."""

    def start(n: int, **env: str) -> list[Server]:
        shared = {
            **env,
            "PENTA_DATABASE_URL": database_url or f"sqlite:///{tmp_path / 'shared.db'}",
            "PENTA_BUS_URL": redis_server.url,
            "PENTA_BUS_CHANNEL": f"penta-test:{tmp_path.name}",
        }
        return [start_server(**shared) for _ in range(n)]  # one by one: each migrates

    return start
