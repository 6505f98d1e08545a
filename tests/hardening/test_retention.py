"""Retention against a real uvicorn process: games that wait or stall for a week are closed
as abandoned at the next start (and every hour), finished ones are kept unless the operator
sets a limit, and a restart with thousands of games in play keeps answering."""

from __future__ import annotations

import sqlite3
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.live_server import Server

pytestmark = pytest.mark.slow


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _create(client: httpx.Client) -> tuple[str, str]:
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    return created["game"]["id"], created["token"]


def _start(client: httpx.Client, game_id: str, token: str) -> None:
    assert client.post(f"/api/v1/games/{game_id}/start", headers=_auth(token)).status_code == 200


def _finish(client: httpx.Client, game_id: str, token: str) -> None:
    for _turn in range(13):
        for _roll in range(3):
            client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=_auth(token))
        assert client.post(f"/api/v1/games/{game_id}/auto", headers=_auth(token)).status_code == 200


def _age(server: Server, game_ids: list[str], days: float) -> None:
    """Make the games look unchanged (and, if over, ended) ``days`` ago."""
    then = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S.%f")
    database = Path(server.environment["PENTA_DATA_DIR"]) / "penta.db"
    with sqlite3.connect(database) as connection:
        for game_id in game_ids:
            connection.execute(
                "UPDATE games SET updated_at = ?,"
                " finished_at = CASE WHEN finished_at IS NULL THEN NULL ELSE ? END WHERE id = ?",
                (then, then, game_id),
            )


def test_stalled_games_are_closed_as_abandoned_and_finished_ones_kept_unless_told(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        waiting, _ = _create(client)
        stalled, stalled_token = _create(client)
        _start(client, stalled, stalled_token)
        finished, finished_token = _create(client)
        _start(client, finished, finished_token)
        _finish(client, finished, finished_token)
        recent, recent_token = _create(client)
        _start(client, recent, recent_token)
    server.stop()
    _age(server, [waiting, stalled], days=8)
    _age(server, [finished], days=40)
    _age(server, [recent], days=6)
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        status = {
            game: client.get(f"/api/v1/games/{game}").json()["status"]
            for game in (waiting, stalled, finished, recent)
        }
        assert status == {
            waiting: "abandoned",
            stalled: "abandoned",
            finished: "finished",
            recent: "playing",
        }
        move = client.post(f"/api/v1/games/{stalled}/roll", json={}, headers=_auth(stalled_token))
        assert move.status_code == 409
        assert move.json()["error"]["code"] == "abandoned"
        page = client.get(f"/games/{stalled}", headers={"Accept-Language": "fr"})
        assert "Cette partie a été fermée après une longue pause." in page.text
        assert client.get(f"/games/{finished}/review").status_code == 200, "kept for reviews"
    server.stop()
    server.environment["PENTA_DELETE_FINISHED_AFTER_DAYS"] = "30"
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(f"/api/v1/games/{finished}").status_code == 404, "40 days old: deleted"
        assert client.get(f"/api/v1/games/{stalled}").json()["status"] == "abandoned", (
            "closed today: kept for 30 days"
        )
        assert client.get(f"/api/v1/games/{recent}").json()["status"] == "playing"


def test_a_restart_with_three_thousand_games_in_play_keeps_answering(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_ABANDON_AFTER_DAYS="0")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        model, token = _create(client)
        _start(client, model, token)
        for _roll in range(2):
            client.post(f"/api/v1/games/{model}/roll", json={}, headers=_auth(token))
    server.stop()
    database = Path(server.environment["PENTA_DATA_DIR"]) / "penta.db"
    with sqlite3.connect(database) as connection:
        # Every copy is due (as migration 0003 makes every game in play): the scheduler
        # loads and looks at each of them at the start, the heaviest restart there is.
        columns = [row[1] for row in connection.execute("PRAGMA table_info(games)")]
        replaced = {"id": "?", "due_at": "updated_at"}
        game_columns = ", ".join(replaced.get(column, column) for column in columns)
        for number in range(3000):
            copy = f"copy{number:05d}"
            connection.execute(
                f"INSERT INTO games SELECT {game_columns} FROM games WHERE id = ?", (copy, model)
            )
            for table in ("players", "actions"):
                columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
                chosen = ", ".join("?" if column == "game_id" else column for column in columns)
                connection.execute(
                    f"INSERT INTO {table} SELECT {chosen} FROM {table} WHERE game_id = ?",
                    (copy, model),
                )
    server.log = server.log_path.open("a")
    server.restart()
    latencies = []
    with httpx.Client(base_url=server.url, timeout=30) as client:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            began = time.monotonic()
            assert client.get("/healthz").status_code == 200
            latencies.append(time.monotonic() - began)
        assert client.get("/api/v1/games/copy02999").json()["rolls_left"] == 1
    print(f"\nafter a restart with 3,000 games: /healthz max {max(latencies) * 1000:.0f} ms")
    assert statistics.median(latencies) < 0.2
    assert max(latencies) < 0.5
