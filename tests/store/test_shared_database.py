"""PostgreSQL as the database several workers share: row locks, claims, migrations, the key."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import create_engine, insert, text

from app.service.games import GameService
from app.settings import Settings
from app.store import database as database_module
from app.store.database import Database, DatabaseBusyError
from app.store.migrate import head_revision, upgrade
from app.store.models import GameRecord
from app.store.snapshots import current_version
from tests import databases
from tests.hardening.conftest import run_async
from tests.web.helpers import act

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.single_kind  # each test picks its own PostgreSQL schema

JOINS = 8
WORKERS = 4


@pytest.fixture
def shared_url(postgres_database: databases.TestDatabase) -> Iterator[str]:
    """A fresh PostgreSQL schema of its own (these tests are about PostgreSQL only)."""
    with postgres_database.schema() as url:
        yield url


def _create(client: TestClient) -> tuple[str, str]:
    response = client.post("/api/v1/games", json={"name": "Ann"})
    assert response.status_code == 201, response.text
    return response.json()["game"]["id"], response.json()["token"]


def test_a_shared_database_needs_the_secret_key_from_the_environment(tmp_path: Path) -> None:
    url = "postgresql+psycopg://postgres@127.0.0.1:5432/penta"
    with pytest.raises(ValidationError, match="PENTA_SECRET_KEY is required"):
        Settings(data_dir=tmp_path, database_url=url)
    assert Settings(data_dir=tmp_path, database_url=url, secret_key="k" * 32).database_is_shared
    assert not Settings(data_dir=tmp_path).database_is_shared  # SQLite keeps its key file


def test_workers_starting_together_migrate_once(shared_url: str) -> None:
    script = "import sys; from app.store.migrate import upgrade; upgrade(sys.argv[1])"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, shared_url],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(WORKERS)
    ]
    outputs = [worker.communicate(timeout=120)[0] for worker in workers]
    assert [worker.returncode for worker in workers] == [0] * WORKERS, outputs
    engine = create_engine(shared_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
                (head_revision(),)
            ]
            tables = connection.execute(
                text("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
            ).scalar()
    finally:
        engine.dispose()
    # games, players, actions, reviews, service_runs, match_queue, people, ratings, alembic_version
    assert tables == 9


def test_joins_from_two_workers_at_once_take_exactly_the_free_seats(
    make_client: Callable[..., TestClient], shared_url: str
) -> None:
    # Two apps on one database are two workers: each its own engine and snapshot cache.
    workers = [make_client(database_url=shared_url) for _ in range(2)]
    game_id, _host = _create(workers[0])
    barrier = threading.Barrier(JOINS)

    def join(number: int) -> int:
        barrier.wait()
        client = workers[number % 2]
        response = client.post(f"/api/v1/games/{game_id}/players", json={"name": f"P{number}"})
        return response.status_code

    with ThreadPoolExecutor(JOINS) as pool:
        statuses = sorted(pool.map(join, range(JOINS)))
    assert statuses == [201] * 5 + [409] * 3
    game = workers[1].get(f"/api/v1/games/{game_id}").json()
    assert [player["seat"] for player in game["players"]] == list(range(6))
    assert game["version"] == 1 + 5  # one version for each commit, none lost


def test_a_change_on_the_event_loop_goes_to_a_thread_on_a_shared_database(
    shared_url: str,
) -> None:
    database = Database(shared_url)

    async def on_the_loop() -> None:
        with database.write_connection():
            pass

    try:
        with pytest.raises(DatabaseBusyError, match="off the loop"):
            run_async(on_the_loop())
        with database.write_connection() as connection:  # off the loop: it may wait
            assert connection.exec_driver_sql("SHOW lock_timeout").scalar() == "2s"
    finally:
        database.dispose()


def test_a_write_waits_for_the_game_row_another_holds(
    make_client: Callable[..., TestClient], shared_url: str
) -> None:
    client = make_client(database_url=shared_url)
    game_id, host = _create(client)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    held = threading.Event()
    release = threading.Event()

    def hold_the_row() -> None:
        with service.database.write_connection() as connection:
            assert current_version(connection, game_id) == 1  # locks the row
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    assert held.wait(10)
    threading.Timer(0.5, release.set).start()
    answer = act(client, game_id, host, "computers")  # waits for the row, then applies
    assert release.is_set(), "the change went ahead while another held the game's row"
    holder.join()
    assert answer["version"] == 2


def test_the_scheduler_skips_a_game_another_worker_is_playing(
    make_client: Callable[..., TestClient], shared_url: str
) -> None:
    client = make_client(database_url=shared_url, computer_pace_seconds=3600)
    game_id, host = _create(client)
    act(client, game_id, host, "computers")
    act(client, game_id, host, "start")
    act(client, game_id, host, "roll", {"hold": []})
    act(client, game_id, host, "score", {"box": "chance"})  # the computer is to move
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    held = threading.Event()
    release = threading.Event()

    def hold_the_row() -> None:
        with service.database.write_connection() as connection:
            current_version(connection, game_id)
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    assert held.wait(10)
    try:
        version = client.get(f"/api/v1/games/{game_id}").json()["version"]
        # Skipped, not waited for: waiting would end in DatabaseBusyError (lock_timeout).
        again = service.play_for_computer(game_id)
        assert again is not None
        assert again > 0  # looked at again a step later
        assert client.get(f"/api/v1/games/{game_id}").json()["version"] == version
    finally:
        release.set()
        holder.join()
    assert service.play_for_computer(game_id) is not None  # now it plays its step
    assert client.get(f"/api/v1/games/{game_id}").json()["version"] == version + 1


def _backend_of(database: Database) -> int:
    """The server process of the connection the pool hands out next (the one used last)."""
    with database.read_connection() as connection:
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    assert isinstance(pid, int)
    return pid


def _terminate(shared_url: str, pid: int) -> None:
    """End a server process, as a database restart or a dropped connection does."""
    # Each query its own transaction: within one, pg_stat_activity keeps showing what it
    # showed first, and a backend still ending then would never be seen gone.
    admin = create_engine(shared_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            ended = connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            assert ended.scalar() is True
            for _ in range(100):  # it ends shortly after it is told to
                alive = "SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"
                if not connection.execute(text(alive), {"pid": pid}).scalar():
                    return
                time.sleep(0.05)
        raise AssertionError(f"backend {pid} did not end")
    finally:
        admin.dispose()


def test_only_a_connection_idle_for_a_while_is_pinged_and_a_dead_one_replaced(
    shared_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = Database(shared_url)
    pings: list[psycopg.Connection[object]] = []
    real_ping = database.engine.dialect.do_ping

    def ping(dbapi_connection: psycopg.Connection[object]) -> bool:
        pings.append(dbapi_connection)
        return real_ping(dbapi_connection)

    monkeypatch.setattr(database.engine.dialect, "do_ping", ping)
    monkeypatch.setattr(database_module, "PING_IDLE_SECONDS", 3600.0)  # however slow the machine
    try:
        first = _backend_of(database)
        assert _backend_of(database) == first  # the connection used last, not pinged
        assert pings == []
        _terminate(shared_url, first)
        monkeypatch.setattr(database_module, "PING_IDLE_SECONDS", 0.0)  # idle long enough
        assert _backend_of(database) != first  # pinged, found dead, replaced: no error
        # (Its replacement is pinged too, every taking being "idle long enough" now.)
        assert [connection.broken for connection in pings] == [True, False]
    finally:
        database.dispose()


def test_connections_that_died_just_after_use_fail_one_request_then_all_are_replaced(
    make_client: Callable[..., TestClient], shared_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trade of pinging only idle connections: one request fails (503 ``storage``, not
    500: the hot path's driver errors are raised as SQLAlchemy's) where the pool's ping at
    every taking would have replaced the connection; the pool then drops every connection it
    held, and the next request and move work."""
    client = make_client(database_url=shared_url)
    game_id, host = _create(client)
    database: Database = client.app.state.service.database  # type: ignore[attr-defined]
    # "A moment ago", however slow the machine is while the backends end.
    monkeypatch.setattr(database_module, "PING_IDLE_SECONDS", 3600.0)
    with database.read_connection() as first, database.read_connection() as second:
        backends = [
            connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            for connection in (first, second)
        ]
    for pid in backends:  # both pooled, both used a moment ago: no ping will find them dead
        assert isinstance(pid, int)
        _terminate(shared_url, pid)
    failed = client.get(f"/api/v1/games/{game_id}")
    assert (failed.status_code, failed.json()["error"]["code"]) == (503, "storage"), failed.text
    assert client.get(f"/api/v1/games/{game_id}").status_code == 200  # not the other dead one
    act(client, game_id, host, "start")


def test_a_lock_not_granted_in_time_is_busy(shared_url: str) -> None:
    """A write that waits longer than the lock timeout for a game's row another holds is
    ``DatabaseBusyError`` (503 ``busy``), also when the hot path's own read waits for it."""
    database = Database(shared_url, wait_seconds=0.2)
    upgrade(shared_url)
    held, release = threading.Event(), threading.Event()

    def hold_the_row() -> None:
        with database.write_connection() as connection:
            connection.execute(insert(GameRecord).values(id="held"))
        with database.write_connection() as connection:
            current_version(connection, "held")
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    try:
        assert held.wait(10)
        with pytest.raises(DatabaseBusyError), database.write_connection() as connection:
            current_version(connection, "held")
    finally:
        release.set()
        holder.join()
        database.dispose()
