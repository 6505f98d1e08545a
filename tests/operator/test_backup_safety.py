"""What ``penta backup`` and ``penta restore`` refuse (issue 27): a backup onto the live
database by any of its names, over a file without ``--force``; a restore while a server uses the
database, or of a file whose schema is not exactly Penta's; and what a restore keeps of the
database it replaces."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.fairness.verifier import check
from app.store.data_lock import DatabaseInUse, DataLock
from tests.live_server import Server
from tests.operator.test_startup import one_line_refusal, penta

pytestmark = pytest.mark.single_kind  # penta backup and restore copy a SQLite file


def _play(url: str) -> tuple[str, int]:
    """A solo game started and rolled once: its id and version."""
    with httpx.Client(base_url=url, timeout=30) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, token = created["game"]["id"], created["token"]
        headers = {"Authorization": f"Bearer {token}"}
        assert client.post(f"/api/v1/games/{game_id}/start", headers=headers).status_code == 200
        rolled = client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=headers)
        assert rolled.status_code == 200
        return game_id, rolled.json()["version"]


def _version(database: Path, game_id: str) -> int:
    """The game's version in ``database`` read alone (no -wal beside it is looked at)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro&immutable=1", uri=True)
    try:
        (version,) = connection.execute(
            "SELECT version FROM games WHERE id = ?", (game_id,)
        ).fetchone()
    finally:
        connection.close()
    return int(version)


def _sound(database: Path) -> bool:
    connection = sqlite3.connect(database)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        connection.close()


def test_a_backup_onto_the_live_database_by_any_name_is_refused_and_play_goes_on(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    server = start_server()
    data = Path(server.environment["PENTA_DATA_DIR"])
    database = data / "penta.db"
    game_id, version = _play(server.url)
    assert Path(f"{database}-wal").exists(), "the server runs in WAL mode"
    (tmp_path / "link.db").symlink_to(database)
    os.link(database, tmp_path / "hard.db")
    names = [
        database,
        Path(f"{database}-wal"),
        Path(f"{database}-shm"),
        data / "penta.db.lock",
        tmp_path / "link.db",
        tmp_path / "hard.db",
        data / ".." / data.name / "penta.db",
    ]
    for name in names:
        refusal = one_line_refusal(penta("backup", str(name), "--force", PENTA_DATA_DIR=str(data)))
        assert "is the live database's own file" in refusal, refusal
    assert not list(data.glob(".*partial")), "nothing was half written"
    # The game goes on, and the database is sound after a restart.
    with httpx.Client(base_url=server.url) as client:
        assert client.get(f"/api/v1/games/{game_id}").json()["version"] == version
    more, more_version = _play(server.url)
    server.stop()
    assert _sound(database)
    assert _version(database, more) == more_version


def test_a_backup_over_an_existing_file_needs_force_and_is_private(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    server = start_server()
    data = server.environment["PENTA_DATA_DIR"]
    game_id, version = _play(server.url)
    target = tmp_path / "backup.db"
    target.write_text("last week's notes")
    refusal = one_line_refusal(penta("backup", str(target), PENTA_DATA_DIR=data))
    assert refusal == f"penta: {target} exists already: pass --force to replace it"
    assert target.read_text() == "last week's notes"
    result = penta("backup", str(target), "--force", PENTA_DATA_DIR=data)
    assert result.returncode == 0, result.stderr
    assert target.stat().st_mode & 0o777 == 0o600
    assert _version(target, game_id) == version


def test_a_restore_while_a_server_runs_is_refused_before_anything_is_touched(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    server = start_server()
    data = Path(server.environment["PENTA_DATA_DIR"])
    game_id, _ = _play(server.url)
    backup = tmp_path / "backup.db"
    assert penta("backup", str(backup), PENTA_DATA_DIR=str(data)).returncode == 0
    before = sorted(path.name for path in data.iterdir())
    _play(server.url)  # acknowledged after the backup
    refusal = one_line_refusal(penta("restore", str(backup), PENTA_DATA_DIR=str(data)))
    assert refusal == (
        f"penta: a Penta server is using {data / 'penta.db'}: stop it, then restore "
        "(penta backup works while it runs)"
    )
    assert sorted(path.name for path in data.iterdir()) == before, "no file made or replaced"
    with httpx.Client(base_url=server.url) as client:
        assert client.get(f"/api/v1/games/{game_id}").status_code == 200
    newer, newer_version = _play(server.url)
    server.stop()
    assert _version(data / "penta.db", newer) == newer_version
    # Once the server is stopped, the same restore goes through; what was played after the
    # backup is kept aside, not lost.
    result = penta("restore", str(backup), PENTA_DATA_DIR=str(data))
    assert result.returncode == 0, result.stderr
    (kept,) = data.glob("penta-before-restore-*.db")
    assert _version(kept, newer) == newer_version


def test_a_server_does_not_start_while_a_restore_holds_the_database(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    database = tmp_path / "data" / "penta.db"
    with DataLock(database, exclusive=True), pytest.raises(DatabaseInUse, match="restored"):
        make_client(data_dir=tmp_path / "data")
    make_client(data_dir=tmp_path / "data")  # once it is done, it starts
    with pytest.raises(DatabaseInUse):  # and a restore cannot begin while it runs
        DataLock(database, exclusive=True).acquire()


def test_a_restore_keeps_every_acknowledged_move_of_a_killed_server_aside(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    """The server killed: its last moves are in the -wal alone. The copy kept aside holds them
    by itself, and no log of the old database is left beside the restored one."""
    server = start_server()
    data = Path(server.environment["PENTA_DATA_DIR"])
    backup = tmp_path / "backup.db"
    assert penta("backup", str(backup), PENTA_DATA_DIR=str(data)).returncode == 0
    game_id, version = _play(server.url)
    server.kill()
    assert Path(f"{data / 'penta.db'}-wal").stat().st_size > 0
    result = penta("restore", str(backup), PENTA_DATA_DIR=str(data))
    assert result.returncode == 0, result.stderr
    (kept,) = data.glob("penta-before-restore-*.db")
    assert not Path(f"{kept}-wal").exists()
    assert _version(kept, game_id) == version
    assert kept.stat().st_mode & 0o777 == 0o600
    assert not Path(f"{data / 'penta.db'}-wal").exists()
    restored = sqlite3.connect(data / "penta.db")
    try:
        found = restored.execute("SELECT count(*) FROM games WHERE id = ?", (game_id,)).fetchone()
    finally:
        restored.close()
    assert found == (0,), "the restored database is the backup's, from before that game"
    assert not list(data.glob(".*restoring"))


def test_a_restore_closes_the_games_in_play_so_no_dice_are_dealt_twice(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    """Dice depend only on a game's seeds and its roll number: a game rolled back and played
    on would deal again the rolls its players saw after the backup. It is closed instead,
    with its reason, its seed revealed and its rolls up to the backup verifiable."""
    server = start_server()
    data = Path(server.environment["PENTA_DATA_DIR"])
    backup = tmp_path / "backup.db"
    with httpx.Client(base_url=server.url, timeout=30) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, headers = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
        assert client.post(f"/api/v1/games/{game_id}/start", headers=headers).status_code == 200
        roll = f"/api/v1/games/{game_id}/roll"
        first = client.post(roll, json={}, headers=headers).json()["dice"]
        waiting = client.post("/api/v1/games", json={"name": "Cy"}).json()["game"]["id"]
        assert penta("backup", str(backup), PENTA_DATA_DIR=str(data)).returncode == 0
        seen_after = client.post(roll, json={"hold": []}, headers=headers).json()["dice"]
    server.stop()
    result = penta("restore", str(backup), PENTA_DATA_DIR=str(data))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [
        "closed 1 game in play: their dice could repeat rolls already seen"
    ]
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        game = client.get(f"/api/v1/games/{game_id}").json()
        assert (game["status"], game["closed_reason"]) == ("abandoned", "restored")
        again = client.post(roll, json={"hold": []}, headers=headers)
        assert again.status_code == 409, f"the roll seen after the backup ({seen_after}) again"
        assert again.json()["error"]["code"] == "abandoned"
        log = client.get(f"/api/v1/games/{game_id}/log").json()
        assert log["fairness"]["server_seed"], "revealed: the game is over"
        assert [entry["dice"] for entry in log["rolls"]] == [first], "as the backup had it"
        assert check(log) == []
        page = client.get(f"/games/{game_id}")
        assert "closed when the server was restored from a backup" in page.text
        assert client.get(f"/api/v1/games/{waiting}").json()["status"] == "waiting", (
            "no dice were seen in a game not started: it goes on"
        )


TAMPERINGS = {
    "a trigger": (
        "CREATE TRIGGER leak AFTER UPDATE OF version ON games BEGIN "
        "UPDATE players SET name = NEW.server_seed WHERE game_id = NEW.id; END",
        "trigger leak is extra",
    ),
    "a view": ("CREATE VIEW seeds AS SELECT server_seed FROM games", "view seeds is extra"),
    "a dropped index": ("DROP INDEX ix_games_status", "index ix_games_status is missing"),
    "an added column": ("ALTER TABLE players ADD COLUMN note TEXT", "table players is changed"),
    "an added table": ("CREATE TABLE notes (text TEXT)", "table notes is extra"),
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_a_backup_whose_schema_is_not_pentas_is_refused_before_anything_is_touched(
    make_client: Callable[..., TestClient], tmp_path: Path, tampering: str
) -> None:
    data = tmp_path / "data"
    client = make_client(data_dir=data)
    assert client.post("/api/v1/games", json={"name": "Ann"}).status_code == 201
    backup = tmp_path / "backup.db"
    assert penta("backup", str(backup), PENTA_DATA_DIR=str(data)).returncode == 0
    statement, said = TAMPERINGS[tampering]
    with sqlite3.connect(backup) as connection:
        connection.execute(statement)
    connection.close()
    target = tmp_path / "other"
    refusal = one_line_refusal(penta("restore", str(backup), PENTA_DATA_DIR=str(target)))
    assert refusal.startswith(f"penta: {backup} does not have Penta's schema (revision "), refusal
    assert said in refusal, refusal
    assert not target.exists() or not list(target.iterdir()), "nothing was made"
