"""Limits on connections, below HTTP requests: what a plain ``uvicorn app.main:app`` lacks.

uvicorn's default protocol (httptools) reads a request's head without a size limit (its
memory grows with every unfinished header: docs/performance.md), never closes a connection
that has not sent a request, and lets one address open as many connections as the process
has file descriptors. :func:`guarded_protocol` makes a subclass of it that

- closes a connection whose request head passes ``max_header_bytes`` (431) or whose head
  is not complete within ``header_timeout`` of the connection opening or the previous
  answer ending (408), and refuses more than ``max_headers`` header lines (400);
- refuses a connection beyond ``max_connections_per_address`` from one address (an IPv6
  client counted by its /64) with 429, and beyond ``max_connections`` in all with 503;
- on shutdown, closes within ``SHUTDOWN_GRACE_SECONDS`` the connections whose answer is
  still going (live streams, which never end by themselves), so that the app sees them
  disconnect and ends them cleanly instead of being cancelled with a traceback.

The app puts it in place itself (:mod:`app.web.plumbing.server_setup`), so no uvicorn flag is
needed.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.metrics import LIMIT_REFUSALS
from app.web.plumbing.limits import address_bucket

_REASONS = {
    408: "Request Timeout",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}
SHUTDOWN_GRACE_SECONDS = 0.5
"""How long an answer in progress has to finish once the server is shutting down."""


@dataclass(frozen=True)
class ConnectionLimits:
    """The limits of :class:`GuardedProtocol`; 0 turns a cap off."""

    max_header_bytes: int = 16 * 1024
    max_headers: int = 100
    header_timeout: float = 10.0
    max_connections: int = 1000
    max_connections_per_address: int = 64


@dataclass
class ConnectionCounts:
    """Open connections, in all and per address bucket (one event loop: no lock needed)."""

    total: int = 0
    by_address: dict[str, int] = field(default_factory=dict)

    def admit(self, address: str, limits: ConnectionLimits) -> tuple[int, str, str] | None:
        """Count a new connection from ``address``, or say why it is refused."""
        if limits.max_connections and self.total >= limits.max_connections:
            return 503, "server_full", "the server has too many connections: try again later"
        cap = limits.max_connections_per_address
        if cap and self.by_address.get(address, 0) >= cap:
            return 429, "too_many_connections", "too many connections from your address"
        self.total += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        return None

    def release(self, address: str) -> None:
        self.total -= 1
        left = self.by_address[address] - 1
        if left:
            self.by_address[address] = left
        else:
            del self.by_address[address]


class TooManyHeadersError(Exception):
    """Raised from the parser's header callback: httptools then refuses the request (400)."""


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits of :class:`ConnectionLimits`."""

    limits: ClassVar[ConnectionLimits] = ConnectionLimits()
    counts: ClassVar[ConnectionCounts]

    # In slots, not in the instance's dictionary: uvicorn's protocol sets 27 or 28 attributes
    # of its own, and six more took the dictionary past the 30 keys CPython shares between
    # instances, to keys of its own: 1.5 KiB more a connection (bench/stream_memory.py;
    # tests/live/test_stream_frames.py counts them).
    __slots__ = (
        "_address",
        "_head_bytes",
        "_head_timer",
        "_header_lines",
        "_in_head",
        "_message_done",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None
        self._in_head = True
        self._head_bytes = 0
        self._message_done = True
        self._header_lines = 0
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = address_bucket(self.client[0]) if self.client else "unknown"
        refusal = self.counts.admit(address, self.limits)
        if refusal is not None:
            self._refuse(*refusal)
            return
        self._address = address
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._address is not None:
            self.counts.release(self._address)
            self._address = None
        self._stop_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._address is None:  # refused: read nothing
            return
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        # Checked after parsing: the chunk that ends a head may carry a body with it.
        if self._in_head and self._head_bytes > self.limits.max_header_bytes:
            self._refuse(431, "headers_too_large", "the request's headers are too large")

    def on_message_begin(self) -> None:
        self._header_lines = 0
        self._message_done = False
        super().on_message_begin()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_lines += 1
        if self._header_lines > self.limits.max_headers:
            raise TooManyHeadersError
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._stop_head_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._message_done = True
        super().on_message_complete()
        # Answered before its body had all arrived (a 413, say): the next head starts now.
        if self.cycle.response_complete and not self.pipeline and not self.transport.is_closing():
            self._await_head()

    def on_response_complete(self) -> None:
        # A pipelined request whose head has arrived already starts now: no head to wait for.
        # A body still arriving is the rest of this request, not the next one's head.
        queued = bool(self.pipeline)
        super().on_response_complete()
        if not queued and self._message_done and not self.transport.is_closing():
            self._await_head()

    def shutdown(self) -> None:
        super().shutdown()
        if not self.transport.is_closing():
            self.loop.call_later(SHUTDOWN_GRACE_SECONDS, self._close)

    def _await_head(self) -> None:
        self._in_head = True
        self._head_bytes = 0
        self._stop_head_timer()
        self._head_timer = self.loop.call_later(self.limits.header_timeout, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            if self._head_bytes:
                self._refuse(408, "timeout", "the request took too long to arrive")
            else:
                self.transport.close()  # an idle connection: nobody is waiting for an answer

    def _close(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: int, code: str, message: str) -> None:
        """Answer with ``status`` and a JSON error, and close the connection."""
        if self.transport.is_closing():
            return
        LIMIT_REFUSALS.labels(f"connection_{code}").inc()
        self._in_head = False
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        retry = "retry-after: 5\r\n" if status in (429, 503) else ""
        head = (
            f"HTTP/1.1 {status} {_REASONS[status]}\r\n"
            "content-type: application/json\r\n"
            f"content-length: {len(body)}\r\n{retry}"
            "connection: close\r\n\r\n"
        )
        self.transport.write(head.encode("latin-1") + body)
        self.transport.close()


def guarded_protocol(limits: ConnectionLimits) -> type[GuardedProtocol]:
    """A :class:`GuardedProtocol` with ``limits`` and counts of its own."""
    return type(
        "PentaProtocol",
        (GuardedProtocol,),
        {"limits": limits, "counts": ConnectionCounts(), "__module__": __name__},
    )
