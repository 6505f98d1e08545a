"""``penta backup`` while a real server is under load, then ``penta restore``: the restored
database holds whole games whose logs replay, and every finished game has the totals the
live server gave it."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.store.database import Database
from app.store.log import replay
from app.store.models import GameRecord, GameStatus
from tests.live_server import Server
from tests.operator.test_startup import penta

PLAYERS = 6
"""Concurrent clients, each playing solo games back to back."""
BACKUPS = 3
LOAD_SECONDS = 90
"""Bound on the load, whatever happens."""

pytestmark = pytest.mark.single_kind  # penta backup copies a SQLite file (PostgreSQL: pg_dump)


def _play_games(url: str, stop: threading.Event, finished: list[str]) -> None:
    """Play solo games through the API until ``stop``: one roll, then the first open box."""
    with httpx.Client(base_url=url, timeout=30) as client:
        while not stop.is_set():
            created = client.post("/api/v1/games", json={"name": "Load"}).json()
            game_id, token = created["game"]["id"], created["token"]
            headers = {"Authorization": f"Bearer {token}"}
            game = client.post(f"/api/v1/games/{game_id}/start", headers=headers).json()
            while game["status"] == "playing" and not stop.is_set():
                game = client.post(
                    f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=headers
                ).json()
                box = next(iter(game["options"]))
                game = client.post(
                    f"/api/v1/games/{game_id}/score", json={"box": box}, headers=headers
                ).json()
            if game["status"] == "finished":
                finished.append(game_id)


def _totals(database: Path) -> dict[str, list[int | None]]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT game_id, final_total FROM players ORDER BY game_id, seat"
        ).fetchall()
    totals: dict[str, list[int | None]] = {}
    for game_id, total in rows:
        totals.setdefault(game_id, []).append(total)
    return totals


def test_a_backup_taken_under_load_restores_to_games_that_replay_with_their_totals(
    start_server: Callable[..., Server],
    make_client: Callable[..., TestClient],
    tmp_path: Path,
) -> None:
    server = start_server(PENTA_RATE_LIMIT_PER_MINUTE="0")
    live = server.environment["PENTA_DATA_DIR"]
    stop, finished = threading.Event(), []
    players = [
        threading.Thread(target=_play_games, args=(server.url, stop, finished))
        for _ in range(PLAYERS)
    ]
    for player in players:
        player.start()
    backups: list[Path] = []
    deadline = time.monotonic() + LOAD_SECONDS
    try:
        for number in range(BACKUPS):
            while len(finished) < 2 * (number + 1) and time.monotonic() < deadline:
                time.sleep(0.05)
            target = tmp_path / f"backup-{number}.db"
            result = penta("backup", str(target), PENTA_DATA_DIR=live)
            assert result.returncode == 0, result.stderr
            assert result.stdout.startswith("backed up ")
            backups.append(target)
    finally:
        stop.set()
        for player in players:
            player.join(60)
    assert len(finished) >= 2 * BACKUPS, "the load finished too few games"
    server.stop()
    final = _totals(Path(live) / "penta.db")

    for number, backup in enumerate(backups):
        restored = tmp_path / f"restored-{number}"
        result = penta("restore", str(backup), PENTA_DATA_DIR=str(restored))
        assert result.returncode == 0, result.stderr
        games = _check_restored(restored / "penta.db", final)
        assert games["finished"] >= 2 * (number + 1)
        # Taken mid-game (the load was running): those games are closed, their dice could
        # repeat rolls already seen.
        closed = games["abandoned"]
        assert closed >= 1
        assert result.stdout == (
            f"restored {sum(games.values())} games from {backup} into {restored / 'penta.db'}\n"
            f"closed {closed} game{'' if closed == 1 else 's'} in play: their dice could repeat "
            "rolls already seen\n"
        )

    # The app serves the restored games: a finished one reads as the live server left it.
    client = make_client(data_dir=tmp_path / "restored-0")
    game_id = next(iter(_finished(tmp_path / "restored-0" / "penta.db")))
    answer: dict[str, Any] = client.get(f"/api/v1/games/{game_id}").json()
    assert answer["status"] == "finished"
    assert [player["total"] for player in answer["players"]] == final[game_id]


def _finished(database: Path) -> set[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT id FROM games WHERE status = 'finished'").fetchall()
    return {game_id for (game_id,) in rows}


def _check_restored(database: Path, final: dict[str, list[int | None]]) -> dict[str, int]:
    """Replay every game; a finished one's totals are its stored ones and the live ones.
    The number of games by status."""
    counts: dict[str, int] = {}
    store = Database(f"sqlite:///{database}")
    try:
        with store.reading() as session:
            for record in session.query(GameRecord).all():
                counts[record.status] = counts.get(record.status, 0) + 1
                state = replay(record)  # raises if the log does not replay
                if record.status != GameStatus.FINISHED:
                    assert not state.is_over
                    continue
                assert state.is_over
                replayed = [sheet.total for sheet in state.sheets]
                assert replayed == [player.final_total for player in record.players]
                assert replayed == final[record.id]
    finally:
        store.dispose()
    return counts
