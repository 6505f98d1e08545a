"""Three uvicorn workers on one PostgreSQL database and one Redis, shared by the module's tests
(starting them is most of the time these tests take).

PostgreSQL is the one the in-process tests use (``PENTA_TEST_POSTGRES_URL``, default the local
server), in a database of this module's own (``penta_bus_…``, dropped after). Redis is a
``redis-server`` of the module's own on a free port, so that a test can stop and start it.
Skipped, saying why, when either is missing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.databases import ADMIN_URL, unreachable_reason
from tests.live_server import Server
from tests.redis_server import REDIS_SERVER, RedisServer

WORKERS = 3
PACE_SECONDS = 0.3
AUTO_CONFIRM_SECONDS = 2.0
METRICS_TOKEN = "cluster-metrics-token-0123456789"
MATCH_WAIT_SECONDS = 1.0


def libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@dataclass
class Cluster:
    workers: list[Server]
    redis: RedisServer
    database_url: str

    def rows(self, query: str, *parameters: object) -> list[tuple[object, ...]]:
        """What ``query`` finds in the workers' database now."""
        with psycopg.connect(libpq(self.database_url)) as connection:
            return list(connection.execute(query, parameters).fetchall())


@contextmanager
def running_cluster(folder: Path, strategy_table: Path, **extra: str) -> Iterator[Cluster]:
    """:data:`WORKERS` uvicorn workers (with ``extra`` in their environment), a database and
    a Redis of their own; skipped, saying why, without PostgreSQL or redis-server."""
    reason = unreachable_reason()
    if reason is not None:
        pytest.skip(f"the cluster tests need PostgreSQL: {reason}")
    if REDIS_SERVER is None:
        pytest.skip("the cluster tests need redis-server, which is not installed")
    name = f"penta_bus_{uuid.uuid4().hex[:8]}"
    admin = libpq(ADMIN_URL)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    database_url = make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    redis = RedisServer(folder)
    environment = {
        "PENTA_DATABASE_URL": database_url,
        "PENTA_BUS_URL": redis.url,
        "PENTA_BUS_CHANNEL": f"penta-cluster:{name}",
        "PENTA_COMPUTER_PACE_SECONDS": str(PACE_SECONDS),
        "PENTA_AUTO_CONFIRM_SECONDS": str(AUTO_CONFIRM_SECONDS),
        "PENTA_AUTO_CONFIRM_GRACE_SECONDS": "0",
        "PENTA_BUS_CHECK_SECONDS": "2",
        "PENTA_METRICS_TOKEN": METRICS_TOKEN,
        "PENTA_MATCH_WAIT_SECONDS": str(MATCH_WAIT_SECONDS),
        **extra,
    }
    workers: list[Server] = []
    try:
        for number in range(WORKERS):
            workers.append(Server(folder / f"worker{number}", strategy_table, **environment))
        yield Cluster(workers, redis, database_url)
    finally:
        for worker in workers:
            worker.stop()
        redis.stop()
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, strategy_table: Path) -> Iterator[Cluster]:
    with running_cluster(tmp_path_factory.mktemp("cluster"), strategy_table) as running:
        yield running
