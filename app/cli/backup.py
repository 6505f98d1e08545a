"""Back up and restore the SQLite database with SQLite's online backup API.

The backup copies every page inside one read transaction, so it is a consistent snapshot even
while the server writes (in WAL mode readers never block the writer, nor it them). It is
written beside the target under a temporary name, checked, then renamed: a backup file is
either whole or absent.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app.cli.preflight import StartupError
from app.store import retention
from app.store.data_lock import AdvisoryLock, DatabaseInUse, DataLock, lock_path
from app.store.database import make_private
from app.store.migrate import alembic_config, upgrade


@dataclass(frozen=True)
class Copied:
    """What a backup or restore copied."""

    path: Path
    games: int
    size: int
    closed: int = 0
    """Restore only: the games that were being played, closed (their dice could repeat)."""

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


def backup(database: Path, target: Path, *, force: bool = False) -> Copied:
    """Copy the live ``database`` to ``target``: a new file, or an old one with ``force``;
    never the database itself, its -wal, -shm or lock, by any name."""
    if not database.is_file():
        raise StartupError(f"there is no database at {database} to back up")
    if target.is_dir():
        target = target / f"penta-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.db"
    if _is_the_database(target, database):
        raise StartupError(
            f"{target} is the live database's own file: back it up to another file or folder"
        )
    if target.exists() and not force:
        raise StartupError(f"{target} exists already: pass --force to replace it")
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
    """Replace ``database`` with the backup ``source`` and bring it to this Penta's schema;
    the replaced one is kept beside it as ``…-before-restore-STAMP.db``.

    Refused, before anything is touched, while a server uses the database (its lock), or when
    ``source`` is not a sound Penta database with exactly Penta's schema. The new file is
    made beside the old under another name and renamed over it: a crash at any moment leaves
    one whole database, the old or the restored.
    """
    if not source.is_file():
        raise StartupError(f"there is no backup at {source}")
    if _is_the_database(source, database):
        raise StartupError(f"{source} is the database itself: restore another file")
    games = _check(source)
    _check_schema(source)
    try:
        lock = DataLock(database, exclusive=True).acquire()
    except DatabaseInUse:
        raise StartupError(
            f"a Penta server is using {database}: stop it, then restore "
            "(penta backup works while it runs)"
        ) from None
    try:
        database.parent.mkdir(parents=True, exist_ok=True)
        incoming = database.with_name(f".{database.name}.restoring")
        incoming.unlink(missing_ok=True)
        try:
            # Through the backup API rather than a file copy: one self-contained file, its
            # journal DELETE, so no log of the old database can be replayed over it.
            _copy(source, incoming)
            upgrade(f"sqlite:///{incoming}")  # a backup from an older Penta comes up to date
            closed = _close_games_in_play(incoming)
            if database.exists():
                _set_aside(database)
            os.replace(incoming, database)
        except OSError as error:
            raise StartupError(f"cannot restore into {database}: {error.strerror}") from None
        finally:
            incoming.unlink(missing_ok=True)
        Path(f"{database}-shm").unlink(missing_ok=True)
    finally:
        lock.release()
    return Copied(database, games, database.stat().st_size, closed)


def after_restore(database_url: str) -> int:
    """After the database was put back by its own tools (``pg_restore``, a file copy): close
    the games that were being played, as ``penta restore`` does, so that no dice repeat
    rolls already seen; how many. Refused while a server uses the database (its lock)."""
    engine = create_engine(database_url)
    try:
        lock: AdvisoryLock | DataLock
        if engine.dialect.name == "postgresql":
            lock = AdvisoryLock(engine, exclusive=True)
        else:
            lock = DataLock(sqlite_path(database_url), exclusive=True)
        try:
            lock.acquire()
        except DatabaseInUse:
            raise StartupError(
                "a Penta server is using the database: stop every worker, then run "
                "penta after-restore"
            ) from None
        try:
            with engine.begin() as connection:
                return len(retention.close_in_play(connection, datetime.now(UTC)))
        finally:
            lock.release()
    finally:
        engine.dispose()


def _close_games_in_play(database: Path) -> int:
    """Close the restored games that were being played, with their reason: the dice of a
    game depend only on its seeds and its roll number, so once rolled back, its next rolls
    would repeat the ones its players saw after the backup (``docs/fairness.md``)."""
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.begin() as connection:
            return len(retention.close_in_play(connection, datetime.now(UTC)))
    finally:
        engine.dispose()


def _is_the_database(path: Path, database: Path) -> bool:
    """Whether ``path`` names ``database`` or one of its companions (-wal, -shm, lock), by
    its resolved name or, where both exist, by its inode (a hard link)."""
    own = [database, Path(f"{database}-wal"), Path(f"{database}-shm"), lock_path(database)]
    resolved = path.resolve()
    for file in own:
        if resolved == file.resolve():
            return True
        if path.exists() and file.exists() and os.path.samefile(path, file):
            return True
    return False


def _set_aside(database: Path) -> Path:
    """Keep a copy of ``database`` as ``…-before-restore-STAMP.db`` (no server runs: the lock
    says so). Its write-ahead log is first checkpointed into it and the log deleted, so that
    the file holds every committed change by itself; a database too damaged for that is kept
    as it is, with its log beside the copy under the copy's name."""
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}"
    kept = database.with_name(f"{database.stem}-before-restore-{stamp}.db")
    log = Path(f"{database}-wal")
    try:
        connection = sqlite3.connect(database)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA journal_mode=DELETE")
        finally:
            connection.close()
    except sqlite3.DatabaseError:
        if log.exists():
            _copy_file(log, Path(f"{kept}-wal"))
    _copy_file(database, kept)
    log.unlink(missing_ok=True)
    return kept


def _copy_file(source: Path, target: Path) -> None:
    """``source``'s bytes at ``target``, whole or not at all, private."""
    partial = target.with_name(f".{target.name}.partial")
    shutil.copyfile(source, partial)
    make_private(partial)
    os.replace(partial, target)


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
    make_private(target)  # it holds the seeds of games in play


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


def _schema(connection: sqlite3.Connection) -> set[tuple[str, str, str]]:
    """What a database is made of: each table, index, trigger and view, by kind, name and
    SQL (whitespace aside); SQLite's planner statistics left out."""
    rows = connection.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%'"
    ).fetchall()
    return {(kind, name, " ".join((sql or "").split())) for kind, name, sql in rows}


def _check_schema(path: Path) -> None:
    """``path`` has exactly the schema Penta's migrations make at its revision: not a table,
    column, index more or less, and no trigger or view (a :class:`StartupError` otherwise)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        try:
            revisions = connection.execute("SELECT version_num FROM alembic_version").fetchall()
        except sqlite3.DatabaseError:
            revisions = []
        found = _schema(connection)
    finally:
        connection.close()
    if len(revisions) != 1:
        raise StartupError(f"{path} is not a Penta database (no schema revision)")
    (revision,) = revisions[0]
    with tempfile.TemporaryDirectory(prefix="penta-schema-") as folder:
        reference = Path(folder) / "reference.db"
        command.upgrade(alembic_config(f"sqlite:///{reference}"), revision)
        made = sqlite3.connect(reference)
        try:
            expected = _schema(made)
        finally:
            made.close()
    if found != expected:
        extra = {(kind, name) for kind, name, _ in found - expected}
        missing = {(kind, name) for kind, name, _ in expected - found}
        differences = [
            f"{kind} {name} is changed" if (kind, name) in missing else f"{kind} {name} is extra"
            for kind, name in sorted(extra)
        ] + [f"{kind} {name} is missing" for kind, name in sorted(missing - extra)]
        raise StartupError(
            f"{path} does not have Penta's schema (revision {revision}): " + "; ".join(differences)
        )
