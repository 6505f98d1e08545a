"""``HEAD`` wherever ``GET`` is served: uptime monitors and link checkers ask with it.

FastAPI routes a ``HEAD`` to no ``GET`` route (405), so this middleware hands the app a
``GET`` and sends on the response's status and headers (with the ``Content-Length`` of the
body a ``GET`` would get) without its body. Live streams are left out: their body never
ends, so a ``HEAD`` of one stays a 405.
"""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.plumbing.server_setup import DETACH

STREAM_SUFFIX = "/events"


class HeadMiddleware:
    """Answers ``HEAD`` as ``GET`` would, without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """Any other request is the app's, handed on: no coroutine of this middleware runs
        for it."""
        if (
            scope["type"] != "http"
            or scope["method"] != "HEAD"
            or scope["path"].endswith(STREAM_SUFFIX)
        ):
            return self.app(scope, receive, send)
        return self._head(scope, receive, send)

    async def _head(self, scope: Scope, receive: Receive, send: Send) -> None:
        ended = False

        async def headers_only(message: Message) -> None:
            nonlocal ended
            if message["type"] == "http.response.body":
                if ended or message.get("more_body", False):
                    return
                ended = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        # Without the app's hand-over of a body (``DETACH``): every body goes through here.
        as_get = {key: value for key, value in scope.items() if key != DETACH}
        as_get["method"] = "GET"
        await self.app(as_get, receive, headers_only)
