"""A page stream that opens just after a version was published, before any stream of this
worker took that version in: it starts from that version, not from the older one the worker
still keeps (found by CI: a spectator's page opened as the host rolled, and its tray waited
for a roll that had come)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from app.settings import Settings
from app.web.factory import create_app
from tests.live.test_stream_frames import stream_scope

pytestmark = pytest.mark.single_kind


def test_a_stream_opened_after_a_version_it_was_not_told_of_starts_from_it(
    make_settings: Callable[..., Settings],
) -> None:
    async def scenario() -> tuple[int, list[str]]:
        app = create_app(make_settings())
        async with app.router.lifespan_context(app):
            service, broker, live = app.state.service, app.state.broker, app.state.live_views
            view, token = service.create("Ann")
            service.add_computer(view.id, token)
            started = service.start(view.id, token)
            # Another reader watches the game, and the worker keeps the version it shows...
            watching = broker.subscribe(view.id)
            await live.view(view.id, started.version)
            # ...when the host rolls: published, but no stream here has taken it in yet.
            rolled = service.roll(view.id, token)
            assert broker.newest(view.id) == rolled.version > started.version
            bodies: list[str] = []
            seen = asyncio.Event()

            async def receive() -> dict[str, Any]:
                await asyncio.Event().wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body" and message.get("body"):
                    bodies.append(message["body"].decode())
                    if f"\nid: {rolled.version}\n" in bodies[-1]:
                        seen.set()

            scope = stream_scope(f"/games/{view.id}/events", query=f"version={started.version}")
            task = asyncio.create_task(app(scope, receive, send))
            try:
                await asyncio.wait_for(seen.wait(), 5)  # the keep-alive comes at 15 s
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                watching.close()
            return rolled.version, bodies

    version, bodies = asyncio.run(scenario())
    assert any(f"\nid: {version}\n" in body for body in bodies), bodies
