"""Live updates: an in-process broker that tells subscribers a game has a new version.

Publishers may be any thread (the service runs in FastAPI's thread pool); subscribers are
asyncio tasks (the event streams). A subscriber keeps the versions it has not read yet, in
order (the last :data:`MAX_VERSIONS`): every reader sees every roll; one slower than that
loses the oldest and is sent the whole board of the newest instead.
A publisher hands over the view it just committed where it has one, so that no stream
reads it back; a version without its view (from another worker, or a sweep) is read from
the database by the stream.

Besides versions, a game's readers can be sent *signals*, things that are not changes to the
game: that its presence changed, or a reaction. A subscriber keeps the last few only.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.service.views import GameView

MAX_VERSIONS = 32
"""Versions a subscriber keeps unread; a slower reader loses the oldest (and resyncs)."""

MAX_SIGNALS = 16
"""Signals a subscriber keeps unread; a slower reader loses the oldest."""


class Subscription:
    """One live reader of one game."""

    def __init__(self, broker: Broker, game_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self.broker = broker
        self.game_id = game_id
        self.loop = loop
        self.latest = 0
        self.view: GameView | None = None
        """The committed view of ``latest``, when its publisher had it (else None)."""
        # Lists, trimmed to their bounds by hand: an empty deque holds a block of 64 slots,
        # 1.1 KiB a stream for the two, where a stream's lists are nearly always empty.
        self.signals: list[object] = []
        self.versions: list[tuple[int, GameView | None]] = []
        """The versions not read yet, oldest first, each with its view where it came with one."""
        self._waiter: asyncio.Future[None] | None = None
        """What the reader awaits while it waits (a future and a timer, not ``wait_for``,
        which on Python 3.11 makes a task for each wait: 2 % of a loaded worker's time)."""

    def notify(self, version: int, view: GameView | None = None) -> None:
        """Called on the subscriber's loop: remember ``version`` (and its ``view``, if
        given) and wake the reader."""
        if version > self.latest:
            self.latest = version
            self.view = view
            self.versions.append((version, view))
            if len(self.versions) > MAX_VERSIONS:
                del self.versions[0]
            self._wake()
        elif version == self.latest and view is not None and self.view is None:
            self.view = view  # the version was heard of first without its view
            if self.versions and self.versions[-1][0] == version:
                self.versions[-1] = (version, view)

    def take(self, seen: int) -> list[tuple[int, GameView | None]]:
        """The versions above ``seen`` not read yet, in order, with their views."""
        taken = [(version, view) for version, view in self.versions if version > seen]
        self.versions.clear()
        return taken

    def signal(self, signal: object) -> None:
        """Called on the subscriber's loop: keep ``signal`` (once, if already kept) and wake."""
        if signal not in self.signals:
            self.signals.append(signal)
            if len(self.signals) > MAX_SIGNALS:
                del self.signals[0]
        self._wake()

    def _wake(self) -> None:
        # On the loop's next pass, not at once: the answer to a move reaches its player before
        # the move's readers wake to render it (a task of wait_for's did that before; woken at
        # once, a PostgreSQL worker answered moves 2 ms later at the median, measured).
        if self._waiter is not None and not self._waiter.done():
            self.loop.call_soon(_settle, self._waiter)

    async def _wait(self, timeout: float) -> None:
        """Until woken or ``timeout`` seconds have passed (one reader waits at a time: the
        stream that holds the subscription)."""
        assert self._waiter is None, "a subscription has one reader"
        waiter = self._waiter = self.loop.create_future()
        timer = self.loop.call_later(timeout, _settle, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None

    async def wait_any(self, seen: int, timeout: float) -> bool:
        """Whether a version above ``seen`` or a signal came (or was there) within ``timeout``."""
        if not (self.latest > seen or self.signals):
            await self._wait(timeout)
        return self.latest > seen or bool(self.signals)

    async def wait(self, seen: int, timeout: float) -> int | None:
        """The newest version above ``seen``, or None if none came within ``timeout``."""
        if self.latest <= seen:
            await self._wait(timeout)
        return self.latest if self.latest > seen else None

    def close(self) -> None:
        """Stop receiving: the stream has ended."""
        self.broker.unsubscribe(self)


class Broker:
    """Fans ``(game_id, version, view)`` out to the subscriptions of that game."""

    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = defaultdict(set)
        self._lock = threading.Lock()
        self._heard: dict[str, tuple[int, float]] = {}
        """Each watched game's newest version and when it was published (just after its
        commit, on this worker), for the live lag (``penta_live_lag_seconds``)."""
        self.watch_listeners: list[Callable[[], None]] = []
        """Told (from any thread) when a game gains its first subscriber or loses its last:
        the bus hears of the games this process's streams watch, and only of those."""

    def subscribe(self, game_id: str) -> Subscription:
        """A new subscription on the running event loop."""
        subscription = Subscription(self, game_id, asyncio.get_running_loop())
        with self._lock:
            first = game_id not in self._subscriptions
            self._subscriptions[game_id].add(subscription)
        if first:
            self._watched_changed()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        last = False
        with self._lock:
            subscriptions = self._subscriptions.get(subscription.game_id)
            if subscriptions is not None:
                subscriptions.discard(subscription)
                if not subscriptions:
                    del self._subscriptions[subscription.game_id]
                    self._heard.pop(subscription.game_id, None)
                    last = True
        if last:
            self._watched_changed()

    def _watched_changed(self) -> None:
        for listener in self.watch_listeners:
            listener()

    def count(self, game_id: str | None = None) -> int:
        """How many subscriptions there are (to one game, or in all)."""
        with self._lock:
            if game_id is not None:
                return len(self._subscriptions.get(game_id, ()))
            return sum(len(subscriptions) for subscriptions in self._subscriptions.values())

    def game_ids(self) -> list[str]:
        """The games that have subscriptions."""
        with self._lock:
            return list(self._subscriptions)

    def publish(self, game_id: str, version: int, view: GameView | None = None) -> None:
        """Tell every subscriber of ``game_id`` about ``version`` (committed as ``view``, or
        None: the subscribers read it); safe from any thread."""
        with self._lock:
            subscriptions = list(self._subscriptions.get(game_id, ()))
            if subscriptions and version > self._heard.get(game_id, (0, 0.0))[0]:
                self._heard[game_id] = (version, time.perf_counter())
        here = _running_loop()
        for subscription in subscriptions:
            if subscription.loop is here:  # a move played on the loop: no wake-up to send
                subscription.notify(version, view)
                continue
            try:
                subscription.loop.call_soon_threadsafe(subscription.notify, version, view)
            except RuntimeError:  # that loop has closed: the subscriber is gone
                self.unsubscribe(subscription)

    def newest(self, game_id: str) -> int:
        """The newest version of the game published here while it was watched (0 if none)."""
        return self._heard.get(game_id, (0, 0.0))[0]

    def heard_at(self, game_id: str, version: int) -> float | None:
        """When ``version`` of the game was published here (``perf_counter``), if it is the
        newest one heard of."""
        heard = self._heard.get(game_id)
        return heard[1] if heard is not None and heard[0] == version else None

    def signal(self, game_id: str, signal: object) -> None:
        """Send ``signal`` (hashable) to every subscriber of ``game_id``; safe from any thread."""
        with self._lock:
            subscriptions = list(self._subscriptions.get(game_id, ()))
        here = _running_loop()
        for subscription in subscriptions:
            if subscription.loop is here:
                subscription.signal(signal)
                continue
            try:
                subscription.loop.call_soon_threadsafe(subscription.signal, signal)
            except RuntimeError:
                self.unsubscribe(subscription)


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any (a publisher may be any thread)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
