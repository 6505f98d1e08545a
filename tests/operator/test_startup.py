"""``penta``'s start-up checks: what an operator gets wrong is one line on stderr, exit 1,
no traceback; and a good start logs how the strategy table came to be."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from app import __version__
from app.store.migrate import head_revision
from tests.live_server import ROOT, TEST_SECRET_KEY, _free_port

HEAD = head_revision()
"""The newest schema revision this version knows (the migration files are named after it)."""
assert sorted((ROOT / "migrations" / "versions").glob("0*.py"))[-1].name.startswith(HEAD)


def penta(*arguments: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    """``penta ARGUMENTS`` with only the given PENTA_* settings."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PENTA_")}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *arguments],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def one_line_refusal(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_version() -> None:
    result = penta("version")
    assert result.returncode == 0
    assert re.fullmatch(
        rf"penta {re.escape(__version__)} \(Python 3\.\d+\.\d+, SQLite 3\.\d+\.\d+\)\n",
        result.stdout,
    )


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"PENTA_MAX_BODY_BYTES": "12"},
            "penta: bad setting PENTA_MAX_BODY_BYTES='12': Input should be greater than or "
            "equal to 1024 (fix it or unset it for the default)",
        ),
        (
            {"PENTA_SECRET_KEY": "short"},
            "penta: bad setting PENTA_SECRET_KEY: PENTA_SECRET_KEY needs at least 32 "
            "characters (fix it or unset it for the default)",
        ),
        (
            {"PENTA_DICE_SCRIPT": "1,2,3"},
            "penta: bad settings: PENTA_DICE_SCRIPT is for tests only: it needs PENTA_TESTING=true",
        ),
        (
            {"PENTA_DATABASE_URL": "not a url"},
            "penta: PENTA_DATABASE_URL is not a database URL: use a SQLAlchemy URL such as "
            "sqlite:////data/penta.db, or unset it to keep the database in PENTA_DATA_DIR",
        ),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable(
    tmp_path: Path, env: dict[str, str], line: str
) -> None:
    result = penta("serve", PENTA_DATA_DIR=str(tmp_path / "data"), **env)
    assert one_line_refusal(result) == line
    assert not (tmp_path / "data").exists()  # refused before anything was written


def test_an_unwritable_data_folder_is_one_line_with_the_fix(tmp_path: Path) -> None:
    if os.getuid() == 0:
        pytest.skip(
            "root writes to any folder; tests/docker runs the image (uid 10001) on a "
            "root-owned bind mount instead"
        )
    folder = tmp_path / "data"
    folder.mkdir(mode=0o555)
    uid = os.getuid()
    result = penta("serve", PENTA_DATA_DIR=str(folder))
    assert one_line_refusal(result) == (
        f"penta: cannot write to the data folder {folder} (Permission denied, owned by uid "
        f"{uid}; Penta runs as uid {uid}): make it writable for uid {uid}, e.g. "
        f"`chown -R {uid}:{uid} FOLDER` on the host for a Docker bind mount, or use a named "
        "volume (-v penta-data:/data)"
    )


def test_a_data_folder_that_cannot_be_made_is_one_line_too(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    folder = tmp_path / "a-file" / "data"
    uid = os.getuid()
    result = penta("migrate", PENTA_DATA_DIR=str(folder))
    assert one_line_refusal(result) == (
        f"penta: cannot write to the data folder {folder} (Not a directory, owned by uid "
        f"{uid}; Penta runs as uid {uid}): make it writable for uid {uid}, e.g. "
        f"`chown -R {uid}:{uid} FOLDER` on the host for a Docker bind mount, or use a named "
        "volume (-v penta-data:/data)"
    )


def test_a_database_from_a_newer_penta_is_refused_untouched(tmp_path: Path) -> None:
    data = {"PENTA_DATA_DIR": str(tmp_path)}
    assert penta("migrate", **data).stdout == f"database at schema revision {HEAD}\n"
    with sqlite3.connect(tmp_path / "penta.db") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099'")
    for command in ("serve", "migrate"):
        assert one_line_refusal(penta(command, **data)) == (
            "penta: the database was written by a newer Penta (schema revision 0099, this "
            f"version knows up to {HEAD}): run that newer version again, or `penta restore` a "
            "backup taken with this one"
        )
    with sqlite3.connect(tmp_path / "penta.db") as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("0099",)
        ]


def test_serve_logs_that_the_table_was_loaded_and_how_long_it_took(
    tmp_path: Path, strategy_table: Path
) -> None:
    port = _free_port()
    log = (tmp_path / "server.log").open("w+")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PENTA_")}
    environment |= {
        "PENTA_DATA_DIR": str(tmp_path / "data"),
        "PENTA_STRATEGY_TABLE": str(strategy_table),
        "PENTA_SECRET_KEY": TEST_SECRET_KEY,
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, Path(log.name).read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, Path(log.name).read_text()
                time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=20)
    output = Path(log.name).read_text()
    assert re.search(
        rf"INFO:     strategy table loaded from {re.escape(str(strategy_table))}/strategy-"
        r"\w{12}\.npz in \d+\.\d\d s\n",
        output,
    ), output
    assert "Traceback" not in output


def test_backup_into_a_folder_makes_a_dated_file_and_restore_keeps_the_replaced_database(
    tmp_path: Path,
) -> None:
    data = {"PENTA_DATA_DIR": str(tmp_path / "data")}
    assert penta("migrate", **data).returncode == 0
    backed_up = penta("backup", f"{tmp_path / 'backups'}/", **data)
    assert backed_up.returncode == 0, backed_up.stderr
    (backup,) = (tmp_path / "backups").glob("penta-*.db")
    assert re.fullmatch(r"penta-\d{8}T\d{6}Z\.db", backup.name)
    assert backed_up.stdout == f"backed up 0 games to {backup} ({backup.stat().st_size} bytes)\n"
    restored = penta("restore", str(backup), **data)
    assert restored.returncode == 0, restored.stderr
    (kept,) = (tmp_path / "data").glob("penta-before-restore-*.db")
    assert kept.stat().st_size > 0


def test_backup_and_restore_refuse_what_they_cannot_use_in_one_line(tmp_path: Path) -> None:
    data = {"PENTA_DATA_DIR": str(tmp_path / "data")}
    assert one_line_refusal(penta("backup", str(tmp_path / "b.db"), **data)) == (
        f"penta: there is no database at {tmp_path / 'data' / 'penta.db'} to back up"
    )
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("not a database, but long enough to have a header " * 10)
    assert one_line_refusal(penta("restore", str(not_a_database), **data)) == (
        f"penta: {not_a_database} is not a Penta database (file is not a database)"
    )
    assert not (tmp_path / "data" / "penta.db").exists()
    assert one_line_refusal(penta("restore", str(tmp_path / "missing.db"), **data)) == (
        f"penta: there is no backup at {tmp_path / 'missing.db'}"
    )


def test_a_backup_from_a_newer_penta_is_refused_before_anything_is_replaced(
    tmp_path: Path,
) -> None:
    newer, data = tmp_path / "newer", {"PENTA_DATA_DIR": str(tmp_path / "data")}
    assert penta("migrate", PENTA_DATA_DIR=str(newer)).returncode == 0
    with sqlite3.connect(newer / "penta.db") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099'")
    assert penta("migrate", **data).returncode == 0
    before = (tmp_path / "data" / "penta.db").read_bytes()
    assert one_line_refusal(penta("restore", str(newer / "penta.db"), **data)) == (
        f"penta: the backup {newer / 'penta.db'} was taken by a newer Penta (schema revision "
        f"0099, this version knows up to {HEAD}): restore it with that version"
    )
    assert (tmp_path / "data" / "penta.db").read_bytes() == before
    assert not list((tmp_path / "data").glob("penta-before-restore-*"))
