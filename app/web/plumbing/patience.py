"""Changes run on the event loop, and go to a thread only when they would have to wait.

A move is a fraction of a millisecond and SQLite takes one writer at a time, so the routes
make their changes on the loop (see ``app/web/routes/api.py``). But if another process holds the
database's write lock (a backup, an admin's ``sqlite3``), waiting for it there would stop
every page, move and live update of every game (docs/performance.md). The store
refuses to wait on the loop (:class:`~app.store.database.DatabaseBusyError`), and
:func:`patiently` then runs the same change again in a worker thread, where it may wait up
to ``PENTA_DATABASE_WAIT_SECONDS``; still busy after that, it is answered 503 ``busy``
(``app/web/plumbing/errors.py``). Nothing was read or changed by the attempt that was refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from anyio import to_thread

from app.store.database import DatabaseBusyError

T = TypeVar("T")


async def patiently(change: Callable[[], T]) -> T:
    """``change()`` on the loop if the database is free at once, else in a worker thread."""
    try:
        return change()
    except DatabaseBusyError:
        return await to_thread.run_sync(change)
