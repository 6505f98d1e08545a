"""How long the checkpointer holds moves off when it empties a long write-ahead log.

    .venv/bin/python bench/checkpoint.py [--rounds 4] [--log-mb 4.5]

Fills a SQLite database's log past ``--log-mb`` with move-sized commits, then empties it as
``Database.checkpoint`` does (``app/store/database.py``): a ``PASSIVE`` pass while changes go
on, then ``TRUNCATE`` behind the process's write lock. Next to it, in alternating rounds, the
same log emptied by ``TRUNCATE`` alone, as before. Prints per round the milliseconds spent
outside and inside the lock and the CPU, and the medians: the time inside is what a move
arriving then waits.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.store.database import Database


def fill(database: Database, log_bytes: float) -> None:
    """Commit rows of about three pages each (a move's game row, log entry and index) until
    the log holds ``log_bytes``."""
    while database.wal_bytes() < log_bytes:
        with database.write_connection() as connection:
            for _ in range(3):
                connection.exec_driver_sql("INSERT INTO t (v) VALUES (?)", (os.urandom(3000),))


def empty(database: Database, passive_first: bool) -> tuple[float, float, float]:
    """Milliseconds outside the lock, inside it, and of CPU."""
    started, cpu = time.perf_counter(), time.process_time()
    if passive_first:
        with database.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
    locked = time.perf_counter()
    with database.engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    done = time.perf_counter()
    assert database.wal_bytes() == 0
    return (
        1000 * (locked - started),
        1000 * (done - locked),
        1000 * (time.process_time() - cpu),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--log-mb", type=float, default=4.5)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="penta-checkpoint-") as folder:
        database = Database(f"sqlite:///{folder}/penta.db")
        database.start_checkpoints(every=3600)  # commits leave the log alone, as in a server
        try:
            with database.write_connection() as connection:
                connection.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)")
            figures: dict[str, list[tuple[float, float, float]]] = {
                "passive first": [],
                "truncate": [],
            }
            for number in range(2 * arguments.rounds):
                kind = ("passive first", "truncate")[number % 2]
                fill(database, arguments.log_mb * 1024 * 1024)
                figures[kind].append(empty(database, kind == "passive first"))
                outside, inside, cpu = figures[kind][-1]
                print(
                    f"round {number // 2 + 1} {kind:<14} outside the lock {outside:6.2f} ms, "
                    f"inside {inside:6.2f} ms, CPU {cpu:5.2f} ms"
                )
        finally:
            database.dispose()
    print(f"\nlog of {arguments.log_mb:g} MB, medians of {arguments.rounds} rounds:")
    for kind, rows in figures.items():
        outside, inside, cpu = (statistics.median(column) for column in zip(*rows, strict=True))
        print(
            f"  {kind:<14} moves held off {inside:6.2f} ms (outside {outside:5.2f}, CPU {cpu:5.2f})"
        )
    held = statistics.median(row[1] for row in figures["passive first"])
    before = statistics.median(row[1] for row in figures["truncate"])
    print(f"  held off, passive first / truncate alone: {held / before:.2f}")


if __name__ == "__main__":
    main()
