"""The live stream's response (``EventStream``): it writes its body as it comes and ends when
the client leaves, and only then (found by a second review: a leave must not cut short work
the stream waits for in a thread, swallow the server's own cancellation, or reach the request
after the stream has ended); and the waits of a subscription."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import tracemalloc
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from anyio import to_thread

from app.live.broker import MAX_SIGNALS, MAX_VERSIONS, Broker
from app.web.routes.events import EventStream


class Client:
    """The ASGI side of one stream: what it was sent, and a leave it can make."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.left = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def bodies(self) -> list[bytes]:
        return [message["body"] for message in self.sent if message["type"].endswith("body")]


class Body:
    """A stream's body: one event, then it waits for the next that never comes (or, given a
    ``thread``, for that work in a thread); it notes when its end ran."""

    def __init__(self, thread: float | None = None) -> None:
        self.thread = thread
        self.ended = False
        self.thread_done = False
        self.thread_done_at_end: bool | None = None
        self.waiting = asyncio.Event()

    def work(self) -> None:
        time.sleep(self.thread or 0)
        self.thread_done = True

    async def __call__(self) -> AsyncGenerator[str, None]:
        try:
            yield "event: update\ndata: x\n\n"
            self.waiting.set()
            if self.thread is not None:
                await to_thread.run_sync(self.work)
            await asyncio.Event().wait()
            yield "never"
        finally:
            self.ended = True
            self.thread_done_at_end = self.thread_done


def run(scenario: Any) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 10))


async def streaming(body: Body) -> tuple[Client, Body, asyncio.Task[None]]:
    """A stream of ``body`` to a new client, once its first event is sent."""
    client = Client()
    task = asyncio.create_task(EventStream(body())(client_scope(), client.receive, client.send))
    await body.waiting.wait()
    return client, body, task


def test_a_client_leaving_ends_the_stream_and_its_body() -> None:
    async def scenario() -> None:
        client, body, task = await streaming(Body())
        client.left.set()
        await task  # returns: a leave is how a stream ends, not an error
        assert body.ended
        assert client.sent[0]["type"] == "http.response.start"
        assert client.bodies() == [b"event: update\ndata: x\n\n"]

    run(scenario)


def test_the_servers_cancellation_goes_through() -> None:
    async def scenario() -> None:
        _client, body, task = await streaming(Body())
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert body.ended

    run(scenario)


def test_a_leave_and_the_servers_cancellation_together_cancel() -> None:
    async def scenario() -> None:
        client, _body, task = await streaming(Body())
        client.left.set()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(scenario)


@pytest.mark.parametrize("passes", [0, 1, 2, 3])
def test_a_body_that_fails_as_the_client_leaves_leaves_the_request_alone(passes: int) -> None:
    async def failing() -> AsyncGenerator[str, None]:
        yield "event: update\ndata: x\n\n"
        for _ in range(passes):  # the leave is heard in one of these passes of the loop
            await asyncio.sleep(0)
        raise RuntimeError("the body failed")

    async def scenario() -> None:
        client = Client()
        stream = EventStream(failing())

        async def request() -> str:
            client.left.set()
            # The body's error, or (the leave heard first) the stream's end: either way, then
            with contextlib.suppress(RuntimeError):
                await stream(client_scope(), client.receive, client.send)
            for _ in range(5):  # the rest of the request (middlewares, logs) goes on, uncut
                await asyncio.sleep(0)
            return "done"

        assert await asyncio.create_task(request()) == "done"

    run(scenario)


def test_a_leave_during_work_in_a_thread_waits_for_that_work() -> None:
    async def scenario() -> None:
        client, body, task = await streaming(Body(thread=0.3))
        await asyncio.sleep(0.05)  # in the thread now
        client.left.set()
        await task
        assert body.ended
        assert body.thread_done_at_end, "the stream ended before the work it waited for"

    threads = threading.active_count()
    run(scenario)
    assert threading.active_count() <= threads + 1  # the worker thread is idle, not stuck


def test_a_stream_waiting_for_its_next_event_holds_nothing_it_has_written() -> None:
    """Each reader's last write stayed in its stream until the next one: after a roll, 15
    KiB a stream, encoded (docs/performance.md, "What a stream holds while it waits")."""
    megabyte = 1 << 20

    async def one_big_event(written: asyncio.Event) -> AsyncGenerator[str, None]:
        # Made for this reader alone, as the events of one wake are joined.
        yield "".join(["event: change\ndata: ", "x" * megabyte, "\n\n"])
        written.set()
        await asyncio.Event().wait()
        yield "never"

    async def scenario() -> None:
        written, left = asyncio.Event(), asyncio.Event()
        sizes: list[int] = []

        async def receive() -> dict[str, Any]:
            await left.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:  # as a socket does: written, gone
            sizes.append(len(message.get("body", b"")))

        tracing = tracemalloc.is_tracing()  # (someone else's tracing is left as it is)
        if not tracing:
            tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            stream = EventStream(one_big_event(written))
            task = asyncio.create_task(stream(client_scope(), receive, send))
            await written.wait()
            await asyncio.sleep(0)
            held = tracemalloc.get_traced_memory()[0] - before
            left.set()
            await task
        finally:
            if not tracing:
                tracemalloc.stop()
        assert megabyte < max(sizes)  # it was written
        assert held < megabyte // 10, f"the waiting stream holds {held} bytes"

    run(scenario)


def client_scope() -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}}


def test_a_subscription_wakes_its_reader_at_once_or_at_its_timeout_and_keeps_no_timer() -> None:
    async def scenario() -> None:
        broker = Broker()
        subscription = broker.subscribe("g")
        loop = asyncio.get_running_loop()
        timers = len(loop._scheduled)  # type: ignore[attr-defined]
        assert await subscription.wait(0, 0.01) is None  # nothing came: the timeout
        waiting = asyncio.create_task(subscription.wait(0, 10))
        await asyncio.sleep(0)
        broker.publish("g", 3)
        assert await waiting == 3  # woken by the version, long before the timeout
        assert await subscription.wait_any(3, 0.01) is False
        subscription.signal("table")
        assert await subscription.wait_any(3, 10) is True
        # Each wait took its timer with it (a cancelled one is dropped as the loop runs).
        await asyncio.sleep(0)
        live = [t for t in loop._scheduled if not t.cancelled()]  # type: ignore[attr-defined]
        assert len(live) <= timers
        subscription.close()

    run(scenario)


def test_a_reader_that_does_not_read_keeps_its_newest_versions_and_signals_only() -> None:
    async def scenario() -> None:
        broker = Broker()
        subscription = broker.subscribe("g")
        for version in range(1, MAX_VERSIONS + 6):
            broker.publish("g", version)
        for number in range(MAX_SIGNALS + 3):
            broker.signal("g", f"reaction {number}")
        taken = [version for version, _view in subscription.take(0)]
        assert taken == list(range(6, MAX_VERSIONS + 6)), "the oldest are lost (it resyncs)"
        assert subscription.signals == [f"reaction {n}" for n in range(3, MAX_SIGNALS + 3)]
        subscription.close()

    run(scenario)
