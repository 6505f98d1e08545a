"""``penta``: the operator's command line.

    penta serve [--host H] [--port P]   check, migrate, then serve (the Docker image's command)
    penta migrate                       bring the database schema up to date
    penta backup PATH [--force]         a consistent copy of the live database (file or folder)
    penta restore PATH                  replace the database with a backup (refused while a
                                        server runs, or if PATH is not exactly Penta's schema)
    penta strategy build                build the optimal strategy's table ahead of time
    penta version                       the version of Penta, Python and SQLite

Every command reads the same ``PENTA_*`` settings as the server. A problem the operator has
to fix (a bad setting, an unwritable folder, a database from a newer Penta) is printed as one
line on stderr, with exit status 1 and no traceback.
"""

from __future__ import annotations

import argparse
import logging
import platform
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app import __version__
from app.cli import backup as backups
from app.cli import preflight
from app.cli.preflight import StartupError
from app.fairness.__main__ import DEFAULT_SERVER
from app.fairness.verifier import seat_seed
from app.store.database import keep_files_private

LOG_FORMAT = "%(levelname)s:     %(message)s"
"""uvicorn's own format, so that Penta's lines read like the server's around them."""


def _serve(arguments: argparse.Namespace) -> None:
    import uvicorn

    settings = preflight.load_settings()
    preflight.check_all(settings)
    _log_to_stderr()
    # Migrations run in the app's start-up, before it serves a request. The app puts its own
    # connection limits and proxy trust (PENTA_TRUSTED_PROXIES) into uvicorn when it starts
    # (app/web/plumbing/server_setup.py), so nothing about them is decided here.
    uvicorn.run("app.main:app", host=arguments.host, port=arguments.port)


def _migrate(_arguments: argparse.Namespace) -> None:
    from app.store.migrate import current_revision, upgrade

    settings = preflight.load_settings()
    preflight.check_all(settings)
    upgrade(settings.resolved_database_url)
    print(f"database at schema revision {current_revision(settings.resolved_database_url)}")


def _backup(arguments: argparse.Namespace) -> None:
    settings = preflight.load_settings()
    database = backups.sqlite_path(settings.resolved_database_url)
    target = Path(arguments.path)
    if arguments.path.endswith("/"):  # a folder, made if need be, for a dated file
        preflight.check_writable(target, "backup folder")
    copied = backups.backup(database, target, force=arguments.force)
    print(f"backed up {copied.counted} to {copied.path} ({copied.size} bytes)")


def _restore(arguments: argparse.Namespace) -> None:
    settings = preflight.load_settings()
    preflight.check_storage(settings)
    database = backups.sqlite_path(settings.resolved_database_url)
    if arguments.path.is_file():
        preflight.check_backup(arguments.path)
    copied = backups.restore(arguments.path, database)
    print(f"restored {copied.counted} from {arguments.path} into {copied.path}")
    if copied.closed:
        games = f"{copied.closed} game{'' if copied.closed == 1 else 's'}"
        print(f"closed {games} in play: their dice could repeat rolls already seen")


def _after_restore(_arguments: argparse.Namespace) -> None:
    settings = preflight.load_settings()
    closed = backups.after_restore(settings.resolved_database_url)
    games = f"{closed} game{'' if closed == 1 else 's'}"
    print(f"closed {games} in play: their dice could repeat rolls already seen")


def _strategy_build(_arguments: argparse.Namespace) -> None:
    from app.strategy.__main__ import main as strategy_main

    settings = preflight.load_settings()
    location = settings.resolved_strategy_table
    preflight.check_writable(location if location.suffix != ".npz" else location.parent, "folder")
    strategy_main(["build", "--path", str(location)])


def _version(_arguments: argparse.Namespace) -> None:
    print(
        f"penta {__version__} (Python {platform.python_version()}, SQLite {sqlite3.sqlite_version})"
    )


class _QuietHealthChecks(logging.Filter):
    """Leave the container's own health checks (every 3 s, from 127.0.0.1) out of the access
    log, where they would bury the requests that matter; other ``/healthz`` calls stay."""

    def filter(self, record: logging.LogRecord) -> bool:
        arguments = record.args
        return not (
            isinstance(arguments, tuple)
            and len(arguments) >= 3
            and arguments[2] == "/healthz"
            and str(arguments[0]).startswith("127.0.0.1:")
        )


def _verify(arguments: argparse.Namespace) -> None:
    """The check of docs/fairness.md against a server: exit 0 when every roll matches."""
    from app.fairness.__main__ import verify

    seeds = dict(arguments.seed or [])
    status, report = verify(
        arguments.game, arguments.server, commitment=arguments.commitment, seeds=seeds
    )
    print(report, file=sys.stdout if status == 0 else sys.stderr)
    if status:
        raise SystemExit(status)


def _log_to_stderr() -> None:
    """Show Penta's own INFO lines (the strategy table's load or build) beside uvicorn's."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logger = logging.getLogger("app")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logging.getLogger("uvicorn.access").addFilter(_QuietHealthChecks())


def parser() -> argparse.ArgumentParser:
    """The argument parser; each command's handler is its ``run`` default."""
    root = argparse.ArgumentParser(
        prog="penta", description="Penta's operator tools.", epilog="Settings: PENTA_* (README)"
    )
    root.add_argument("--version", action="version", version=f"penta {__version__}")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, run: Callable[[argparse.Namespace], None], help_: str) -> Any:
        sub = commands.add_parser(name, help=help_, description=help_)
        sub.set_defaults(run=run)
        return sub

    serve = command("serve", _serve, "check the setup, migrate the database, then serve")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    command("migrate", _migrate, "bring the database schema up to date")
    backup = command(
        "backup", _backup, "copy the live database to PATH (a file, or a folder/ for a dated one)"
    )
    backup.add_argument("path", metavar="PATH")
    backup.add_argument("--force", action="store_true", help="replace PATH if it exists")
    command(
        "restore", _restore, "replace the database with the backup PATH (no server running)"
    ).add_argument("path", metavar="PATH", type=Path)
    command(
        "after-restore",
        _after_restore,
        "after pg_restore (no server running): close the games that were in play",
    )
    strategy = command("strategy", _strategy_build, "the optimal strategy's table")
    strategy.add_argument("action", choices=["build"], help="build it ahead of time")
    command("version", _version, "print the versions of Penta, Python and SQLite")
    verify = command("verify", _verify, "recompute every roll of a finished game (its log)")
    verify.add_argument("game", help="the game's id, or any URL of it")
    verify.add_argument("--server", default=DEFAULT_SERVER, help="the server, for a bare game id")
    verify.add_argument(
        "--commitment", help="the commitment the game showed you before its first roll (hex)"
    )
    verify.add_argument(
        "--seed",
        type=seat_seed,
        action="append",
        metavar="SEAT:SEED",
        help="the seed you gave for your seat (repeatable)",
    )
    return root


def main(argv: Sequence[str] | None = None) -> None:
    """Run one command; an operator's problem exits 1 with one line on stderr."""
    arguments = parser().parse_args(argv)
    keep_files_private()  # backups and the database hold the seeds of the dice to come
    try:
        arguments.run(arguments)
    except StartupError as error:
        print(f"penta: {error}", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
