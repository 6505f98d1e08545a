"""The database, its -wal and -shm and every backup hold the server seeds of games in play:
0600, the owner's only (issue 27, item 10), whatever the umask the server was started with;
a database an older Penta left 0644 is tightened at start."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.live_server import Server
from tests.operator.test_startup import penta

pytestmark = pytest.mark.single_kind  # the files of SQLite


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def umask(value: int) -> Iterator[None]:
    """The umask an operator's shell would hand the server (022: every file world-readable)."""
    before = os.umask(value)
    try:
        yield
    finally:
        os.umask(before)


def test_the_database_its_log_and_backups_are_the_owners_only(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    with umask(0o022):
        server = start_server()
    database = Path(server.database_url.removeprefix("sqlite:///"))
    with httpx.Client(base_url=f"{server.url}/api/v1") as client:
        seat = client.post("/games", json={"name": "Ann"}).json()
        token = seat["token"]
        game = seat["game"]["id"]
        client.post(f"/games/{game}/start", headers={"Authorization": f"Bearer {token}"})
    files = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
    assert all(path.exists() for path in files)
    assert {path.name: mode(path) for path in files} == {path.name: 0o600 for path in files}

    with umask(0o022):
        copied = penta("backup", str(tmp_path / "copy.db"), PENTA_DATA_DIR=str(database.parent))
        folder = penta("backup", f"{tmp_path / 'dated'}/", PENTA_DATA_DIR=str(database.parent))
    assert copied.returncode == 0, copied.stderr
    assert folder.returncode == 0, folder.stderr
    assert mode(tmp_path / "copy.db") == 0o600
    (dated,) = (tmp_path / "dated").glob("penta-*.db")
    assert mode(dated) == 0o600


def test_an_older_world_readable_database_is_tightened_at_start(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    database = Path(server.database_url.removeprefix("sqlite:///"))
    server.kill()
    database.chmod(0o644)
    with umask(0o022):
        server.restart()
    assert mode(database) == 0o600
