"""Migration 0003: the new columns, games in play looked at once, and the way back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic import command

from app.store.migrate import alembic_config


def test_games_in_play_before_0003_are_due_at_once_and_0003_goes_back(tmp_path: Path) -> None:
    path = tmp_path / "penta.db"
    config = alembic_config(f"sqlite:///{path}")
    command.upgrade(config, "0002")
    with sqlite3.connect(path) as db:
        for game_id, status in (("playing1", "playing"), ("waiting1", "waiting")):
            db.execute(
                "INSERT INTO games (id, status, version, created_at, updated_at) "
                "VALUES (?, ?, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                (game_id, status),
            )
    command.upgrade(config, "head")
    with sqlite3.connect(path) as db:
        due = dict(db.execute("SELECT id, due_at FROM games").fetchall())
        columns = {row[1] for row in db.execute("PRAGMA table_info(players)")}
        actions = {row[1] for row in db.execute("PRAGMA table_info(actions)")}
    assert due["waiting1"] is None
    assert due["playing1"] is not None
    assert {"rematch", "moved_hash"} <= columns
    assert "reason" in actions
    command.downgrade(config, "0002")
    with sqlite3.connect(path) as db:
        games = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    assert "due_at" not in games
