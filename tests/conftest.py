"""Fixtures shared by the whole suite: a strategy table built once, a fresh app per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.settings import Settings
from app.strategy import StrategyProvider
from app.web.factory import create_app
from tests.live_server import TEST_SECRET_KEY, Server


@pytest.fixture(scope="session")
def strategy_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The optimal strategy's table, built once for the session and shared by every app."""
    path = tmp_path_factory.mktemp("strategy") / "strategy"
    provider = StrategyProvider(path)
    provider.start()
    assert provider.wait(600), "the strategy table was not built"
    return path


@pytest.fixture
def make_settings(tmp_path: Path, strategy_table: Path) -> Callable[..., Settings]:
    """Settings for a fresh database in this test's folder; keywords override."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": tmp_path / "data",
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
