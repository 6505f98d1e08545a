"""Plays computer seats and expired turn timers on the server, whether or not anyone watches."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from anyio import to_thread

from app.service.errors import ServiceError
from app.service.games import GameService
from app.store.database import DatabaseBusyError

BUSY_RETRY_SECONDS = 1.0

logger = logging.getLogger(__name__)


class ComputerRunner:
    """One asyncio task that steps every game where the server has to act.

    Each change to a game schedules a look at it ``pace`` seconds later; a step returns when
    the next one is due. People can follow: computer steps are at least ``pace`` apart. On
    start every game in play is looked at, so computers carry on after a restart.
    """

    def __init__(self, service: GameService, pace: float) -> None:
        self.service = service
        self.pace = pace
        self._due: dict[str, float] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Begin on the running loop and schedule every game being played."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self.service.listeners.append(self.notify)
        playing = await to_thread.run_sync(self.service.playing_games)
        # Each game's first step would load and replay its log on the loop: load them here.
        await to_thread.run_sync(self.service.load_games, playing)
        for game_id in playing:
            self._schedule(game_id, self.pace)
        self._task = asyncio.create_task(self._run(), name="computer-runner")

    async def stop(self) -> None:
        """Stop stepping games (pending steps run again after the next start)."""
        if self.notify in self.service.listeners:
            self.service.listeners.remove(self.notify)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def notify(self, game_id: str, _version: int) -> None:
        """A game changed (from any thread): look at it after the pace, if it may need us."""
        loop = self._loop
        if loop is None or loop.is_closed() or not self.service.may_need_the_server(game_id):
            return
        loop.call_soon_threadsafe(self._schedule, game_id, self.pace)

    def _schedule(self, game_id: str, delay: float) -> None:
        due = time.monotonic() + delay
        if due < self._due.get(game_id, float("inf")):
            self._due[game_id] = due
            assert self._wake is not None
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            now = time.monotonic()
            ready = [game_id for game_id, due in self._due.items() if due <= now]
            for game_id in ready:
                del self._due[game_id]
                await self._step(game_id)
                await asyncio.sleep(0)  # after a restart thousands are ready: let requests in
            self._wake.clear()
            timeout = min(self._due.values(), default=now + 60) - time.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(timeout, 0))

    async def _step(self, game_id: str) -> None:
        try:
            # On the loop, as the routes' moves: a step is a fraction of a millisecond.
            delay = self.service.play_for_computer(game_id)
        except ServiceError:
            return
        except DatabaseBusyError:  # another process holds the database: try again soon
            self._schedule(game_id, BUSY_RETRY_SECONDS)
            return
        except Exception:
            logger.exception("the computer could not play in game %s", game_id)
            return
        if delay is not None:
            self._schedule(game_id, max(delay, self.pace))
