"""What the app sets up in the uvicorn server that runs it, so that a plain
``uvicorn app.main:app`` is as safe as any command line.

uvicorn builds its protocol for each new connection from its ``Config`` (after the app's
start-up has run), and reads its graceful-shutdown timeout only when it shuts down. When
the app starts, :class:`PentaApp` finds that ``Config`` (the owner of the
lifespan's ``receive``) and

- puts in the connection limits of :mod:`app.web.plumbing.connections` (uvicorn's default httptools
  protocol, which the app subclasses; with ``--http h11`` it sets h11's own head-size limit
  instead and logs that the connection caps are off);
- sets a graceful-shutdown timeout if none was given (live streams end by themselves
  within half a second, this is the backstop);
- makes ``PENTA_TRUSTED_PROXIES`` the one list of trusted proxies: uvicorn believes
  ``X-Forwarded-For`` from 127.0.0.1 by default (``FORWARDED_ALLOW_IPS``), which let any
  local client choose its address; the app trusts no one unless told and applies the
  proxy headers itself (:func:`trusted_proxies`), whatever uvicorn's flags.

Run by another ASGI server (or a test client), it changes nothing and logs that it did not.
"""

from __future__ import annotations

import logging
import resource
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import Settings
from app.web.plumbing.connections import ConnectionLimits, guarded_protocol

GRACEFUL_SHUTDOWN_SECONDS = 3
DETACH = "penta.detach"
"""The scope's key of the callable a response hands its body writer to, to be called with the
server's ``send`` once the app's stack has returned (:class:`PentaApp`): its body messages go
through no middleware's ``send``."""
FILE_DESCRIPTOR_MARGIN = 64
"""Descriptors kept beyond the connection cap: the database, logs, the strategy table."""

logger = logging.getLogger("uvicorn.error")

TELEMETRY_LAYER = "ExceptionTelemetryMiddleware"
"""FastAPI's layer that reports an exception to its telemetry: it does nothing with that off."""
BODY_LIMIT_LAYER = "AppBodyLimitMiddleware"
"""FastAPI's layer for the app's own ``max_body_size``: with none set, it only hands a request on
(a route's or a router's size is enforced further in, and answered 413 there; the app's own
``BodyLimitMiddleware`` limits every body). It would act on a size set by a parent app this one
is mounted in; Penta is not mounted. Both named, not imported, as they live in FastAPI's private
modules: renamed, they are simply kept."""


def connection_limits(settings: Settings) -> ConnectionLimits:
    return ConnectionLimits(
        max_header_bytes=settings.max_header_bytes,
        max_headers=settings.max_headers,
        header_timeout=settings.header_timeout_seconds,
        max_connections=settings.max_connections,
        max_connections_per_address=settings.max_connections_per_address,
    )


def trusted_proxies(settings: Settings) -> list[str]:
    """The addresses and networks in ``PENTA_TRUSTED_PROXIES`` (none by default), whose
    proxy headers the app's own ``ProxyHeadersMiddleware`` believes."""
    return [entry.strip() for entry in settings.trusted_proxies.split(",") if entry.strip()]


def uvicorn_config(receive: Receive) -> Config | None:
    """The ``Config`` of the uvicorn server whose lifespan ``receive`` belongs to, if any."""
    config = getattr(getattr(receive, "__self__", None), "config", None)
    return config if isinstance(config, Config) else None


def configure(config: Config, settings: Settings) -> None:
    """Put the app's connection limits, shutdown timeout and proxy trust into ``config``."""
    limits = connection_limits(settings)
    protocol: Any = config.http_protocol_class
    if protocol is HttpToolsProtocol:
        config.http_protocol_class = guarded_protocol(limits)
        _raise_file_limit(limits.max_connections + FILE_DESCRIPTOR_MARGIN)
        logger.info(
            "Penta limits: head %d bytes in %g s, %d connections (%d per address)",
            limits.max_header_bytes,
            limits.header_timeout,
            limits.max_connections,
            limits.max_connections_per_address,
        )
    elif protocol is H11Protocol:
        config.h11_max_incomplete_event_size = limits.max_header_bytes
        logger.warning("Penta: with --http h11 only the head size is limited; use httptools")
    else:
        logger.warning("Penta: unknown HTTP protocol %r, its connections are not limited", protocol)
    if config.timeout_graceful_shutdown is None:
        config.timeout_graceful_shutdown = GRACEFUL_SHUTDOWN_SECONDS
    if isinstance(config.loaded_app, ProxyHeadersMiddleware):
        # uvicorn's own proxy handling, on by default for 127.0.0.1: trust no one there,
        # the app's (proxy_headers) decides.
        config.loaded_app.trusted_hosts = ProxyHeadersMiddleware(
            config.loaded_app.app, trusted_hosts=[]
        ).trusted_hosts


def _raise_file_limit(wanted: int) -> None:
    """Let the process open ``wanted`` files if the hard limit allows (the soft one is
    often 1,024, which a thousand connections would exhaust before their cap)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class PentaApp(FastAPI):
    r"""The FastAPI app that, on the lifespan's start, :func:`configure`\ s the uvicorn server
    running it. (Before FastAPI's own ``__call__``, which hands the app a ``receive`` of its
    own for the lifespan: the server's is only seen here.)

    It also writes the body of a live stream once the stack has returned: a response that
    hands its body writer to ``scope[DETACH]`` has sent its head through the stack (the
    middlewares' headers, cookies and log line), and its events then go straight to the
    server's ``send``. An open stream held a frame of every middleware, of the router and of
    the route for the page's life (7.0 of its 26.4 KiB, docs/performance.md)."""

    penta_settings: Settings | None = None
    _server_configured = False

    def build_middleware_stack(self) -> ASGIApp:
        """FastAPI's stack without its layers that have nothing to do here: each was a call on
        every request."""
        stack = super().build_middleware_stack()
        telemetry = getattr(self, "_native_telemetry", None)
        inert = set()
        if telemetry is not None and not telemetry.enabled():
            inert.add(TELEMETRY_LAYER)
        if self.max_body_size is None:
            inert.add(BODY_LIMIT_LAYER)
        layer: Any = stack
        inner = getattr(layer, "app", None)
        while inner is not None and inner is not self.router:  # the middlewares, outermost first
            if type(inner).__name__ in inert:
                layer.app = inner.app
            else:
                layer = inner
            inner = getattr(layer, "app", None)
        return stack

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" and not self._server_configured:
            self._server_configured = True
            config = uvicorn_config(receive)
            if config is not None and self.penta_settings is not None:
                configure(config, self.penta_settings)
            else:
                logger.info("Penta: not run by uvicorn, connection limits left to the server")
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        detached: list[Callable[[Send], Awaitable[None]]] = []
        scope[DETACH] = detached.append
        try:
            await super().__call__(scope, receive, send)
        except BaseException:
            detached.clear()  # a body never to be written (its stream's slot freed at once)
            raise
        if detached:
            await detached.pop()(send)
