"""Engine and sessions. SQLite runs in WAL mode with a busy timeout; writes lock up front."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

BUSY_TIMEOUT_MS = 10_000


class Database:
    """Sessions for reading and for writing, over one engine.

    On SQLite a writing session begins with ``BEGIN IMMEDIATE``: it takes the write lock
    before it reads, so two requests that read-then-write can never interleave. The threads
    of one process first queue on a lock of their own: SQLite lets only one writer in at a
    time anyway, and a thread that finds its lock taken sleeps in SQLite's busy handler with
    a growing back-off (up to 100 ms) however soon the lock is free, which under load cost
    Penta nine tenths of its throughput. The busy timeout still covers other processes.

    Behind that lock, the Core writes of :meth:`write_connection` (every move) reuse one
    connection: checking one out of the pool and setting it up took as long as the move's
    statements.
    """

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        connect_args: dict[str, Any] = {}
        if self.is_sqlite:
            if parsed.database and parsed.database != ":memory:":
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            connect_args = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        self.engine: Engine = create_engine(url, connect_args=connect_args)
        if self.is_sqlite:
            _configure_sqlite(self.engine)
        self._reader = sessionmaker(self.engine, expire_on_commit=False)
        self._write_engine = self.engine.execution_options(penta_write=True)
        self._writer = sessionmaker(self._write_engine, expire_on_commit=False)
        self._write_lock: AbstractContextManager[object] = (
            threading.Lock() if self.is_sqlite else nullcontext()
        )
        self._mover: Connection | None = None
        """The connection of every move's transaction (SQLite: only one is ever open)."""

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for reads only."""
        with self._reader() as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A session that holds the write lock from its first statement and commits at the end."""
        with self._write_lock, self._writer() as session, session.begin():
            yield session

    @contextmanager
    def read_connection(self) -> Iterator[Connection]:
        """A Core connection for reads only, for the paths too hot for the ORM."""
        with self.engine.connect() as connection:
            yield connection

    @contextmanager
    def write_connection(self) -> Iterator[Connection]:
        """A Core connection in a transaction that holds the write lock from its first
        statement (as :meth:`writing`, without the ORM) and commits at the end."""
        if not self.is_sqlite:
            with self._write_engine.begin() as connection:
                yield connection
            return
        with self._write_lock:
            if self._mover is None or self._mover.closed:
                self._mover = self._write_engine.connect()
            with self._mover.begin():
                yield self._mover

    def dispose(self) -> None:
        """Close every connection, the pooled ones and the moves' one."""
        with self._write_lock:
            if self._mover is not None:
                self._mover.close()
                self._mover = None
        self.engine.dispose()


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (the pysqlite recipe).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get("penta_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
