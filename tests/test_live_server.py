"""The tests' uvicorn servers (tests/live_server.py): a server whose free port another process
takes before it listens there starts on another port, and a test talks to it, not to the
other process (the port chosen, then taken by another test's server, let a test's requests
reach that server while its own database was still empty)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests import live_server
from tests.live_server import Server


@pytest.mark.single_kind
def test_a_server_whose_port_is_taken_starts_on_another_and_is_the_one_answering(
    start_server: Callable[..., Server],
    tmp_path: Path,
    strategy_table: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = start_server()
    ports = iter([first.port])
    real_free_port = live_server._free_port
    monkeypatch.setattr(live_server, "_free_port", lambda: next(ports, None) or real_free_port())
    second = Server(tmp_path / "second", strategy_table)
    try:
        assert second.port != first.port
        created = httpx.post(f"{second.url}/api/v1/games", json={"name": "Ann"}, timeout=30)
        assert created.status_code == 201, created.text
        game_id = created.json()["game"]["id"]
        assert second.query("SELECT id FROM games WHERE id = :game", game=game_id)
        assert not first.query("SELECT id FROM games WHERE id = :game", game=game_id)
        assert "address already in use" in second.log_path.read_text()
    finally:
        second.stop()
