"""The one scheduler: the server acts in games on time, whether or not anyone watches.

Every move stores the next moment the server must act in its game (``games.due_at``: a
computer seat's step, a turn timer running out, the auto-confirm deadline after a third
roll; see :mod:`app.service.deadlines`). This task only waits for the soonest of those
moments and asks the service to play what is due then. It keeps nothing the database does
not: on start it reads every pending ``due_at``, so deadlines survive a restart.

With several workers each runs one of these: each step claims its game in the transaction
that plays it (:func:`app.store.snapshots.claim_due`, ``FOR UPDATE SKIP LOCKED`` where the
database has it), so two workers never play the same deadline. Every worker hears of the
others' deadlines over the bus (:meth:`Scheduler.expect`) and rereads them all now and then,
so that a worker's crash leaves its games' next steps to the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta

from anyio import to_thread

from app.service.errors import ServiceError
from app.service.games import GameService
from app.store.database import DatabaseBusyError

BUSY_RETRY_SECONDS = 1.0

logger = logging.getLogger(__name__)

IDLE_SECONDS = 60.0
"""The longest the scheduler sleeps with nothing due (a change wakes it sooner)."""


def _now() -> datetime:
    return datetime.now(UTC)


class Scheduler:
    """One asyncio task that plays every game's due step at its ``due_at``."""

    def __init__(self, service: GameService, *, rescan_seconds: float | None = None) -> None:
        """``rescan_seconds``: with other workers, how often to read every pending deadline
        again (None: never; one process hears of every change itself)."""
        self.service = service
        self.rescan_seconds = rescan_seconds
        self._rescan: asyncio.Task[None] | None = None
        self._due: dict[str, datetime] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Begin on the running loop with every deadline pending in the database."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self.service.listeners.append(self.notify)
        due = await to_thread.run_sync(self.service.due_games)
        # Each game's first step would load and replay its log on the loop: load them here.
        await to_thread.run_sync(self.service.load_games, [game_id for game_id, _ in due])
        for game_id, when in due:
            self._schedule(game_id, when)
        self._task = asyncio.create_task(self._run(), name="scheduler")
        if self.rescan_seconds is not None:
            self._rescan = asyncio.create_task(self._rescans(self.rescan_seconds), name="rescan")

    async def stop(self) -> None:
        """Stop acting (pending deadlines stay in the database for the next start)."""
        if self.notify in self.service.listeners:
            self.service.listeners.remove(self.notify)
        for task in (self._rescan, self._task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def notify(self, game_id: str, _version: int, _view: object = None) -> None:
        """A game changed (from any thread): be there when it next needs the server."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        due = self.service.due_at(game_id)
        if due is not None:
            loop.call_soon_threadsafe(self._schedule, game_id, due)

    def expect(self, game_id: str, _version: int, due: datetime | None) -> None:
        """Another worker changed a game (on the loop): be there at ``due`` too. Both may
        look then; the step's claim lets one play it (and takes over if that one died)."""
        if due is not None and self._wake is not None:
            self._schedule(game_id, due)

    def pending(self) -> dict[str, datetime]:
        """The games the scheduler will look at, and when (for tests and health)."""
        return dict(self._due)

    def _schedule(self, game_id: str, due: datetime) -> None:
        # The sooner wins: a look that finds nothing due yet learns the real time and waits.
        if due < self._due.get(game_id, datetime.max.replace(tzinfo=UTC)):
            self._due[game_id] = due
            assert self._wake is not None
            self._wake.set()

    async def _rescans(self, every: float) -> None:
        """Read every pending deadline now and then: a worker that died after its commit but
        before the bus told the others would otherwise leave its game's step to nobody."""
        while True:
            await asyncio.sleep(every)
            try:
                due = await to_thread.run_sync(self.service.due_games)
            except Exception:  # the database is away: the next rescan tries again
                logger.warning("the scheduler could not read the pending deadlines", exc_info=True)
                continue
            for game_id, when in due:
                self._schedule(game_id, when)

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            now = _now()
            ready = [game_id for game_id, due in self._due.items() if due <= now]
            for game_id in ready:
                del self._due[game_id]
                await self._step(game_id)
                await asyncio.sleep(0)  # after a restart thousands are ready: let requests in
            self._wake.clear()
            soonest = min(self._due.values(), default=None)
            timeout = IDLE_SECONDS if soonest is None else (soonest - _now()).total_seconds()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(timeout, 0))

    async def _step(self, game_id: str) -> None:
        try:
            try:
                # On the loop, as the routes' moves: a step is a fraction of a millisecond.
                due = self.service.play_due(game_id)
            except DatabaseBusyError:
                # The database cannot be written without waiting (a lock held elsewhere, or
                # a shared database, where every statement is a round trip): in a thread.
                due = await to_thread.run_sync(self.service.play_due, game_id)
        except ServiceError:
            return
        except DatabaseBusyError:  # still held after waiting: try again soon
            self._schedule(game_id, _now() + timedelta(seconds=BUSY_RETRY_SECONDS))
            return
        except Exception:
            logger.exception("the server could not play its step in game %s", game_id)
            return
        if due is not None:
            self._schedule(game_id, due)
