"""Refuse request bodies over a size with 413, before anything parses them.

A declared ``Content-Length`` over the limit is answered at once, unread; a chunked body
(``Transfer-Encoding``, no length said) is counted as it arrives and refused as soon as it goes
over. Either way the answer is the app's usual error (JSON for the API, a page or fragment for
people), and it passes through the security headers like any other. Any other request is
handed straight on: in HTTP/1.1 its body is the length it declared, or none (RFC 9112, 6.3),
and the server reads no more.
"""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.plumbing.errors import HTTPRefusal, refusal_response


class BodyLimitMiddleware:
    """Bodies of at most ``max_bytes``; larger ones get 413 ``too_large``."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        length, chunked = _framing(scope)
        if length > self.max_bytes:
            response = refusal_response(Request(scope), 413, "too_large", params=self.limit)
            return response(scope, receive, send)
        if not chunked:
            return self.app(scope, receive, send)
        return self._counted(scope, receive, send)

    async def _counted(self, scope: Scope, receive: Receive, send: Send) -> None:
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


def _framing(scope: Scope) -> tuple[int, bool]:
    """The ``Content-Length`` a request declares (0 for none or one unreadable), and whether it
    says ``Transfer-Encoding`` (a body whose length is not told in advance)."""
    length, chunked = 0, False
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                length = 0
        elif name == b"transfer-encoding":
            chunked = True
    return length, chunked
