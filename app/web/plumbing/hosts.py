"""The Host a request may name, and the site's address that every absolute link starts with.

Links that leave the page (the share link, the resume link that carries a seat's secret,
the API's ``url``) must never be built from a Host header a client chose: behind no proxy,
or a careless one, ``Host: evil.example`` would end up in a link a player shares. So the
address is ``PENTA_PUBLIC_URL`` when it is set, else the request's own address, and only
for a host in ``PENTA_ALLOWED_HOSTS``; a request naming any other host is refused with 400.
"""

from __future__ import annotations

from collections.abc import Awaitable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

ANY_HOST = "*"
METRICS_PATH = "/metrics"
"""Answered whatever the Host: nothing there builds a link (app/web/routes/metrics.py)."""


def host_name(host: str) -> str | None:
    """The host name of a Host header, lower case, without its port or brackets.

    >>> host_name("Example.org:8000"), host_name("[::1]:8000"), host_name("")
    ('example.org', '::1', None)
    """
    try:
        return urlsplit(f"//{host}").hostname or None
    except ValueError:
        return None


class HostMiddleware:
    """Refuses requests for hosts outside ``names``; gives the others ``state["base_url"]``,
    the site's address ending with ``/``."""

    def __init__(self, app: ASGIApp, *, names: frozenset[str], public_url: str | None) -> None:
        self.app = app
        self.names = names
        self.public_url = f"{public_url.rstrip('/')}/" if public_url else None

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The app's answer (or the refusal's), handed on: no coroutine of this middleware
        runs for a request."""
        if scope["type"] not in ("http", "websocket"):
            return self.app(scope, receive, send)
        if scope["path"] == METRICS_PATH:  # a scraper names each worker's own address
            return self.app(scope, receive, send)
        host = ""
        for name, value in scope.get("headers", ()):
            if name == b"host":
                host = value.decode("latin-1")
                break
        hostname = host_name(host)
        if ANY_HOST not in self.names and (hostname is None or hostname not in self.names):
            error = {"code": "unknown_host", "message": "this server does not serve that host"}
            return JSONResponse({"error": error}, status_code=400)(scope, receive, send)
        state = scope.setdefault("state", {})
        state["base_url"] = self.public_url or f"{scope.get('scheme', 'http')}://{host}/"
        return self.app(scope, receive, send)


def base_url(request: Request) -> str:
    """The site's address, ending with ``/``, for absolute links."""
    url: str = request.state.base_url
    return url
