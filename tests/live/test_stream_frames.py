"""What an open live stream keeps of its request: once its answer's head has gone through the
app's stack (its headers, its cookie, its log line), the stack returns and the app writes the
stream's events itself: no middleware, router or route keeps a frame for the page's life
(each held 250-550 bytes a stream: docs/performance.md, "What a stream holds while it waits")."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from fastapi import APIRouter, Request
from fastapi.testclient import TestClient
from uvicorn.config import Config
from uvicorn.server import ServerState

from app.settings import Settings
from app.web.factory import create_app
from app.web.plumbing.connections import ConnectionLimits, GuardedProtocol, guarded_protocol

pytestmark = pytest.mark.single_kind

OPEN_STREAM = ["PentaApp.__call__", "EventStream.write_body"]
"""All a waiting stream's task is suspended in (its events' generator below them)."""


def awaited_frames(task: asyncio.Task[None]) -> list[str]:
    """The coroutines a task is suspended in, outermost first (``cr_await`` down the chain)."""
    names = []
    coroutine: Any = task.get_coro()
    while coroutine is not None and hasattr(coroutine, "cr_code"):
        names.append(coroutine.cr_code.co_qualname)
        coroutine = coroutine.cr_await
    return names


def stream_scope(
    path: str, *, query: str = "", headers: Sequence[tuple[bytes, bytes]] = ()
) -> dict[str, Any]:
    """The ASGI scope of a GET of a live stream (no seat cookie)."""
    return {
        **{"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1"},
        **{"method": "GET", "scheme": "http", "path": path, "raw_path": path.encode()},
        **{"query_string": query.encode(), "root_path": "", "state": {}},
        "headers": [(b"host", b"testserver"), (b"accept", b"text/event-stream"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


@pytest.mark.parametrize("kind", ["page", "api"])
def test_an_open_stream_holds_no_frame_of_the_apps_stack(
    make_settings: Callable[..., Settings], kind: str
) -> None:
    async def scenario() -> tuple[list[str], dict[bytes, bytes]]:
        app = create_app(make_settings())
        async with app.router.lifespan_context(app):
            view, token = app.state.service.create("Ann")
            if kind == "page":
                scope = stream_scope(f"/games/{view.id}/events")
            else:
                bearer = (b"authorization", f"Bearer {token}".encode())
                scope = stream_scope(f"/api/v1/games/{view.id}/events", headers=[bearer])
            started = asyncio.Event()
            left = asyncio.Event()
            head: dict[bytes, bytes] = {}

            async def receive() -> dict[str, Any]:
                await left.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    head.update(message["headers"])
                if message["type"] == "http.response.body" and message.get("body"):
                    started.set()

            task = asyncio.create_task(app(scope, receive, send))
            await asyncio.wait_for(started.wait(), 10)
            await asyncio.sleep(0.05)  # the stream waits for its next event
            frames = awaited_frames(task)
            left.set()
            await asyncio.wait_for(task, 10)
            return frames, head

    frames, head = asyncio.run(scenario())
    assert frames == OPEN_STREAM
    # The stack did its work on the answer's head before it let go of the stream.
    assert head[b"content-type"].startswith(b"text/event-stream")
    assert b"content-security-policy" in head
    assert b"x-request-id" in head  # the request log's, which wrote its line as it opened


def layers(app: Any) -> list[str]:
    """The names of the middlewares of ``app``'s stack, outermost first."""
    names, layer = [], app.build_middleware_stack()
    while layer is not None and layer is not app.router:
        names.append(type(layer).__name__)
        layer = getattr(layer, "app", None)
    return names


def test_a_routers_body_size_is_still_answered_413_without_fastapis_app_layer(
    make_settings: Callable[..., Settings],
) -> None:
    """FastAPI's app-level body layer is left out (the app sets no size of its own), and a size
    set on an included router is still enforced, where the router's route reads the body.
    (FastAPI's telemetry layer is left out too, with its telemetry off: a call each on every
    request.)"""
    app = create_app(make_settings())
    assert "ExceptionTelemetryMiddleware" not in layers(app)
    router = APIRouter()

    @router.post("/small")
    async def small(request: Request) -> dict[str, int]:
        return {"bytes": len(await request.body())}

    app.include_router(router, max_body_size=10)
    assert "AppBodyLimitMiddleware" not in layers(app)
    assert "BodyLimitMiddleware" in layers(app)  # the app's own, for every request
    with TestClient(app) as client:
        assert client.post("/small", content=b"x" * 5).json() == {"bytes": 5}
        assert client.post("/small", content=b"x" * 20).status_code == 413
        chunked = client.post("/small", content=iter([b"x" * 8, b"x" * 8]))
        assert chunked.status_code == 413


SHARED_KEYS = 30
"""The most keys CPython 3.11 shares between the dictionaries of a class's instances: past
them, an instance's dictionary holds keys of its own (about 1.6 KiB against 0.3)."""


def test_a_connection_keeps_its_dictionary_within_the_shared_keys() -> None:
    """uvicorn's protocol, as the app subclasses it, with a request head read and its answer
    pending (a live stream's connection): its attributes stay within the shared keys."""

    async def scenario() -> tuple[int, set[str]]:
        started = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            started.set()
            await asyncio.sleep(3600)  # answers nothing, as a stream waiting for a version

        config = Config(app=app, lifespan="off")
        config.load()
        state = ServerState()
        protocol_class = guarded_protocol(ConnectionLimits())
        ours, theirs = socket.socketpair()
        loop = asyncio.get_running_loop()
        _transport, protocol = await loop.connect_accepted_socket(
            lambda: protocol_class(config=config, server_state=state, app_state={}), ours
        )
        theirs.sendall(b"GET /games/g/events HTTP/1.1\r\nHost: testserver\r\n\r\n")
        await asyncio.wait_for(started.wait(), 10)
        names = set(vars(protocol))
        for task in state.tasks:
            task.cancel()
        protocol.transport.close()
        theirs.close()
        await asyncio.sleep(0)
        return len(names), names

    count, names = asyncio.run(scenario())
    assert count < SHARED_KEYS, sorted(names)
    assert not names & set(GuardedProtocol.__slots__)


def test_a_body_sent_to_an_open_stream_is_still_counted_and_ends_it_past_the_limit(
    make_settings: Callable[..., Settings],
) -> None:
    """The stream hears its client on the stack's ``receive``: a body sent with a stream's
    request (chunked, its length not told) counts against the body limit, and past it the
    stream ends, where it would read and drop what came for as long as it was sent."""

    async def scenario() -> tuple[int, dict[str, Any]]:
        app = create_app(make_settings(max_body_bytes=1024))
        async with app.router.lifespan_context(app):
            view, _token = app.state.service.create("Ann")
            scope = stream_scope(
                f"/games/{view.id}/events", headers=[(b"transfer-encoding", b"chunked")]
            )
            chunks = 0
            sent: list[dict[str, Any]] = []

            async def receive() -> dict[str, Any]:
                nonlocal chunks
                chunks += 1
                await asyncio.sleep(0.001)
                return {"type": "http.request", "body": b"x" * 100, "more_body": True}

            async def send(message: dict[str, Any]) -> None:
                sent.append(message)

            await asyncio.wait_for(app(scope, receive, send), 10)  # the stream ended
            return chunks, sent[0]

    chunks, head = asyncio.run(scenario())
    assert head["status"] == 200  # it was open
    assert chunks == 11  # 1,100 bytes: over the 1,024


def test_a_head_of_a_response_that_hands_its_body_on_gets_no_body(
    make_settings: Callable[..., Settings],
) -> None:
    """``HEAD`` is answered as ``GET`` without the body (``HeadMiddleware``): a response that
    would hand its body to the app is made to write it through the middleware, which drops it.
    (The live streams refuse ``HEAD``; this is any route answering with an ``EventStream``.)"""
    from app.web.routes.events import EventStream

    app = create_app(make_settings())

    async def events() -> Any:
        yield "data: one\n\n"

    @app.get("/probe")
    async def probe() -> EventStream:
        return EventStream(events())

    async def answer(method: str) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        async with app.router.lifespan_context(app):
            await asyncio.wait_for(
                app({**stream_scope("/probe"), "method": method}, receive, send), 10
            )
        return sent

    got = asyncio.run(answer("GET"))
    assert [message.get("body") for message in got[1:]] == [b"data: one\n\n", b""]
    head = asyncio.run(answer("HEAD"))
    assert head[0]["status"] == 200
    assert [message.get("body") for message in head[1:]] == [b""]
