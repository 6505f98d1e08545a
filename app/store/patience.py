"""Changes run on the event loop, and go to a thread only when they would have to wait for
another process.

A move is a fraction of a millisecond and SQLite takes one writer at a time, so the routes and
the scheduler make their changes on the loop. But if another process holds the database's
write lock (a backup, an admin's ``sqlite3``), waiting for it there would stop every page, move
and live update of every game (docs/performance.md). The store refuses to wait on the loop
(:class:`~app.store.database.DatabaseBusyError`), and :func:`patiently` then runs the same
change again in a worker thread, where it may wait up to ``PENTA_DATABASE_WAIT_SECONDS``; still
busy after that, it is answered 503 ``busy`` (``app/web/plumbing/errors.py``). Nothing was read
or changed by the attempt that was refused.

When the holder is a thread of this process (such a change, or the checkpointer emptying the
log), the change waits for it on the loop and tries again there: sent to a thread too, every
move behind it took the same path, each then holding the lock across the threads' turns at the
interpreter, and one worker's moves at saturation went from the loop to the thread pool for
good (docs/performance.md, "Waiting for the database").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from anyio import to_thread

from app.store.database import DatabaseBusyError, HeldInProcess

T = TypeVar("T")


async def patiently(change: Callable[[], T]) -> T:
    """``change()`` on the loop once the database is free of this process's other changes;
    in a worker thread if another process holds it, or if this one's have held it for
    ``PENTA_DATABASE_WAIT_SECONDS`` (the thread then waits as long again, and is counted)."""
    deadline: float | None = None
    while True:
        try:
            return change()
        except HeldInProcess as held:
            database = held.database
            if deadline is None:
                deadline = time.monotonic() + database.wait_seconds
            left = deadline - time.monotonic()
            if left <= 0 or not await database.released(left):
                break
        except DatabaseBusyError:
            break
    return await to_thread.run_sync(change)
