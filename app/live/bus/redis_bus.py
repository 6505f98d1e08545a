"""The Redis bus: each worker tells the workers that listen to a game, through that game's
Redis pub/sub channel, which version it reached, and each passes that on to its own streams.

A worker listens to the games its streams watch, and to those it writes beside another worker
(:mod:`app.live.bus.subscriptions`). With nginx sending each game to one worker
(``deploy/nginx.conf``), most games are heard by nobody.

A move is told as what it changed (``change``: the row and seats after it without their
secrets, and the log entries it appended, see :mod:`app.live.bus.messages`): a worker that keeps
the game at the version the move was written on brings its snapshot forward from that, keeps
it and, if its streams watch the game, hands them the view, so neither they nor its next
write of the game read the database. Any other change, or a worker keeping the game at
another version, or a message it cannot follow, falls back to the version alone, which the
streams read from the database once, however many watch, and the next write catches up from
the log (figures in docs/performance.md, "Several workers"). Redis may lose a message,
reorder nothing within one connection, or be away: none of that loses an update, only delays
it, because every stream's game is checked against the database's version on connect
(``Last-Event-ID``), once its channel is subscribed to (a move told while the subscription was
on its way reached nobody here), whenever the bus reconnects, and periodically (every
``check_seconds`` while Redis is up, every :data:`POLL_SECONDS` while it is down, when this
check is all the streams have). Publishing happens after the commit, never waits and never
fails a move: a full outgoing queue drops the message and counts it.

The bus's own channel carries who has which game open (see :mod:`app.live.bus.messages`): each
worker tells the others its streams of each seat, when their number changes and every
``heartbeat_seconds``; lost presence messages are made good by the next heartbeat. Reactions
go on their game's channel, to the workers whose streams watch it; a lost reaction is lost
(it is not part of the game).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from anyio import to_thread
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.live.broker import Broker
from app.live.bus import messages
from app.live.bus.subscriptions import GameChannels
from app.service.reactions import Reaction

if TYPE_CHECKING:
    from app.live.presence import Presence
    from app.service.views import GameView
    from app.store.snapshots import Snapshot

logger = logging.getLogger(__name__)

MAX_OUTGOING = 10_000
"""Messages waiting to be sent; beyond, a message is dropped (the periodic check covers it)."""
POLL_SECONDS = 1.0
"""The same while Redis is away: then it is how streams learn of other workers' moves."""
RECONNECT_MIN_SECONDS = 0.2
RECONNECT_MAX_SECONDS = 10.0
"""Bounds of the jittered, doubling wait between two reconnection attempts."""

TURN_SHARE = 0.9
"""A turn to look for overdue deadlines lasts this share of the period between looks: a little
less, so that one worker alone takes every turn, however its looks drift."""

_JITTER = secrets.SystemRandom()


def reconnect_waits() -> Iterator[float]:
    """The waits between reconnection attempts: doubling from the least to the most, each
    jittered by ±50 % so that workers cut off together do not come back together."""
    wait = RECONNECT_MIN_SECONDS
    while True:
        yield wait * _JITTER.uniform(0.5, 1.5)
        wait = min(wait * 2, RECONNECT_MAX_SECONDS)


Follow = Callable[[messages.ChangeMessage], "Snapshot | None"]
"""Bring this worker's kept snapshot forward by another's move; the snapshot, or None if the
kept snapshot is not the one the move was written on (an error if it cannot be followed)."""


class RedisBus:
    """The broker of this worker, joined to the others' through one Redis channel."""

    def __init__(
        self,
        url: str,
        channel: str,
        broker: Broker,
        *,
        read_versions: Callable[[Sequence[str]], dict[str, int]],
        kept_of: Callable[[str], Snapshot | None] | None = None,
        follow: Follow | None = None,
        view_of: Callable[[Snapshot], GameView] | None = None,
        shared_of: Callable[[], Iterable[str]] = tuple,
        check_seconds: float = 5.0,
        heartbeat_seconds: float = 2.0,
    ) -> None:
        self.broker = broker
        self.check_seconds = check_seconds
        """How often the watched games are compared with the database while Redis is up."""
        self.channel = channel
        """Presence is told on this channel; each game's changes on :meth:`game_channel`."""
        self.read_versions = read_versions
        self.kept_of = kept_of
        """The kept snapshot of a game, whose move a change message tells (None: only versions)."""
        self.follow = follow
        """Follows the others' change messages (None: each is read as its version alone)."""
        self.view_of = view_of
        """The view of a followed snapshot, made only for a game this worker's streams watch."""
        self.channels = GameChannels(f"{channel}:", broker, shared_of, self.resync)
        """The game channels heard: those of the games its streams watch, and of those it
        writes that others write too (see ``Snapshots.shared_ids``), to follow their moves."""
        self.origin = secrets.token_hex(8)
        self._mine = tuple(
            f"{kind}{self.origin} " for kind in ("", "change ", "signal ", "presence ")
        )
        """How this worker's own messages begin: Redis hands them back, unread here."""
        self.heartbeat_seconds = heartbeat_seconds
        broker.watch_listeners.append(self.watched_changed)
        self.presence: Presence | None = None
        self.counts = {
            "sent": 0,
            "received": 0,
            "dropped": 0,
            "resyncs": 0,
            "reconnects": 0,
            "followed": 0,
            "unfollowed": 0,
        }
        """``followed``: others' moves kept from their message; ``unfollowed``: the change
        messages that could not be (read from the database instead)."""
        self._client = Redis.from_url(
            url, socket_connect_timeout=1.0, socket_timeout=5.0, health_check_interval=5
        )
        self._outgoing: deque[tuple[str, str]] = deque()
        """``(channel, message)`` waiting to be sent."""
        self._lock = threading.Lock()
        self._subscribed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._send = asyncio.Event()
        self._check = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    # -- the service's side: any thread ---------------------------------------------------

    def game_channel(self, game_id: str) -> str:
        """The channel of one game's changes and reactions: a worker hears those of the games
        its streams watch and of those it shares, not every move of every game."""
        return self.channels.channel(game_id)

    def publish(self, game_id: str, version: int, view: GameView | None) -> None:
        """Tell this worker's streams at once (with the view), then the other workers: the
        move that made ``version`` if the kept snapshot is of it and tells one, else the
        version alone (``view`` None: a sweep, not a move)."""
        self.broker.publish(game_id, version, view)
        message = None
        if view is not None and self.kept_of is not None:
            kept = self.kept_of(game_id)
            if kept is not None and kept.version == version:  # not already a newer one
                message = messages.change_message(self.origin, kept)
        message = message or messages.version_message(self.origin, game_id, version)
        self._queue(self.game_channel(game_id), message)

    def signal(self, game_id: str, signal: object) -> None:
        """Hand ``signal`` to this worker's streams at once; a reaction to the others' too."""
        self.broker.signal(game_id, signal)
        if isinstance(signal, Reaction):
            message = messages.signal_message(self.origin, game_id, signal)
            self._queue(self.game_channel(game_id), message)

    def watched_changed(self) -> None:
        """The games this worker must hear of changed (a game's first stream opened or its
        last closed, a game became shared or was dropped): subscribe anew, soon. Any thread."""
        self._on_loop(self.channels.changed)

    def _on_loop(self, callback: Callable[[], object]) -> None:
        loop = self._loop
        if loop is None:
            return
        if threading.get_ident() == self._loop_thread:
            callback()
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed: shutting down
                loop.call_soon_threadsafe(callback)

    def share_presence(self, presence: Presence) -> None:
        """Tell the others this worker's streams of each seat, and ``presence`` theirs."""
        self.presence = presence
        presence.share()
        presence.streams_listeners.append(self._streams_changed)

    async def takeover_turn(self, seconds: float) -> bool:
        """Whether this worker is the one of all to look for overdue deadlines now: it takes
        the turn in Redis (``SET NX PX``, for :data:`TURN_SHARE` of ``seconds``) unless
        another holds it. While Redis is away, every worker looks."""
        if not self._subscribed:
            return True
        try:
            taken = await self._client.set(
                f"{self.channel}:takeover-turn",
                self.origin,
                nx=True,
                px=max(int(seconds * TURN_SHARE * 1000), 1),
            )
        except (RedisError, OSError):
            return True
        return bool(taken)

    def _streams_changed(self, game_id: str, seat: int | None, streams: int) -> None:
        for message in messages.presence_messages(self.origin, [(game_id, seat, streams)]):
            self._queue(self.channel, message)

    def _queue(self, channel: str, message: str) -> None:
        """Send ``message`` on ``channel`` soon, unless Redis is away or too much waits: then
        drop it."""
        with self._lock:
            if not self._subscribed or len(self._outgoing) >= MAX_OUTGOING:
                self.counts["dropped"] += 1
                return
            self._outgoing.append((channel, message))
            first = len(self._outgoing) == 1
        if first:  # later ones find the sender awake already
            self._on_loop(self._send.set)

    @property
    def status(self) -> str:
        """``up`` while subscribed to the channel, else ``down`` (streams then poll)."""
        return "up" if self._subscribed else "down"

    def figures(self) -> dict[str, int]:
        """Messages sent, received and dropped, resyncs and reconnections since start."""
        with self._lock:
            return {**self.counts, "queued": len(self._outgoing)}

    # -- the loop's side ------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        workers = (
            (self._listen, "bus-listen"),
            (self._sender, "bus-send"),
            (self.channels.keep, "bus-watch"),
            (self.channels.catch_up, "bus-catch-up"),
        )
        for work, name in workers:
            self._tasks.append(asyncio.create_task(work(), name=name))
        self._tasks.append(asyncio.create_task(self._checker(), name="bus-check"))
        if self.presence is not None:
            self._tasks.append(asyncio.create_task(self._heartbeat(), name="bus-heartbeat"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        self._subscribed = False
        with contextlib.suppress(RedisError, OSError):
            await self._client.aclose()

    async def resync(self, game_ids: Sequence[str] | None = None) -> None:
        """Compare every watched game (or those of ``game_ids``) with the database; tell its
        streams what they lack."""
        game_ids = self.broker.game_ids() if game_ids is None else game_ids
        if not game_ids:
            return
        try:
            versions = await to_thread.run_sync(self.read_versions, game_ids)
        except Exception:  # the database is away too: the next check tries again
            logger.warning("live updates: could not read the games' versions", exc_info=True)
            return
        for game_id, version in versions.items():
            self.broker.publish(game_id, version, None)  # no news is a no-op in the broker
        self.counts["resyncs"] += 1

    def _set_subscribed(self, subscribed: bool) -> None:
        changed = subscribed != self._subscribed
        if changed:
            self._check.set()  # check now, and at the pace of the new state from then on
        with self._lock:
            self._subscribed = subscribed
            if not subscribed:  # nobody will send these: the checks cover them
                self.counts["dropped"] += len(self._outgoing)
                self._outgoing.clear()
        if changed and self.presence is not None:
            self.presence.bus_changed(subscribed)

    async def _listen(self) -> None:
        waits = reconnect_waits()
        while True:
            pubsub = self._client.pubsub()
            try:
                await pubsub.subscribe(self.channel, *self.channels.connecting())
                self.channels.connected(pubsub)
                # The idle connections that sent before an outage are dead, and redis-py
                # tries a command once (no retry by default): the first message after it
                # would be sent on one, and dropped. Let them go; the next send connects.
                await self._client.connection_pool.disconnect(inuse_connections=False)
                self._set_subscribed(True)  # and whatever was missed while away is read
                waits = reconnect_waits()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "message":
                        self._receive(message["data"])
                    elif message["type"] == "subscribe":
                        self.channels.confirmed(message["channel"])
            except (RedisError, OSError) as error:
                if self._subscribed:
                    logger.warning("live updates: the bus is down (%s); streams poll", error)
                self._set_subscribed(False)
            except Exception:  # redis-py's own trouble (a read raced by a reconnection…):
                # never a listener gone for good with the worker still saying "up"
                logger.exception("live updates: the bus's listener failed; streams poll")
                self._set_subscribed(False)
            finally:
                self.channels.disconnected()
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(next(waits))
            self.counts["reconnects"] += 1

    def _receive(self, data: bytes | str) -> None:
        try:
            text = data.decode() if isinstance(data, bytes) else data
            if text.startswith(self._mine):
                return
            message = messages.parse(text)
        except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors too
            logger.warning("live updates: ignored a malformed bus message %r", data[:100])
            return
        if message.origin == self.origin:
            return
        self.counts["received"] += 1
        if isinstance(message, messages.PresenceMessage):
            if self.presence is not None:
                for game_id, seat, streams in message.entries:
                    self.presence.heard(message.origin, game_id, seat, streams)
        elif isinstance(message, messages.SignalMessage):
            self.broker.signal(message.game_id, message.signal)
        else:
            view = self._followed(message) if isinstance(message, messages.ChangeMessage) else None
            self.broker.publish(message.game_id, message.version, view)

    def _followed(self, message: messages.ChangeMessage) -> GameView | None:
        """Keep the move ``message`` tells; its view if this worker's streams watch the game.
        None too if this worker cannot follow it (its streams then read that version from
        the database, as for a version message)."""
        snapshot = None
        if self.follow is not None:
            try:
                snapshot = self.follow(message)
            except Exception:  # a message that passed the parser but not the rules: ignored
                logger.warning("live updates: could not follow %r", message.game_id, exc_info=True)
        self.counts["followed" if snapshot is not None else "unfollowed"] += 1
        if snapshot is None or self.view_of is None or not self.broker.count(message.game_id):
            return None
        return self.view_of(snapshot)

    async def _sender(self) -> None:
        while True:
            await self._send.wait()
            self._send.clear()
            with self._lock:
                batch = list(self._outgoing)
                self._outgoing.clear()
            if not batch:
                continue
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for channel, message in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
                self.counts["sent"] += len(batch)
            except (RedisError, OSError):
                self.counts["dropped"] += len(batch)  # the listener notices and reconnects

    async def _checker(self) -> None:
        while True:
            interval = self.check_seconds if self._subscribed else POLL_SECONDS
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._check.wait(), interval)
            self._check.clear()
            await self.resync()

    async def _heartbeat(self) -> None:
        """Repeat this worker's streams of each seat; forget the others' unrepeated words.

        While Redis is away nothing is sent or heard: the others' words expire, and each
        worker judges presence from its own streams (and what it knew, until it expires)."""
        assert self.presence is not None
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            entries = self.presence.local_streams()
            for message in messages.presence_messages(self.origin, entries):
                self._queue(self.channel, message)
            self.presence.expire()
