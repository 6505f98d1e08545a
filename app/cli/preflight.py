"""What ``penta`` checks before it serves or migrates: each failure is one sentence for the
operator, saying what is wrong and how to fix it, instead of a traceback from deep inside."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import ValidationError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from app.settings import Settings
from app.store.migrate import UnknownRevision, check_known_revision

_SECRET_FIELDS = frozenset({"secret_key", "database_url"})
"""Settings whose values are never echoed (a URL may hold a password)."""


class StartupError(Exception):
    """A problem the operator has to fix; its message is the whole explanation."""


def load_settings() -> Settings:
    """The settings from the environment, or a :class:`StartupError` naming the bad variable."""
    try:
        settings = Settings()
    except ValidationError as error:
        raise StartupError(_describe(error)) from None
    try:
        make_url(settings.resolved_database_url)
    except ArgumentError:
        raise StartupError(
            "PENTA_DATABASE_URL is not a database URL: use a SQLAlchemy URL such as "
            "sqlite:////data/penta.db, or unset it to keep the database in PENTA_DATA_DIR"
        ) from None
    return settings


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    reason = first["msg"].removeprefix("Value error, ")
    if not field:  # a rule across several settings: its message names them
        return f"bad settings: {reason}"
    variable = f"PENTA_{field.upper()}"
    shown = "" if field in _SECRET_FIELDS else f"={first.get('input')!r}"
    return f"bad setting {variable}{shown}: {reason} (fix it or unset it for the default)"


def check_writable(folder: Path, what: str) -> None:
    """Refuse a folder this process cannot create files in, with the command that fixes it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".penta-probe-"):
            pass
    except OSError as error:
        raise StartupError(_unwritable(folder, what, error)) from None


def _unwritable(folder: Path, what: str, error: OSError) -> str:
    uid = os.getuid()
    existing = next((p for p in (folder, *folder.parents) if p.exists()), folder)
    try:
        owner = f", owned by uid {existing.stat().st_uid}"
    except OSError:
        owner = ""
    return (
        f"cannot write to the {what} {folder} ({error.strerror}{owner}; Penta runs as uid "
        f"{uid}): make it writable for uid {uid}, e.g. `chown -R {uid}:{uid} FOLDER` on the "
        "host for a Docker bind mount, or use a named volume (-v penta-data:/data)"
    )


def check_storage(settings: Settings) -> None:
    """The data folder, and the SQLite database's own folder and file, can be written."""
    check_writable(settings.data_dir, "data folder")
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database)
        check_writable(database.parent, "database folder")
        if database.exists() and not os.access(database, os.W_OK):
            raise StartupError(
                f"cannot write to the database {database} (owned by uid "
                f"{database.stat().st_uid}; Penta runs as uid {os.getuid()}): "
                f"`chown {os.getuid()} {database}` (and its -wal and -shm files)"
            )


def check_database(settings: Settings) -> None:
    """The database is not from a newer Penta (whose migrations this one does not know)."""
    try:
        check_known_revision(settings.resolved_database_url)
    except UnknownRevision as error:
        raise StartupError(
            f"the database was written by a newer Penta (schema revision {error.revision}, "
            f"this version knows up to {error.head}): run that newer version again, or "
            "`penta restore` a backup taken with this one"
        ) from None


def check_backup(path: Path) -> None:
    """A backup to restore is not from a newer Penta (checked before anything is replaced).
    Whether it is a Penta database at all, the restore itself checks."""
    try:
        check_known_revision(f"sqlite:///{path}")
    except UnknownRevision as error:
        raise StartupError(
            f"the backup {path} was taken by a newer Penta (schema revision {error.revision}, "
            f"this version knows up to {error.head}): restore it with that version"
        ) from None
    except DBAPIError:
        return


def check_all(settings: Settings) -> None:
    """Every check, in the order an operator would fix them."""
    check_storage(settings)
    check_database(settings)
