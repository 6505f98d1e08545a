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
