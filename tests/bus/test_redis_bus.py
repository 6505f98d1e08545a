"""The Redis bus inside one process, against a real redis-server: what a worker sends, what
it passes on to its streams, its bounded queue, and its checks against the database."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from app.live.broker import Broker
from app.live.bus import redis_bus
from app.live.bus.redis_bus import (
    RECONNECT_MAX_SECONDS,
    RECONNECT_MIN_SECONDS,
    RedisBus,
    reconnect_waits,
)
from tests.hardening.conftest import run_async
from tests.redis_server import RedisServer

WAIT = 10.0


class Versions:
    """The games' versions as a database would answer them, and how often it was asked."""

    def __init__(self) -> None:
        self.current: dict[str, int] = {}
        self.asked = 0

    def read(self, game_ids: Sequence[str]) -> dict[str, int]:
        self.asked += 1
        return {game_id: self.current[game_id] for game_id in game_ids if game_id in self.current}


def bus(server: RedisServer, broker: Broker, versions: Versions, **options: float) -> RedisBus:
    return RedisBus(
        server.url,
        "penta-test",
        broker,
        read_versions=versions.read,
        **options,
    )


async def started(
    server: RedisServer, broker: Broker, versions: Versions | None = None
) -> RedisBus:
    """A worker's bus on ``broker`` (no periodic check in a test's time), once it is up."""
    worker = bus(server, broker, versions or Versions(), check_seconds=600)
    await worker.start()
    await until(lambda: worker.status == "up", "the bus never came up")
    return worker


async def until(condition: object, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT
    while not condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.01)


async def subscribers(server: RedisServer, channel: str) -> int:
    return await asyncio.to_thread(server.subscribers, channel)


async def until_heard(server: RedisServer, channel: str, count: int = 1) -> None:
    await asyncio.to_thread(server.until_subscribers, channel, count, WAIT)


def test_a_change_reaches_the_workers_whose_streams_watch_the_game_and_no_other(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> None:
        here, there, elsewhere = Broker(), Broker(), Broker()
        sender = bus(redis_server, here, Versions(), check_seconds=600)
        receiver = bus(redis_server, there, Versions(), check_seconds=600)
        bystander = bus(redis_server, elsewhere, Versions(), check_seconds=600)
        for worker in (sender, receiver, bystander):
            await worker.start()
        await until(lambda: sender.status == receiver.status == "up", "the bus never came up")
        local = here.subscribe("g1")
        remote = there.subscribe("g1")
        elsewhere.subscribe("g2")  # the bystander's streams watch another game
        await until_heard(redis_server, "penta-test:g1", 2)
        sender.publish("g1", 7, None)
        assert await remote.wait(0, WAIT) == 7
        assert remote.view is None  # the other worker reads it from the database
        assert await local.wait(0, WAIT) == 7
        # Counted sent once Redis answers the publish, which may be after the other worker
        # has heard it.
        await until(lambda: sender.figures()["sent"] == 1, "the publish was never answered")
        assert receiver.figures()["received"] == 1
        # Then a move of the bystander's game: Redis hands each connection its messages in
        # the order published, so once this one is in, g1's would have been.
        await until_heard(redis_server, "penta-test:g2")
        sender.publish("g2", 1, None)
        await until(lambda: bystander.figures()["received"] == 1, "g2's move never came")
        assert bystander.figures()["received"] == 1, "a worker hears only its streams' games"
        assert sender.figures()["received"] == 0, "its own message, handed back, is not read"
        for worker in (sender, receiver, bystander):
            await worker.stop()

    run_async(scenario())


def test_a_game_is_heard_while_a_stream_watches_it_or_it_is_shared(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> None:
        broker, shared = Broker(), ["g2"]
        worker = RedisBus(
            redis_server.url,
            "penta-test",
            broker,
            read_versions=Versions().read,
            shared_of=lambda: shared,
            check_seconds=600,
        )
        await worker.start()
        await until_heard(redis_server, "penta-test:g2")  # shared from the start
        assert await subscribers(redis_server, "penta-test:g1") == 0
        subscription = broker.subscribe("g1")
        await until_heard(redis_server, "penta-test:g1")
        subscription.close()  # its last stream ended
        await until_heard(redis_server, "penta-test:g1", 0)
        shared.clear()  # dropped from the cache
        worker.watched_changed()
        await until_heard(redis_server, "penta-test:g2", 0)
        assert await subscribers(redis_server, "penta-test") == 1  # presence, always
        await worker.stop()

    run_async(scenario())


def test_a_move_made_while_a_stream_s_subscription_was_on_its_way_is_caught_up(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> None:
        broker, versions = Broker(), Versions()
        worker = await started(redis_server, broker, versions)
        versions.current["g1"] = 3  # committed and told before the channel was heard
        subscription = broker.subscribe("g1")
        # Read from the database once the channel is heard: no periodic check for 600 s.
        assert await subscription.wait(0, WAIT) == 3
        await worker.stop()

    run_async(scenario())


def test_a_full_outgoing_queue_drops_and_counts_never_blocks(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_bus, "MAX_OUTGOING", 50)

    async def scenario() -> None:
        watching = Broker()
        sender, receiver = (
            await started(redis_server, Broker()),
            await started(redis_server, watching),
        )
        watching.subscribe("g1")
        await until_heard(redis_server, "penta-test:g1")
        for version in range(1, 61):  # on the loop: the sender cannot drain meanwhile
            sender.publish("g1", version, None)
        assert sender.figures()["queued"] == 50
        assert sender.figures()["dropped"] == 10
        await until(lambda: receiver.figures()["received"] == 50, "the queue was not sent")
        await until(lambda: sender.figures()["sent"] == 50, "the sender did not count them")
        assert sender.figures()["dropped"] == 10
        await sender.stop()
        await receiver.stop()

    run_async(scenario())


def test_malformed_messages_are_ignored_and_the_bus_goes_on(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        broker = Broker()
        receiver = await started(redis_server, broker)
        subscription = broker.subscribe("g1")
        await until_heard(redis_server, "penta-test:g1")
        client = Redis.from_url(redis_server.url)
        for junk in ("", "one two", "x g1 seven", "x g1 7 soon"):
            await client.publish("penta-test:g1", junk)
        await client.publish("penta-test:g1", "x g1 8")
        assert await subscription.wait(0, WAIT) == 8
        assert receiver.figures()["received"] == 1
        await client.aclose()
        await receiver.stop()

    run_async(scenario())


def test_with_redis_away_changes_are_dropped_and_streams_poll_the_database(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> None:
        broker, versions = Broker(), Versions()
        worker = bus(redis_server, broker, versions, check_seconds=600)
        await worker.start()
        await until(lambda: worker.status == "up", "the bus never came up")
        subscription = broker.subscribe("g1")
        redis_server.stop()
        await until(lambda: worker.status == "down", "the bus never noticed Redis go")
        worker.publish("g2", 3, None)  # a move goes on: nothing to send it with, counted
        assert worker.figures()["dropped"] == 1
        versions.current["g1"] = 4  # another worker's move, committed meanwhile
        assert await subscription.wait(0, WAIT) == 4  # from the poll (every POLL_SECONDS)
        redis_server.start()
        await until(lambda: worker.status == "up", "the bus never reconnected")
        assert worker.figures()["reconnects"] >= 1
        other = bus(redis_server, Broker(), Versions(), check_seconds=600)
        await other.start()
        await until(lambda: other.status == "up", "the other worker's bus never came up")
        other.publish("g1", 5, None)  # over Redis again: no poll runs every 600 s
        assert await subscription.wait(4, WAIT) == 5
        await other.stop()
        await worker.stop()

    run_async(scenario())


def test_a_listener_failing_outside_redis_errors_says_down_and_subscribes_again(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An error redis-py does not wrap (a read raced by a reconnection, say) must not end the
    listener with the worker still saying "up" and hearing nothing: it is down, then up."""
    real = PubSub.get_message
    failures = [RuntimeError("readuntil() called while another coroutine is waiting")]

    async def get_message(self: PubSub, *args: object, **kwargs: object) -> object:
        if failures:
            raise failures.pop()
        return await real(self, *args, **kwargs)  # type: ignore[arg-type]

    async def scenario() -> None:
        broker = Broker()
        worker = await started(redis_server, broker)
        monkeypatch.setattr(PubSub, "get_message", get_message)
        await until(lambda: not failures, "the listener never read again")
        await until(
            lambda: worker.status == "up" and "listener failed" in caplog.text,
            "the listener never came back",
        )
        assert worker.figures()["reconnects"] >= 1
        other = bus(redis_server, Broker(), Versions(), check_seconds=600)
        await other.start()
        await until(lambda: other.status == "up", "the other worker's bus never came up")
        subscription = broker.subscribe("g1")
        await until_heard(redis_server, "penta-test:g1")
        other.publish("g1", 2, None)  # heard again over Redis
        assert await subscription.wait(0, WAIT) == 2
        await other.stop()
        await worker.stop()

    run_async(scenario())


def test_reconnections_are_spaced_doubling_jittered_and_capped() -> None:
    waits = reconnect_waits()
    first = [next(waits) for _ in range(40)]
    assert all(wait >= RECONNECT_MIN_SECONDS / 2 for wait in first)
    assert all(wait <= RECONNECT_MAX_SECONDS * 1.5 for wait in first)
    # At most one attempt per 0.1 s at first, then fewer: 40 attempts span minutes, not seconds.
    assert sum(first) >= sum(min(0.2 * 2**n, 10) * 0.5 for n in range(40))
    assert sum(first[30:]) >= 10 * RECONNECT_MAX_SECONDS * 0.5
    assert len({round(wait, 6) for wait in first[30:]}) > 1, "jittered, not in lockstep"
