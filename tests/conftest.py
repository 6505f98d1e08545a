"""Fixtures shared by the whole suite: a strategy table built once, a fresh app or uvicorn
process per test, on SQLite and on PostgreSQL (see :mod:`tests.databases`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.settings import Settings
from app.strategy import StrategyProvider
from app.web.factory import create_app
from tests import databases
from tests.live_server import TEST_SECRET_KEY, Server


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "single_kind: runs once, on the default fixtures (SQLite): a test of SQLite itself, "
        "or one that chooses its own database",
    )
    config.addinivalue_line(
        "markers",
        "every_kind: a browser test that runs on every database kind (the others run on SQLite)",
    )


SERVERS = pytest.StashKey[list[Server]]()
"""The uvicorn processes a test started (``start_server``), for its report."""
LOG_TAIL = 20_000
"""The characters of a server's log a failed test's report shows, its last ones."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that started servers shows the end of each one's log in its report (a
    timing failure on CI is read from there: which request was slow or refused)."""
    report = yield
    if report.failed:
        for number, server in enumerate(item.stash.get(SERVERS, [])):
            text = server.log_path.read_text(errors="replace")[-LOG_TAIL:]
            report.sections.append((f"server {number} log ({call.when})", text))
    return report


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run last. Playwright's sync API leaves its event loop running in the
    main thread for the rest of the session, and what looks for a running loop after it (the
    store's refusal to write to PostgreSQL on the loop, ``asyncio.run``) would find that one.
    Under pytest-xdist each worker process is sent tests in this order too (``--dist load``
    hands them out from the front of the list), so its browser tests come after the rest."""
    items.sort(key=lambda item: item.path.parent.name == "browser")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run each test that asks for a database once per database kind.

    The browser tests run on SQLite alone, but for those marked ``every_kind``: what they
    check is the page and its script; the routes beneath them run on every kind in the API
    and page tests, and with every browser test on both kinds the suite took 30 minutes on
    two cores (CI's budget is 20). Whole games with live streams across browsers
    (``every_kind``) still run on PostgreSQL too."""
    if "database_kind" not in metafunc.fixturenames:
        return
    definition = metafunc.definition
    kinds = [databases.SQLITE]
    if not definition.get_closest_marker("single_kind") and (
        not definition.get_closest_marker("browser") or definition.get_closest_marker("every_kind")
    ):
        kinds = databases.kinds()
    metafunc.parametrize("database_kind", kinds, indirect=True)


@pytest.fixture
def database_kind(request: pytest.FixtureRequest) -> str:
    kind: str = getattr(request, "param", databases.SQLITE)
    return kind


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[databases.TestDatabase]:
    """A PostgreSQL database for this test session (skipped, saying why, without a server)."""
    reason = databases.unreachable_reason()
    if reason is not None:
        pytest.skip(reason)
    database = databases.TestDatabase()
    yield database
    database.drop()


@pytest.fixture
def database_url(database_kind: str, request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The test's database: None (SQLite, a file in the test's data folder) or the URL of a
    fresh PostgreSQL schema, dropped after the test."""
    if database_kind == databases.SQLITE:
        yield None
        return
    database: databases.TestDatabase = request.getfixturevalue("postgres_database")
    with database.schema() as url:
        yield url


@pytest.fixture(scope="session")
def strategy_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The optimal strategy's table, built once for the session and shared by every app."""
    path = tmp_path_factory.mktemp("strategy") / "strategy"
    provider = StrategyProvider(path)
    provider.start()
    assert provider.wait(600), "the strategy table was not built"
    return path


@pytest.fixture
def make_settings(
    tmp_path: Path, strategy_table: Path, database_url: str | None
) -> Callable[..., Settings]:
    """Settings for a fresh database (in this test's folder, or a PostgreSQL schema of its
    own); keywords override."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": tmp_path / "data",
            "database_url": database_url,
            "strategy_table": strategy_table,
            "secret_key": TEST_SECRET_KEY,
            "testing": True,
            # TestClient's requests name the host "testserver".
            "allowed_hosts": "testserver,localhost,127.0.0.1",
            # Tests play faster than any person: the action limits are on where a test
            # says so (tests/hardening/test_action_limits.py).
            "actions_per_minute": 0,
            "seat_actions_per_minute": 0,
        }
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
def make_client(make_settings: Callable[..., Settings]) -> Iterator[Callable[..., TestClient]]:
    """Start an app (its lifespan runs: migrations, strategy) and give an httpx client to it."""
    clients: list[TestClient] = []

    def make(**overrides: Any) -> TestClient:
        app: FastAPI = create_app(make_settings(**overrides))
        client = TestClient(app, base_url="http://testserver")
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in reversed(clients):
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


@pytest.fixture
def start_server(
    tmp_path: Path, strategy_table: Path, database_kind: str, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Server]]:
    """Start uvicorn processes serving Penta, each on a database of its own, as one process
    alone would have: a SQLite file in its data folder, or a fresh PostgreSQL schema."""
    servers: list[Server] = []
    request.node.stash[SERVERS] = servers
    with ExitStack() as schemas:

        def start(**env: str) -> Server:
            if database_kind == databases.POSTGRESQL and "PENTA_DATABASE_URL" not in env:
                database: databases.TestDatabase = request.getfixturevalue("postgres_database")
                env = {"PENTA_DATABASE_URL": schemas.enter_context(database.schema()), **env}
            server = Server(tmp_path / f"server{len(servers)}", strategy_table, **env)
            servers.append(server)
            return server

        yield start
        for server in servers:
            server.stop()


@pytest.fixture
def server(start_server: Callable[..., Server]) -> Server:
    return start_server()
