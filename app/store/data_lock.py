"""The lock that says a database is in use: every server holds it shared for its lifetime,
``penta restore`` (and ``penta after-restore``) exclusively while it changes the data.

On PostgreSQL it is a session-level advisory lock (:data:`ADVISORY_KEY`: one per database and
schema, as Penta's tables are) on a connection the server keeps open: the database lets go
when that connection ends, however the server ends.
On SQLite:

An ``flock`` on a file beside the database (``penta.db.lock``): the kernel lets go of it when
its holder exits, however it exits (SIGKILL included), so a crashed server never leaves the
database looking busy. Servers share it (several processes on one SQLite file take turns at
the write lock); a restore takes it only when no server holds it, and a server that starts
meanwhile is refused until the restore is done.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from sqlalchemy import Connection, Engine, text

ADVISORY_KEY = "hashtextextended('penta:' || current_database() || ':' || current_schema(), 0)"
"""The PostgreSQL advisory lock's key, as SQL: a bigint of Penta's own for the database and
schema its tables are in (two deployments in one database keep apart)."""


class DatabaseInUse(Exception):
    """The lock is held the other way: a server runs (for a restore) or a restore does."""


def lock_path(database: Path) -> Path:
    """The lock file of ``database``: ``penta.db.lock`` beside ``penta.db``."""
    return database.with_name(f"{database.name}.lock")


class DataLock:
    """The lock of one SQLite database, shared (a server) or exclusive (a restore); held from
    :meth:`acquire` (or entering ``with``) until :meth:`release`, or the process's end."""

    def __init__(self, database: Path, *, exclusive: bool) -> None:
        self.path = lock_path(database)
        self.exclusive = exclusive
        self._descriptor: int | None = None

    def acquire(self) -> DataLock:
        """Take the lock at once, or raise :class:`DatabaseInUse` (waiting for nobody)."""
        if self._descriptor is not None:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        mode = fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise DatabaseInUse(str(self.path)) from None
        self._descriptor = descriptor
        return self

    def release(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)  # closing the only descriptor lets go of the flock
            self._descriptor = None

    def __enter__(self) -> DataLock:
        return self.acquire()

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        self.release()


class AdvisoryLock:
    """The same lock on a PostgreSQL database: shared (a server) or exclusive (a restore),
    on a connection of its own kept open, outside any transaction, until :meth:`release`."""

    def __init__(self, engine: Engine, *, exclusive: bool) -> None:
        self.engine = engine
        self.exclusive = exclusive
        self._connection: Connection | None = None

    def acquire(self) -> AdvisoryLock:
        """Take the lock at once, or raise :class:`DatabaseInUse` (waiting for nobody)."""
        if self._connection is not None:
            return self
        connection = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        function = "pg_try_advisory_lock" if self.exclusive else "pg_try_advisory_lock_shared"
        try:
            if not connection.execute(text(f"SELECT {function}({ADVISORY_KEY})")).scalar_one():
                raise DatabaseInUse("the database's advisory lock")
        except BaseException:
            connection.close()
            raise
        self._connection = connection
        return self

    def release(self) -> None:
        if self._connection is not None:
            self._connection.invalidate()  # the session ends: PostgreSQL lets go of its locks
            self._connection.close()
            self._connection = None
