"""Refuse request bodies over a size with 413, before anything parses them.

A declared ``Content-Length`` over the limit is answered at once, unread; a body without
one is counted as it arrives and refused as soon as it goes over. Either way the answer is
the app's usual error (JSON for the API, a page or fragment for people), and it passes
through the security headers like any other.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.plumbing.errors import HTTPRefusal, refusal_response


class BodyLimitMiddleware:
    """Bodies of at most ``max_bytes``; larger ones get 413 ``too_large``."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _declared_length(scope) > self.max_bytes:
            response = refusal_response(Request(scope), 413, "too_large", params=self.limit)
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # FastAPI and Starlette pass an HTTPException raised while they read
                    # the body to the app's handler, which answers in the usual way.
                    raise HTTPRefusal(413, "too_large", **self.limit)
            return message

        await self.app(scope, counted, send)

    @property
    def limit(self) -> dict[str, object]:
        """The parameters of the refusal: the most bytes a body may have."""
        return {"bytes": self.max_bytes}


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0
