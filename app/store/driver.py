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
from typing import Any

from sqlalchemy import Connection, Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler


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
        finally:
            cursor.close()  # a query left open would hold its read snapshot

    def run(self, connection: Connection, values: Mapping[str, Any]) -> int:
        """Run the statement once in ``connection``'s transaction; the rows it changed."""
        cursor = connection.connection.cursor()
        try:
            cursor.execute(self.sql, self.parameters(values))
            return int(cursor.rowcount)
        finally:
            cursor.close()

    def run_many(self, connection: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run the statement for each of ``rows`` in ``connection``'s transaction."""
        cursor = connection.connection.cursor()
        try:
            cursor.executemany(self.sql, [self.parameters(row) for row in rows])
        finally:
            cursor.close()
