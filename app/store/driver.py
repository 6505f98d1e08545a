"""Core statements compiled once and run on the DBAPI cursor: the hot path of every move.

Each move reads its game's version and then updates the game's row and appends to its log.
Run through ``Connection.execute`` those statements cost many times their own work in
Python (figures: ``docs/performance.md``, "Store"). A :class:`DriverStatement` keeps what
SQLAlchemy does that matters (the SQL, compiled by it for the engine's dialect from a Core
statement, and the bind processors of the column types, which turn datetimes and JSON into
what the driver stores) and skips the rest. It runs inside the caller's SQLAlchemy
transaction, on that transaction's connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from typing import Any, NoReturn

from psycopg import Pipeline
from sqlalchemy import Connection, Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

_PIPELINES = Pipeline.is_supported()
"""Whether psycopg can send several statements before their results (libpq 14 or later)."""


class DriverStatement:
    """``statement`` compiled for ``dialect``; its bound parameters are passed by name."""

    def __init__(
        self,
        statement: ClauseElement,
        dialect: Dialect,
        column_keys: Sequence[str] | None = None,
    ) -> None:
        compiled = statement.compile(
            dialect=dialect, column_keys=list(column_keys) if column_keys else None
        )
        assert isinstance(compiled, SQLCompiler)
        self.sql = compiled.string
        self.positional = bool(compiled.positional)
        names = compiled.positiontup if self.positional else list(compiled.binds)
        assert names is not None
        self.names: tuple[str, ...] = tuple(names)
        self.processors: tuple[Callable[[Any], Any] | None, ...] = tuple(
            # The dialect's own type (JSON on psycopg wraps the value for the driver), not the
            # generic one: its processor alone left psycopg a dict it "cannot adapt".
            compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            for name in self.names
        )

    def parameters(self, values: Mapping[str, Any]) -> Any:
        """The driver's parameters for ``values`` (by bind name), processed as by SQLAlchemy:
        a list for a positional paramstyle (SQLite's), else a dict."""
        processed = [
            values[name] if process is None else process(values[name])
            for name, process in zip(self.names, self.processors, strict=True)
        ]
        return processed if self.positional else dict(zip(self.names, processed, strict=True))

    def fetch_one(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        """Run the query in ``connection``'s transaction; its first row, or None."""
        cursor = connection.connection.cursor()
        try:
            cursor.execute(self.sql, self.parameters(values))
            return cursor.fetchone()
        except connection.dialect.loaded_dbapi.Error as error:
            _raise_as_sqlalchemy(connection, self.sql, error)
        finally:
            cursor.close()  # a query left open would hold its read snapshot

    def run_then_many(
        self,
        connection: Connection,
        values: Mapping[str, Any],
        then: DriverStatement,
        rows: Sequence[Mapping[str, Any]],
    ) -> int:
        """Run this statement once, then ``then`` for each of ``rows``, in ``connection``'s
        transaction; the rows this statement changed. ``then``'s rows are valid only if this
        statement changed a row (the log of a game's row updated if still at its version):
        if it changed none, the caller must roll the transaction back.

        On PostgreSQL both go in one round trip (psycopg's pipeline mode): ``then`` is sent
        before this statement's count is known. If ``then`` fails after a statement that
        changed no row (a log entry written twice by a stale write), 0 is returned, and the
        transaction is aborted. Elsewhere ``then`` runs only after a change."""
        pipelined = bool(rows) and connection.dialect.driver == "psycopg" and _PIPELINES
        # Two cursors: ``cursor``'s count is read after ``then`` has run on the other.
        cursor, inserts = connection.connection.cursor(), connection.connection.cursor()
        driver = connection.connection.driver_connection
        try:
            with driver.pipeline() if pipelined else nullcontext():  # type: ignore[union-attr]
                cursor.execute(self.sql, self.parameters(values))
                if rows and (pipelined or cursor.rowcount):
                    inserts.executemany(then.sql, [then.parameters(row) for row in rows])
            return int(cursor.rowcount)  # (read before the cursor closes, which forgets it)
        except connection.dialect.loaded_dbapi.Error as error:
            if pipelined and cursor.rowcount == 0:
                return 0
            _raise_as_sqlalchemy(connection, self.sql, error)
        finally:
            cursor.close()
            inserts.close()


def _raise_as_sqlalchemy(connection: Connection, statement: str, error: Exception) -> NoReturn:
    """Raise the driver's ``error`` as ``Connection.execute`` would, through SQLAlchemy's own
    handler (a private method, the one each of its statements goes through): wrapped
    (``OperationalError`` and the like, which the store and the web layer answer: a lock not
    granted in time is 503 ``busy``), and on a lost connection the connection and every other
    the pool held invalidated, so that the next change gets a new one."""
    connection._handle_dbapi_exception(error, statement, None, None, None)
