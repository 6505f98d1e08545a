"""Engine and sessions. SQLite runs in WAL mode with a busy timeout; writes lock up front."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

BUSY_TIMEOUT_MS = 10_000
CHECKPOINT_SECONDS = 1.0
"""How often the checkpointer copies the write-ahead log into the database."""

logger = logging.getLogger(__name__)


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

    Once :meth:`start_checkpoints` has run, a thread copies the write-ahead log into the
    database every second and the connections made after it leave that to the thread. By
    default the commit that fills the log past 1000 pages does it, and on this machine that
    commit took 20 ms instead of 0.05 (copying and two fsyncs): on the event loop, where the
    moves commit, every request waited for it.
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
            _configure_sqlite(self.engine, lambda: self._checkpoints_stop is not None)
        self._reader = sessionmaker(self.engine, expire_on_commit=False)
        self._write_engine = self.engine.execution_options(penta_write=True)
        self._writer = sessionmaker(self._write_engine, expire_on_commit=False)
        self._write_lock: AbstractContextManager[object] = (
            threading.Lock() if self.is_sqlite else nullcontext()
        )
        self._mover: Connection | None = None
        """The connection of every move's transaction (SQLite: only one is ever open)."""
        self._checkpoints_stop: threading.Event | None = None
        self._checkpointer: threading.Thread | None = None

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

    def start_checkpoints(self, every: float = CHECKPOINT_SECONDS) -> None:
        """Checkpoint the write-ahead log from a thread of its own, ``every`` seconds, instead
        of in the commits (SQLite files only; until :meth:`dispose`)."""
        if not self.is_sqlite or self._checkpoints_stop is not None:
            return
        stop = self._checkpoints_stop = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_until, args=(stop, every), name="checkpointer", daemon=True
        )
        self._checkpointer.start()

    def _checkpoint_until(self, stop: threading.Event, every: float) -> None:
        while not stop.wait(every):
            try:
                self.checkpoint()
            except Exception:  # a full disk, say: the next round tries again
                logger.exception("could not checkpoint the database")

    def checkpoint(self) -> None:
        """Copy what the write-ahead log holds into the database, without waiting for
        anyone (``PASSIVE``: readers and the writer go on; what they hold waits a round)."""
        with self.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def dispose(self) -> None:
        """Stop the checkpointer; close every connection, the pooled ones and the moves' one."""
        if self._checkpoints_stop is not None and self._checkpointer is not None:
            self._checkpoints_stop.set()
            self._checkpointer.join()
            self._checkpoints_stop = self._checkpointer = None
        with self._write_lock:
            if self._mover is not None:
                self._mover.close()
                self._mover = None
        self.engine.dispose()


def _configure_sqlite(engine: Engine, checkpointing: Callable[[], bool]) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (the pysqlite recipe).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        if checkpointing():
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get("penta_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
