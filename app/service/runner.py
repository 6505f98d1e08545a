"""The one scheduler: the server acts in games on time, whether or not anyone watches.

Every move stores the next moment the server must act in its game (``games.due_at``: a
computer seat's step, a turn timer running out, the auto-confirm deadline after a third
roll; see :mod:`app.service.deadlines`). This task only waits for the soonest of those
moments and asks the service to play what is due then. It keeps nothing the database does
not: on start it reads every pending ``due_at``, so deadlines survive a restart.

With several workers each runs one of these: each step claims its game in the transaction
that plays it (:func:`app.store.due.claim_due`, ``FOR UPDATE SKIP LOCKED`` where the
database has it), so two workers never play the same deadline. A worker looks only at the
deadlines of the changes it made itself, and, every ``takeover_seconds``, asks the database
for the few that are more than that overdue: those a worker that died (or is stalled) left,
which it then plays. So a deadline is looked at by one worker, not by every worker that
heard of its game. The look itself is taken in turns: in each ``takeover_seconds`` one worker
looks, whichever takes the turn first (``take_turn``, a lease in Redis), so the looks cost
the database the same with one worker or forty (each cost about 2 ms of a worker's CPU and
a query, four times a second per worker: bench/cluster.py). A crash delays the step by at
most three times ``takeover_seconds`` (twice while Redis is away and every worker looks).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from anyio import to_thread

from app.service.errors import ServiceError
from app.service.games import GameService
from app.store.database import DatabaseBusyError, DatabaseFailure
from app.store.patience import patiently

BUSY_RETRY_SECONDS = 1.0
STORAGE_RETRY_SECONDS = 5.0
"""How soon a step the database failed is tried again (a worker alone has no other look)."""

logger = logging.getLogger(__name__)

TAKEOVER_BATCH = 100
"""Overdue deadlines taken over per look at most (the rest at the next look)."""
IDLE_SECONDS = 60.0
"""The longest the scheduler sleeps with nothing due (a change wakes it sooner)."""


def _now() -> datetime:
    return datetime.now(UTC)


class Scheduler:
    """One asyncio task that plays every game's due step at its ``due_at``."""

    def __init__(
        self,
        service: GameService,
        *,
        takeover_seconds: float | None = None,
        take_turn: Callable[[float], Awaitable[bool]] | None = None,
    ) -> None:
        """``takeover_seconds``: with other workers, how often to look for the deadlines they
        left overdue by more than that (None: never; one process plays all of its own).
        ``take_turn(seconds)``: whether this worker is the one to look now, of all of them,
        for that long (None: it always is)."""
        self.service = service
        self.takeover_seconds = takeover_seconds
        self.take_turn = take_turn
        self.looks = 0
        """Looks for overdue deadlines made; ``turns_missed``: those left to another worker."""
        self.turns_missed = 0
        self._takeover: asyncio.Task[None] | None = None
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
        if self.takeover_seconds is not None:
            self._takeover = asyncio.create_task(
                self._takeovers(self.takeover_seconds), name="takeover"
            )

    async def stop(self) -> None:
        """Stop acting (pending deadlines stay in the database for the next start)."""
        if self.notify in self.service.listeners:
            self.service.listeners.remove(self.notify)
        for task in (self._takeover, self._task):
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

    def pending(self) -> dict[str, datetime]:
        """The games the scheduler will look at, and when (for tests and health)."""
        return dict(self._due)

    def _schedule(self, game_id: str, due: datetime) -> None:
        # The sooner wins: a look that finds nothing due yet learns the real time and waits.
        if due < self._due.get(game_id, datetime.max.replace(tzinfo=UTC)):
            self._due[game_id] = due
            assert self._wake is not None
            self._wake.set()

    async def _takeovers(self, every: float) -> None:
        """Every ``every`` seconds, the deadlines more than that overdue (at most
        :data:`TAKEOVER_BATCH`, the most overdue first): their worker has not played them."""
        while True:
            await asyncio.sleep(every)
            if self.take_turn is not None and not await self.take_turn(every):
                self.turns_missed += 1
                continue
            self.looks += 1
            try:
                due = await to_thread.run_sync(self.service.overdue_games, every, TAKEOVER_BATCH)
            except Exception:  # the database is away: the next look tries again
                logger.warning("the scheduler could not read the overdue deadlines", exc_info=True)
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
            # On the loop, as the routes' moves (a step is a fraction of a millisecond); in a
            # thread where the database cannot be written without waiting (a lock held by
            # another process, or a shared database, where every statement is a round trip).
            due = await patiently(lambda: self.service.play_due(game_id))
        except ServiceError:
            return
        except DatabaseBusyError:  # still held after waiting: try again soon
            self._schedule(game_id, _now() + timedelta(seconds=BUSY_RETRY_SECONDS))
            return
        except DatabaseFailure:  # the database failed it (a connection lost): not the game
            logger.warning("the database failed the step of game %s", game_id, exc_info=True)
            self._schedule(game_id, _now() + timedelta(seconds=STORAGE_RETRY_SECONDS))
            return
        except Exception:
            logger.exception("the server could not play its step in game %s", game_id)
            return
        if due is not None:
            self._schedule(game_id, due)
