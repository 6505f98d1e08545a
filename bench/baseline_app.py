"""The load benchmark's yardstick: a bare FastAPI app doing one SQLite write per request.

    BASELINE_DB=/tmp/baseline.db uvicorn bench.baseline_app:app

It is as close to Penta's setup as a bare app can be: a sync route (FastAPI's thread pool),
SQLite in WAL mode with ``synchronous=NORMAL`` and a busy timeout, a write transaction that
takes the lock up front (``BEGIN IMMEDIATE``) after queueing on an in-process lock (as
Penta's ``Database.writing`` does), one INSERT, a small JSON answer.
"""

from __future__ import annotations

import os
import sqlite3
import threading

from fastapi import FastAPI

DATABASE = os.environ.get("BASELINE_DB", "baseline.db")
_local = threading.local()
_write_lock = threading.Lock()


def _connection() -> sqlite3.Connection:
    connection: sqlite3.Connection | None = getattr(_local, "connection", None)
    if connection is None:
        connection = sqlite3.connect(DATABASE, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA busy_timeout=10000")
        connection.execute("PRAGMA synchronous=NORMAL")
        _local.connection = connection
    return connection


_connection().execute(
    "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, game TEXT, version INTEGER)"
)

app = FastAPI()


@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/write/{game}")
def write(game: str) -> dict[str, int]:
    """Append one row in its own write transaction; answer with its id."""
    connection = _connection()
    with _write_lock:
        connection.execute("BEGIN IMMEDIATE")
        try:
            cursor = connection.execute("INSERT INTO events (game, version) VALUES (?, 1)", (game,))
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
    return {"id": cursor.lastrowid or 0}
