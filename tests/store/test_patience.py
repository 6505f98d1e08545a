"""Changes made on the event loop wait there for this process's other changes, and go to a
thread only for another process (``app/store/patience.py``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from app.store.database import Database, HeldInProcess
from app.store.patience import patiently


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'penta.db'}", wait_seconds=5.0)
    with database.write_connection() as connection:
        connection.exec_driver_sql("CREATE TABLE moves (id INTEGER PRIMARY KEY, thread INTEGER)")
    yield database
    database.dispose()


def _hold_in_a_thread(database: Database, release: threading.Event) -> threading.Thread:
    """A thread of this process that takes the write lock and keeps it until ``release``."""
    held = threading.Event()

    def hold() -> None:
        with database.write_connection():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(5)
    return holder


def _move(database: Database) -> int:
    with database.write_connection() as connection:
        connection.exec_driver_sql(
            "INSERT INTO moves (thread) VALUES (?)", (threading.get_ident(),)
        )
    return threading.get_ident()


def test_moves_behind_a_thread_of_this_process_wait_on_the_loop_and_are_made_there(
    database: Database,
) -> None:
    waited = REGISTRY.get_sample_value("penta_database_wait_seconds_sum") or 0.0
    release = threading.Event()
    holder = _hold_in_a_thread(database, release)

    async def play() -> tuple[int, list[int]]:
        with pytest.raises(HeldInProcess):
            _move(database)  # refused on the loop at once, nothing written
        moves = [asyncio.create_task(patiently(lambda: _move(database))) for _ in range(20)]
        await asyncio.sleep(0.05)
        assert not any(move.done() for move in moves)  # waiting, not refused
        release.set()
        return threading.get_ident(), list(await asyncio.gather(*moves))

    loop_thread, threads = asyncio.run(play())
    holder.join()
    # Every move was made on the loop's own thread: none queued behind the holder in the
    # thread pool (where each then held the lock across the threads' turns).
    assert threads == [loop_thread] * 20
    with database.read_connection() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM moves").scalar() == 20
    # The operators see the wait: 20 moves each waited most of the 50 ms the holder kept on.
    assert (REGISTRY.get_sample_value("penta_database_wait_seconds_sum") or 0.0) - waited >= 0.5


def test_a_move_goes_to_a_thread_when_this_process_holds_the_lock_past_the_wait(
    database: Database,
) -> None:
    database.wait_seconds = 0.3
    release = threading.Event()
    holder = _hold_in_a_thread(database, release)
    in_a_thread = threading.Event()

    def change() -> int:
        if threading.current_thread() is not threading.main_thread():
            in_a_thread.set()
        return _move(database)

    try:

        async def play() -> tuple[int, int]:
            move = asyncio.create_task(patiently(change))
            while not in_a_thread.is_set():  # past the loop's wait, the move goes to a thread
                await asyncio.sleep(0.01)
            release.set()
            return threading.get_ident(), await move

        loop_thread, thread = asyncio.run(play())
        assert thread != loop_thread
    finally:
        release.set()
        holder.join()


def test_a_wait_on_the_loop_ends_at_its_timeout_and_its_closed_loop_is_not_woken(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    errors: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: errors.append(hook.exc_value))
    release = threading.Event()
    holder = _hold_in_a_thread(database, release)
    try:
        # The loop stops waiting, and is closed, while the thread still holds the lock.
        assert asyncio.run(database.released(0.05)) is False
    finally:
        release.set()
        holder.join()
    assert errors == []  # the holder let go without tripping over the closed loop
    assert database._loop_waiters == []
    assert asyncio.run(database.released(0.05)) is True
