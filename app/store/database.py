"""Engine and sessions. SQLite runs in WAL mode with a busy timeout; writes lock up front.

PostgreSQL (``postgresql+psycopg://``) is the database several workers share: reads run at
REPEATABLE READ, writes at READ COMMITTED and serialise per game with ``SELECT … FOR UPDATE``
on its row (see :mod:`app.store.snapshots`), each connection with a lock timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InvalidatePoolError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.metrics import DATABASE_WAIT
from app.store.data_lock import AdvisoryLock, DatabaseInUse, DataLock

BUSY_TIMEOUT_MS = 10_000
"""How long a connection of the pool waits for a lock (reads in threads, the checkpointer)."""
WAIT_SECONDS = 2.0
"""How long a change made off the event loop waits for the write lock, by default."""
CHECKPOINT_SECONDS = 1.0
"""How often the checkpointer copies the write-ahead log into the database."""
WAL_RESET_BYTES = 4 * 1024 * 1024
"""A log bigger than this is checkpointed in full and emptied (TRUNCATE), not PASSIVE-ly."""
JOURNAL_SIZE_LIMIT = 16 * 1024 * 1024
"""SQLite truncates the log to this size whenever it starts it over."""
POSTGRESQL_POOL_SIZE = 20
POSTGRESQL_POOL_OVERFLOW = 10
"""Connections a worker keeps to PostgreSQL, and may open beyond while busy: three workers
stay under the server's default of 100 connections."""
PING_IDLE_SECONDS = 1.0
"""A pooled PostgreSQL connection idle this long is pinged before use (see
``_ping_idle_connections``)."""
_RETURNED = "penta_returned"
"""The key, in a pooled connection's record, of when it was last returned to the pool (or
made)."""
PROBE_TIMEOUT_MS = 50
"""How long the health check waits for the write lock before it calls the database locked."""
MIN_FREE_BYTES = 1024 * 1024
"""Less free space than this in the database's folder, and the health check says so."""
IDLE_IN_TRANSACTION_MS = 60_000
"""PostgreSQL ends a session idle this long inside a transaction (a crashed request's locks)."""
FAILURE_MEMORY_SECONDS = 30.0
"""How long a write that failed (disk full, read-only) keeps the database unhealthy, unless
a write succeeds meanwhile."""

logger = logging.getLogger(__name__)


class DatabaseBusyError(Exception):
    """The write lock is held elsewhere (another process, or another thread of this one) and
    the caller may not wait for it: nothing was read or changed."""


DatabaseFailure = OperationalError
"""What a statement the database could not run raises (a connection lost, the server away):
SQLAlchemy's ``OperationalError``, named here for the layers above the store, which import no
SQLAlchemy."""


class HeldInProcess(DatabaseBusyError):
    """A thread of this process holds the write lock (a change waiting out another process,
    the checkpointer): the event loop may await :meth:`Database.released` and try again on
    the loop, instead of queueing in a thread behind it."""

    def __init__(self, database: Database) -> None:
        super().__init__("another change of this process holds the database")
        self.database = database


def on_event_loop() -> bool:
    """Whether the calling thread is running an asyncio event loop (which must never wait)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


_LOCK_NOT_AVAILABLE = "55P03"
"""PostgreSQL's SQLSTATE for a lock not granted within ``lock_timeout``."""


PRIVATE_MODE = 0o600
"""The database and its -wal and -shm hold the games' server seeds before they are revealed:
the owner's only (SQLite makes the -wal and -shm with the database's own mode)."""
PRIVATE_UMASK = 0o077
"""The process's umask (:func:`keep_files_private`): what Penta creates is its owner's."""


def keep_files_private() -> None:
    """From now on every file this process creates (the database, its -wal and -shm,
    backups, the secret key) is readable by its owner only."""
    os.umask(PRIVATE_UMASK)


def make_private(database: Path) -> None:
    """Tighten ``database`` and its -wal and -shm to :data:`PRIVATE_MODE` where they exist
    (a database made by an older Penta was 0644)."""
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        try:
            if path.exists() and path.stat().st_mode & 0o777 != PRIVATE_MODE:
                path.chmod(PRIVATE_MODE)
        except OSError as error:  # another owner's file: said, not fatal
            logger.warning("could not make %s private: %s", path, error)


def _is_busy(error: OperationalError) -> bool:
    if getattr(error.orig, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
        return True
    return "locked" in str(error.orig) or "busy" in str(error.orig)


class Database:
    """Sessions for reading and for writing, over one engine.

    On SQLite a writing session begins with ``BEGIN IMMEDIATE``: it takes the write lock
    before it reads, so two requests that read-then-write can never interleave. The threads
    of one process first queue on a lock of their own (SQLite's busy handler backs off far
    longer than the lock is held); the busy timeout still covers other processes. Behind that
    lock the moves reuse one connection, and once :meth:`start_checkpoints` has run a thread
    checkpoints the write-ahead log instead of the commits. Why, with figures:
    ``docs/performance.md``, "Store".
    """

    def __init__(self, url: str, *, wait_seconds: float = WAIT_SECONDS) -> None:
        self.wait_seconds = wait_seconds
        parsed = make_url(url)
        self.path: Path | None = None
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.is_shared = parsed.get_backend_name() == "postgresql"
        """Whether several processes may share the data (PostgreSQL): they serialise their
        writes on the database's row locks, not on this process's lock."""
        connect_args: dict[str, Any] = {}
        engine_options: dict[str, Any] = {}
        if self.is_sqlite:
            if parsed.database and parsed.database != ":memory:":
                self.path = Path(parsed.database)
                self.path.parent.mkdir(parents=True, exist_ok=True)
            connect_args = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        elif self.is_shared:
            # Reads see one snapshot across their statements (a version, then the rows).
            engine_options = {
                "isolation_level": "REPEATABLE READ",
                # The connection used last is taken first: a busy worker's connections are
                # never idle long enough to be pinged (see ``_ping_idle_connections``).
                "pool_use_lifo": True,
                # Connections kept open for the thread pool's concurrency: a pool smaller than
                # it closes its overflow at every return, and each new PostgreSQL backend costs
                # milliseconds of CPU (bench/cluster.py counts them: "new backends").
                "pool_size": POSTGRESQL_POOL_SIZE,
                "max_overflow": POSTGRESQL_POOL_OVERFLOW,
            }
        self.engine: Engine = create_engine(url, connect_args=connect_args, **engine_options)
        if self.is_sqlite:
            _configure_sqlite(self.engine, lambda: self._checkpoints_stop is not None)
        elif self.is_shared:
            _configure_postgresql(self.engine, lock_timeout_ms=int(wait_seconds * 1000))
        self._reader = sessionmaker(self.engine, expire_on_commit=False)
        self._write_engine = self.engine.execution_options(penta_write=True)
        if self.is_shared:
            # A write waits for its game's row lock, then must see the row as committed by
            # the holder: at REPEATABLE READ it would fail with a serialisation error instead.
            self._write_engine = self._write_engine.execution_options(
                isolation_level="READ COMMITTED"
            )
        self._write_lock = threading.Lock()
        self._loop_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        """Event loops' changes waiting for a thread of this process to let the lock go."""
        self._waiters_lock = threading.Lock()
        self._mover: Connection | None = None
        """The connection of every write transaction (SQLite: only one is ever open)."""
        self._mover_timeout_ms: int | None = None
        self._failure: tuple[str, float] | None = None
        """The last write's failure (not a busy lock) and when, until a write succeeds."""
        self._checkpoints_stop: threading.Event | None = None
        self._checkpointer: threading.Thread | None = None
        self._in_use: DataLock | AdvisoryLock | None = None

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for reads only."""
        with self._reader() as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A session that holds the write lock from its first statement and commits at the end
        (on the connection of :meth:`write_connection`, with its rules for waiting)."""
        with (
            self.write_connection() as connection,
            Session(bind=connection, expire_on_commit=False) as session,
        ):
            yield session
            session.flush()

    @contextmanager
    def read_connection(self) -> Iterator[Connection]:
        """A Core connection for reads only, for the paths too hot for the ORM."""
        with self.engine.connect() as connection:
            yield connection

    @contextmanager
    def write_connection(self) -> Iterator[Connection]:
        """A Core connection in a transaction that holds the write lock from its first
        statement and commits at the end.

        On SQLite, a caller on the event loop never waits for the lock: if another thread or
        process holds it, :class:`DatabaseBusyError` at once (the web layer then tries again
        from a thread). Any other caller waits up to ``wait_seconds``, then the same error.

        On a shared database every statement is a network round trip: a caller on the event
        loop gets :class:`DatabaseBusyError` before anything is sent (and so runs the change
        in a thread); a game's row lock is waited for up to ``wait_seconds`` (``lock_timeout``).
        """
        if not self.is_sqlite:
            if self.is_shared and on_event_loop():
                raise DatabaseBusyError("a change to a shared database is made off the loop")
            try:
                started = time.perf_counter()
                with self._write_engine.begin() as connection:
                    DATABASE_WAIT.observe(time.perf_counter() - started)  # for a pooled connection
                    yield connection
            except OperationalError as error:
                if _is_busy(error):
                    raise DatabaseBusyError("the game is locked by another change") from error
                self._failure = (str(error.orig), time.monotonic())
                raise
            self._failure = None
            return
        patient = not on_event_loop()
        started = time.perf_counter()
        if not self._write_lock.acquire(timeout=self.wait_seconds if patient else 0):
            if patient:
                raise DatabaseBusyError("another change holds the database")
            raise HeldInProcess(self)
        DATABASE_WAIT.observe(time.perf_counter() - started)
        try:
            if self._mover is None or self._mover.closed:
                self._mover = self._write_engine.connect()
                self._mover_timeout_ms = None
            self._set_timeout(self._mover, int(self.wait_seconds * 1000) if patient else 0)
            try:
                with self._mover.begin():
                    yield self._mover
            except OperationalError as error:
                if _is_busy(error):
                    raise DatabaseBusyError("the database is locked") from error
                self._failure = (str(error.orig), time.monotonic())
                raise
            self._failure = None
        finally:
            self._release()

    def _release(self) -> None:
        """Let the write lock go, and wake the loops' changes waiting for it."""
        self._write_lock.release()
        if self._loop_waiters:
            with self._waiters_lock:
                waiters, self._loop_waiters = self._loop_waiters, []
            for loop, future in waiters:
                with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits
                    loop.call_soon_threadsafe(_wake, future)

    async def released(self, timeout: float) -> bool:
        """On an event loop: wait, without a thread, until the write lock is free (at most
        ``timeout`` seconds). Whether it is, for the loop to try its change again. The wait is
        observed in ``penta_database_wait_seconds`` (as one more wait: the change's own
        acquiring of the lock, right after, is observed too)."""
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._waiters_lock:
            self._loop_waiters.append((loop, future))
        if not self._write_lock.locked():  # let go before we were listed: no wake-up comes
            _wake(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return False
        finally:
            DATABASE_WAIT.observe(time.perf_counter() - started)
        return True

    def _set_timeout(self, connection: Connection, milliseconds: int) -> None:
        """Set the mover's busy timeout (on the driver's connection: outside a transaction,
        through SQLAlchemy a PRAGMA would begin one)."""
        if self._mover_timeout_ms != milliseconds:
            driver = connection.connection.driver_connection
            assert driver is not None
            driver.execute(f"PRAGMA busy_timeout={milliseconds}")
            self._mover_timeout_ms = milliseconds

    def hold(self) -> None:
        """Say a server uses this database, until :meth:`dispose`: ``penta restore`` and
        ``penta after-restore`` are refused meanwhile (:mod:`app.store.data_lock`). Raises
        :class:`DatabaseInUse` while one of them changes the data."""
        if self._in_use is not None:
            return
        try:
            if self.path is not None:
                self._in_use = DataLock(self.path, exclusive=False).acquire()
            elif self.engine.dialect.name == "postgresql":
                self._in_use = AdvisoryLock(self.engine, exclusive=False).acquire()
        except DatabaseInUse:
            where = self.path or "the database"
            raise DatabaseInUse(
                f"{where} is being restored (penta restore): start the server once it is done"
            ) from None

    def make_private(self) -> None:
        """Tighten a SQLite database's files to the owner only (:func:`make_private`)."""
        if self.path is not None:
            make_private(self.path)

    def wal_bytes(self) -> int:
        """The size of SQLite's write-ahead log file (0 when there is none)."""
        if self.path is None:
            return 0
        try:
            return os.stat(f"{self.path}-wal").st_size
        except OSError:
            return 0

    def problem(self) -> str | None:
        """Why a change could not be saved now, or None: a recent write that failed (disk
        full, read-only), too little free space, or a write lock held elsewhere. Waits at
        most ``PROBE_TIMEOUT_MS``; call it off the event loop."""
        failure = self._failure
        if failure is not None and time.monotonic() - failure[1] < FAILURE_MEMORY_SECONDS:
            return f"the last change could not be saved: {failure[0]}"
        if self.path is not None:
            folder = os.statvfs(self.path.parent)
            if folder.f_flag & os.ST_RDONLY:
                return "the database's folder is read-only"
            if folder.f_bavail * folder.f_frsize < MIN_FREE_BYTES:
                return "the disk of the database is full"
        if not self.is_sqlite:
            with self.engine.connect() as connection:
                connection.exec_driver_sql("SELECT 1")
            return None
        with self.engine.connect() as connection:
            driver = connection.connection.driver_connection
            assert driver is not None
            driver.execute(f"PRAGMA busy_timeout={PROBE_TIMEOUT_MS}")
            try:
                driver.execute("BEGIN IMMEDIATE")
                driver.execute("ROLLBACK")
            except Exception as error:  # the driver's own error: locked, read-only, I/O
                return f"the database cannot be written: {error}"
            finally:
                driver.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        return None

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
        """Copy what the write-ahead log holds into the database.

        Usually ``PASSIVE``, without waiting for anyone (readers and the writer go on; what
        they hold waits a round). But under steady writes a passive checkpoint never catches
        up with the log's end, and the log only starts over once it has (see
        docs/performance.md). So a log past ``WAL_RESET_BYTES`` is then checkpointed with
        ``TRUNCATE``, holding this process's write lock, which copies the rest and empties the
        file. The passive pass first copies what it can while changes go on: the changes then
        wait for the few frames written since (2.3 ms for a 4.5 MB log, not 14 ms).
        """
        with self.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        if self.wal_bytes() <= WAL_RESET_BYTES:
            return
        if not self._write_lock.acquire(timeout=self.wait_seconds):
            return
        try:
            with self.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._release()

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
        if self._in_use is not None:
            self._in_use.release()
            self._in_use = None


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _configure_postgresql(engine: Engine, *, lock_timeout_ms: int) -> None:
    _ping_idle_connections(engine)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Timestamps cross the wire in UTC; a row lock is waited for as long as a change may
        # wait; a session left inside a transaction (a stuck worker) lets its locks go.
        with dbapi_connection.cursor() as cursor:
            cursor.execute(
                "SET TIME ZONE 'UTC';"
                f" SET lock_timeout = {int(lock_timeout_ms)};"
                f" SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_MS}"
            )
        dbapi_connection.commit()


def _ping_idle_connections(engine: Engine) -> None:
    """Ping a pooled connection as it is taken only if it has been idle for ``PING_IDLE_SECONDS``
    (the pool's ``pool_pre_ping`` pings at every taking: one round trip in six of a move).

    A connection that died while idle (a database restarted, a firewall's timeout) is so
    replaced before use, as with ``pool_pre_ping``. One used less than that ago is trusted: if
    it died since, the first statement fails (503, ``storage``), and SQLAlchemy then replaces
    every connection the pool held. A restart takes longer than that, and the changes tried
    while the database was away failed the same way with the ping."""

    @event.listens_for(engine, "connect")
    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _taken(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get(_RETURNED, 0.0) < PING_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            if engine.dialect.is_disconnect(error, dbapi_connection, None):
                # As pool_pre_ping does: the pool replaces this connection and drops every
                # other it held (the database was likely restarted), then tries again.
                raise InvalidatePoolError(str(error)) from error
            raise


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
        cursor.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
        if checkpointing():
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get("penta_write", False)
        statement = "BEGIN IMMEDIATE" if immediate else "BEGIN"
        # On the driver's connection: through ``exec_driver_sql`` a BEGIN was a statement's
        # whole execution (its context, cursor and result), 3.5 % of a worker's CPU at 200
        # games (docs/performance.md). Its error is SQLAlchemy's, as that one raised.
        try:
            connection.connection.driver_connection.execute(statement).close()
        except sqlite3.Error as error:
            raise DBAPIError.instance(
                statement, (), error, sqlite3.Error, dialect=connection.dialect
            ) from error
