"""What an open page stream keeps on its request: a middleware that only hands the stream on
keeps no frame of its own for the page's life (each held 250-550 bytes a stream:
docs/performance.md, "What a stream holds while it waits")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import APIRouter

from app.settings import Settings
from app.web.factory import create_app

pytestmark = pytest.mark.single_kind

HANDING_ON = {
    "HostMiddleware.__call__",
    "HeadMiddleware.__call__",
    "ActionLimitMiddleware.__call__",
    "BodyLimitMiddleware.__call__",
}
"""The app's middlewares that have nothing to do on a stream once it is let through. (Not
the app's own ``__call__``: uvicorn takes an app whose ``__call__`` is no coroutine function
for ASGI 2.)"""
INERT = {"ExceptionTelemetryMiddleware.__call__", "AppBodyLimitMiddleware.__call__"}
"""FastAPI's layers that do nothing with its telemetry off and no body size set on it (the app's
own middleware limits bodies): taken out of the stack."""
WORKING = {"RequestLog.__call__", "BrowserMiddleware.__call__", "ExceptionMiddleware.__call__"}
"""Three that do (the log line at its end, the headers of its answer, Starlette's handling of
its errors), outside those and inside them all: seen in the chain, they show that the walk went
past them."""


def awaited_frames(task: asyncio.Task[None]) -> list[str]:
    """The coroutines a task is suspended in, outermost first (``cr_await`` down the chain)."""
    names = []
    coroutine: Any = task.get_coro()
    while coroutine is not None and hasattr(coroutine, "cr_code"):
        names.append(coroutine.cr_code.co_qualname)
        coroutine = coroutine.cr_await
    return names


def test_an_open_stream_holds_no_frame_of_the_middlewares_that_hand_it_on(
    make_settings: Callable[..., Settings],
) -> None:
    async def scenario() -> list[str]:
        app = create_app(make_settings())
        async with app.router.lifespan_context(app):
            view, _token = app.state.service.create("Ann")
            started = asyncio.Event()
            left = asyncio.Event()

            async def receive() -> dict[str, Any]:
                await left.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body" and message.get("body"):
                    started.set()

            path = f"/games/{view.id}/events"
            scope = {
                **{"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1"},
                **{"method": "GET", "scheme": "http", "path": path, "raw_path": path.encode()},
                **{"query_string": b"", "root_path": "", "state": {}},
                "headers": [(b"host", b"testserver"), (b"accept", b"text/event-stream")],
                "client": ("127.0.0.1", 5000),
                "server": ("testserver", 80),
            }
            task = asyncio.create_task(app(scope, receive, send))
            await asyncio.wait_for(started.wait(), 10)
            await asyncio.sleep(0.05)  # the stream waits for its next event
            frames = awaited_frames(task)
            left.set()
            await asyncio.wait_for(task, 10)
            return frames

    frames = asyncio.run(scenario())
    assert set(frames) >= WORKING, frames
    assert not HANDING_ON & set(frames), frames
    assert not INERT & set(frames), frames


def layers(app: Any) -> list[str]:
    """The names of the middlewares of ``app``'s stack, outermost first."""
    names, layer = [], app.build_middleware_stack()
    while layer is not None and layer is not app.router:
        names.append(type(layer).__name__)
        layer = getattr(layer, "app", None)
    return names


def test_fastapis_body_limit_stays_where_a_router_sets_a_body_size(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(make_settings())
    assert "AppBodyLimitMiddleware" not in layers(app)
    assert "BodyLimitMiddleware" in layers(app)  # the app's own
    router = APIRouter()

    @router.post("/small")
    def small() -> None:
        """A route whose body FastAPI limits (its 413 is FastAPI's layer's to answer)."""

    app.include_router(router, max_body_size=10)
    assert "AppBodyLimitMiddleware" in layers(app)
