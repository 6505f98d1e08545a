"""The retention sweep, at start-up and then every hour, always in a worker thread; each
sweep also notes that this server is up (retention counts idle time only while one was)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from anyio import to_thread

from app.service.changes import Changes
from app.service.clock import now
from app.store import retention
from app.store.database import DatabaseBusyError

SWEEP_EVERY_SECONDS = 3600.0
logger = logging.getLogger(__name__)


class RetentionSweeper:
    """Closes stalled games and deletes old closed ones (see :mod:`app.store.retention`)."""

    def __init__(
        self, changes: Changes, *, abandon_after_days: float, delete_after_days: float
    ) -> None:
        self.changes = changes
        self.abandon_after = timedelta(days=abandon_after_days) if abandon_after_days else None
        self.delete_after = timedelta(days=delete_after_days) if delete_after_days else None
        self._task: asyncio.Task[None] | None = None
        self.run: int | None = None
        """This server's run on the database (kept by each sweep): idle time counts only
        while some server ran."""

    def sweep(self) -> retention.Swept:
        """One sweep, committed, then every closed game announced (blocking: run it in a
        thread)."""
        swept = self.changes.store.sweep(
            now(), abandon_after=self.abandon_after, delete_after=self.delete_after, run=self.run
        )
        self.run = swept.run
        for game_id, version in swept.abandoned.items():
            for listener in self.changes.listeners:
                listener(game_id, version, None)
        if swept.abandoned or swept.deleted:
            logger.info(
                "retention: %d games closed as abandoned, %d deleted",
                len(swept.abandoned),
                swept.deleted,
            )
        return swept

    async def start(self) -> None:
        """Sweep once now (before the scheduler reads the due games), then every hour."""
        if self.abandon_after is None and self.delete_after is None:
            return
        await self._sweep_in_thread()
        self._task = asyncio.create_task(self._every_hour(), name="retention")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _every_hour(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_SECONDS)
            await self._sweep_in_thread()

    async def _sweep_in_thread(self) -> None:
        try:
            await to_thread.run_sync(self.sweep)
        except DatabaseBusyError:
            logger.warning("retention: the database is busy, the next sweep will try again")
