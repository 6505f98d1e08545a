"""Back up and restore the SQLite database with SQLite's online backup API.

The backup copies every page inside one read transaction, so it is a consistent snapshot even
while the server writes (in WAL mode readers never block the writer, nor it them). It is
written beside the target under a temporary name, checked, then renamed: a backup file is
either whole or absent.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import make_url

from app.cli.preflight import StartupError


@dataclass(frozen=True)
class Copied:
    """What a backup or restore copied."""

    path: Path
    games: int
    size: int

    @property
    def counted(self) -> str:
        """``1 game``, ``3 games``."""
        return f"{self.games} game{'' if self.games == 1 else 's'}"


def sqlite_path(database_url: str) -> Path:
    """The file of a SQLite database URL; other databases have their own backup tools."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        raise StartupError(
            f"penta backup and restore work on a SQLite file, not {url.get_backend_name()}: "
            "use that database's own backup tool"
        )
    return Path(url.database)


def backup(database: Path, target: Path) -> Copied:
    """Copy the live ``database`` to ``target`` (replaced if it exists)."""
    if not database.is_file():
        raise StartupError(f"there is no database at {database} to back up")
    if target.is_dir():
        target = target / f"penta-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.db"
    temporary = target.with_name(f".{target.name}.partial")
    temporary.unlink(missing_ok=True)
    try:
        _copy(database, temporary)
        games = _check(temporary)
        os.replace(temporary, target)
    except OSError as error:
        raise StartupError(f"cannot write the backup {target}: {error.strerror}") from None
    finally:
        temporary.unlink(missing_ok=True)
    return Copied(target, games, target.stat().st_size)


def restore(source: Path, database: Path) -> Copied:
    """Replace ``database`` with the backup ``source``; the replaced one is kept beside it.

    The server must be stopped: it keeps recent games in memory.
    """
    if not source.is_file():
        raise StartupError(f"there is no backup at {source}")
    games = _check(source)
    if database.exists():
        stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}"
        backup(database, database.with_name(f"{database.stem}-before-restore-{stamp}.db"))
    database.parent.mkdir(parents=True, exist_ok=True)
    # Through the backup API rather than a file copy: the target's -wal and -shm files are
    # rewritten with it, so no stale log is replayed over the restored pages.
    _copy(source, database)
    return Copied(database, games, database.stat().st_size)


def _copy(source: Path, target: Path) -> None:
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        writer = sqlite3.connect(target)
        try:
            reader.backup(writer)
            # One self-contained file, whatever the source's journal: no -wal beside it to
            # forget. The server switches a restored database back to WAL when it connects.
            writer.execute("PRAGMA journal_mode=DELETE")
        finally:
            writer.close()
    finally:
        reader.close()


def _check(path: Path) -> int:
    """The number of games in a sound Penta database; a :class:`StartupError` otherwise."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            (verdict,) = connection.execute("PRAGMA integrity_check").fetchone()
            if verdict != "ok":
                raise StartupError(f"{path} is damaged ({verdict}): take another backup")
            (games,) = connection.execute("SELECT count(*) FROM games").fetchone()
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise StartupError(f"{path} is not a Penta database ({error})") from None
    return int(games)
