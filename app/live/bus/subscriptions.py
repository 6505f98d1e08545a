"""Which game channels a worker's bus listens to: those of the games its streams watch and of
those it writes beside another worker, not every move of every game (with every worker
hearing every move, CPU per action grew with the number of workers: bench/cluster.py).

A game's channel newly subscribed to is checked against the database once Redis confirms the
subscription: a move committed while the subscription was on its way was told to nobody here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence

from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from app.live.broker import Broker

logger = logging.getLogger(__name__)


class GameChannels:
    """The game channels one worker's bus is subscribed to, kept to those it must hear."""

    def __init__(
        self,
        prefix: str,
        broker: Broker,
        shared_of: Callable[[], Iterable[str]],
        resync: Callable[[Sequence[str]], Awaitable[None]],
    ) -> None:
        self.prefix = prefix
        """A game's channel is this and its id."""
        self.broker = broker
        self.shared_of = shared_of
        """The games this worker writes that others write too (``Snapshots.shared_ids``)."""
        self.resync = resync
        """Tells the streams of these games what the database has that they lack."""
        self._pubsub: PubSub | None = None
        """The listener's subscription while connected (None while Redis is away)."""
        self._heard: set[str] = set()
        """The games whose channels are subscribed to (or asked to be)."""
        self._rewatch = asyncio.Event()
        self._fresh: set[str] = set()
        """Games whose channel was just subscribed to: checked against the database once."""
        self._catch_up = asyncio.Event()

    def channel(self, game_id: str) -> str:
        return f"{self.prefix}{game_id}"

    def changed(self) -> None:
        """The games to hear of may have changed: subscribe anew soon (on the loop)."""
        self._rewatch.set()

    def connecting(self) -> list[str]:
        """The game channels a new connection subscribes to at once."""
        self._heard = self._watched()
        return [self.channel(game_id) for game_id in self._heard]

    def connected(self, pubsub: PubSub) -> None:
        """Subscribed: from now on the games to hear of are kept up on ``pubsub``."""
        self._pubsub = pubsub
        self._rewatch.set()  # a stream that opened meanwhile

    def disconnected(self) -> None:
        """Redis is away: nothing to keep up until the next connection subscribes anew."""
        self._pubsub = None

    def confirmed(self, channel: bytes) -> None:
        """Redis confirmed a subscription: from now on that game is heard of here, and what
        was committed before is in the database, read once."""
        prefix = self.prefix.encode()
        if channel.startswith(prefix):
            self._fresh.add(channel[len(prefix) :].decode())
            self._catch_up.set()

    def _watched(self) -> set[str]:
        return {*self.broker.game_ids(), *self.shared_of()}

    async def keep(self) -> None:
        """Keep the subscriptions to the games of :meth:`_watched` (while connected: a
        reconnection subscribes to all of them at once)."""
        while True:
            await self._rewatch.wait()
            self._rewatch.clear()
            pubsub = self._pubsub
            if pubsub is None:
                continue
            wanted = self._watched()
            new, gone, before = wanted - self._heard, self._heard - wanted, self._heard
            self._heard = wanted
            try:
                if new:
                    await pubsub.subscribe(*(self.channel(game_id) for game_id in new))
                if gone:
                    await pubsub.unsubscribe(*(self.channel(game_id) for game_id in gone))
            except (RedisError, OSError):  # the listener reconnects, with all of them
                continue
            except Exception:  # redis-py's own trouble: this task must go on keeping them
                logger.exception("live updates: a subscription change failed")
                self._heard = before  # tried again at the next change
                continue

    async def catch_up(self) -> None:
        """Check the games whose channel was just subscribed to, once each."""
        while True:
            await self._catch_up.wait()
            self._catch_up.clear()
            fresh, self._fresh = self._fresh, set()
            await self.resync([game_id for game_id in fresh if self.broker.count(game_id)])
