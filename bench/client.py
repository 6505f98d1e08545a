"""A lean HTTP/1.1 keep-alive client for the load generators: one connection per client.

httpx's pool measured about 100 requests/s on this machine with 200 concurrent
connections (and 1-2 ms of client CPU per request even with one), far below the servers it
would measure; this client spends a few tens of microseconds per request, so the figures are
the server's. It speaks just what the benchmarks need: a request with an optional JSON body,
a response with ``Content-Length``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to ``host:port``."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Answer:
        """Send a request and read its answer. A kept-alive connection that the server has
        closed meanwhile (idle too long) is opened again and the request sent once more: it
        closed without a byte of answer, so the request never reached the app."""
        reused = self._writer is not None
        try:
            return await self._exchange(method, path, body, headers)
        except (asyncio.IncompleteReadError, ConnectionResetError) as error:
            if not reused or (isinstance(error, asyncio.IncompleteReadError) and error.partial):
                raise
            await self.close()
            return await self._exchange(method, path, body, headers)

    async def _exchange(
        self, method: str, path: str, body: Any, headers: dict[str, str] | None
    ) -> Answer:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        assert self._reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines.append(f"Content-Length: {len(payload)}")
        if body is not None:
            lines.append("Content-Type: application/json")
        lines.extend(f"{name}: {value}" for name, value in (headers or {}).items())
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        length = 0
        closing = False
        for line in header_lines:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value.strip().lower() == "close":
                closing = True
        content = await self._reader.readexactly(length) if length else b""
        if closing:
            await self.close()
        return Answer(status, content)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()
            self._writer = self._reader = None
