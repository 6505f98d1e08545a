"""The store: checkpoints off the event loop, and rows in memory that match the tables."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from app.store import database as database_module
from app.store.database import Database, DatabaseBusyError
from app.store.models import GameRecord, PlayerRecord
from app.store.rows import GAME_COLUMNS, SEAT_COLUMNS


def _wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_the_checkpointer_copies_the_log_into_the_database_from_its_own_thread(
    tmp_path: Path,
) -> None:
    path = tmp_path / "penta.db"
    database = Database(f"sqlite:///{path}")
    database.start_checkpoints(every=0.05)
    try:
        with database.write_connection() as connection:
            connection.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
            for number in range(50):
                connection.exec_driver_sql("INSERT INTO t (v) VALUES (?)", (f"{number:0200}",))
            # The commits leave checkpoints to the thread: none of them copies the log.
            assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
            page = connection.exec_driver_sql("PRAGMA page_size").scalar()
        # Until a checkpoint the database file holds only the page that says "WAL mode";
        # the table's pages (10 kB of rows) are in the log.
        assert _wait_until(lambda: path.stat().st_size >= 4 * page)
    finally:
        database.dispose()
    assert database._checkpointer is None


def test_without_the_checkpointer_the_commits_checkpoint_as_sqlite_does(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'penta.db'}")
    try:
        with database.write_connection() as connection:
            assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000
    finally:
        database.dispose()


def test_the_rows_in_memory_have_exactly_the_tables_columns() -> None:
    assert tuple(column.key for column in GameRecord.__table__.columns) == GAME_COLUMNS
    assert tuple(column.key for column in PlayerRecord.__table__.columns) == SEAT_COLUMNS


def test_a_long_log_is_copied_passively_first_and_emptied_behind_the_lock_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "penta.db"
    database = Database(f"sqlite:///{path}")
    database.start_checkpoints(every=3600)  # the commits leave the log to checkpoint()
    monkeypatch.setattr(database_module, "WAL_RESET_BYTES", 64 * 1024)
    checkpoints: list[tuple[str, bool, int]] = []

    @event.listens_for(database.engine, "after_cursor_execute")
    def seen(_connection: Any, cursor: Any, statement: str, *_: Any) -> None:
        if "wal_checkpoint" in statement:
            # (mode, whether changes were held off, frames of the log checkpointed)
            _busy, _log, copied = cursor.fetchone()
            checkpoints.append((statement, database._write_lock.locked(), copied))

    try:
        with database.write_connection() as connection:
            connection.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)")
            for _ in range(100):
                connection.exec_driver_sql("INSERT INTO t (v) VALUES (?)", (b"x" * 2000,))
        assert database.wal_bytes() > 64 * 1024
        database.checkpoint()
        # The copying is done while changes go on; behind the lock only the emptying.
        assert [(statement, locked) for statement, locked, _ in checkpoints] == [
            ("PRAGMA wal_checkpoint(PASSIVE)", False),
            ("PRAGMA wal_checkpoint(TRUNCATE)", True),
        ]
        assert checkpoints[0][2] > 0
        assert database.wal_bytes() == 0
        checkpoints.clear()
        database.checkpoint()  # a short log: passive only, nobody held off
        assert [(statement, locked) for statement, locked, _ in checkpoints] == [
            ("PRAGMA wal_checkpoint(PASSIVE)", False)
        ]
    finally:
        database.dispose()


def test_a_write_lock_held_by_another_connection_makes_a_change_busy_and_costs_nothing_after(
    tmp_path: Path,
) -> None:
    """A change begins with ``BEGIN IMMEDIATE`` on the driver's own connection: the lock held
    elsewhere (another process, as far as this one can tell) is the same busy error as ever,
    the connection is not left in a transaction, and reads go on meanwhile."""
    path = tmp_path / "penta.db"
    database = Database(f"sqlite:///{path}", wait_seconds=0.2)
    try:
        with database.write_connection() as connection:
            connection.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(DatabaseBusyError), database.write_connection():
            pytest.fail("the change ran without the lock")
        with database.read_connection() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM t").scalar() == 0
        other.execute("ROLLBACK")
        other.close()
        with database.write_connection() as connection:
            connection.exec_driver_sql("INSERT INTO t DEFAULT VALUES")
        with database.read_connection() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM t").scalar() == 1
    finally:
        database.dispose()
