"""Each request's id, and its one line in the JSON log.

The id is the ``X-Request-ID`` a trusted proxy (``PENTA_TRUSTED_PROXIES``) sent, when it
looks like one (1 to 128 letters, digits, ``.``, ``_``, ``-``), else a new random one; either
way the answer carries it back, so a player's report, the proxy's log and Penta's meet. A
client that is not a trusted proxy cannot choose it (it would forge lines in the log).

This middleware sits outside the proxy-header one: it sees the address that really
connected, as the trust of the id needs.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from typing import Any, cast

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.request_context import begin
from app.web.plumbing.logs import redact

logger = logging.getLogger("app.requests")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_GAME_PATH = re.compile(r"^(?:/api/v1)?/games/([^/]+)")


class RequestLog:
    """Gives every HTTP request an id (``X-Request-ID`` on the answer) and, when
    ``write`` is set, logs it once it is answered."""

    def __init__(self, app: ASGIApp, *, trusted_proxies: list[str], write: bool) -> None:
        self.app = app
        # uvicorn's own reading of the list: the same trust as the proxy headers'.
        self.trusted = ProxyHeadersMiddleware(cast(Any, app), trusted_proxies).trusted_hosts
        self.write = write

    def request_id(self, scope: Scope) -> str:
        client = scope.get("client")
        if client and client[0] in self.trusted:
            for name, value in scope["headers"]:
                if name == b"x-request-id":
                    given: str = value.decode("latin-1")
                    if _REQUEST_ID.fullmatch(given):
                        return given
                    break
        return uuid.uuid4().hex

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        facts = begin(self.request_id(scope))
        game = _GAME_PATH.match(scope["path"])
        if game is not None:
            facts.game = game.group(1)
        header = (b"x-request-id", facts.request_id.encode())
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if self.write:
                route = scope.get("route")
                path = redact(scope["path"])
                logger.info(
                    "%s %s %d",
                    scope["method"],
                    path,
                    status,
                    extra={
                        "method": scope["method"],
                        "route": getattr(route, "path", None),
                        "path": path,
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    },
                )
