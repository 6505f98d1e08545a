"""HTML answers gzipped for a browser that accepts it, where that pays.

A page (a four-player game's 22 KB in its third round, the home page's 5.6 KB) and an htmx
answer with the board's fragments (a roll's 16 KB) go in a fifth to two fifths of their bytes
(``bench/page_bytes.py``; docs/performance.md, "Bytes on the wire"). They are gzipped as
they are made, in the route, at level 1: the answer to a move is on the path issue #25 takes
CPU off (55 µs for a roll's), and level 1 costs half of level 6 for a tenth more bytes.

Not through a middleware: one would wrap the ``send`` of every request and of every live
stream's every event, which are never compressed (a stream cannot be buffered, and the same
event's bytes go to every reader). The bots' JSON is not either: it is encoded once per
version for the answer and every bot's stream, 2 KB.
"""

from __future__ import annotations

import zlib
from typing import TypeVar

from starlette.requests import Request
from starlette.responses import Response

MINIMUM_BYTES = 1024
"""Smaller bodies go as they are: under a packet either way."""
LEVEL = 1
GZIP_WINDOW = 16 + zlib.MAX_WBITS
"""zlib's window bits for a gzip header and trailer (no file name, no time: the same bytes
on every worker)."""

AnyResponse = TypeVar("AnyResponse", bound=Response)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header lets the answer be gzipped (RFC 9110 12.5.3).

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br;q=1.0, gzip;q=0"), accepts_gzip("")
    (True, False, False)
    >>> accepts_gzip("*"), accepts_gzip("*, gzip;q=0"), accepts_gzip("identity")
    (True, False, False)
    """
    weights: dict[str, float] = {}
    for entry in accept_encoding.lower().split(","):
        coding, _, parameters = entry.partition(";")
        weight = 1.0
        name, _, value = parameters.partition("=")
        if name.strip() == "q":
            try:
                weight = float(value)
            except ValueError:
                weight = 0.0
        weights[coding.strip()] = weight
    return weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0))) > 0


def gzip_body(body: bytes | memoryview) -> bytes:
    """``body`` gzipped at :data:`LEVEL`."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, GZIP_WINDOW)
    return compressor.compress(body) + compressor.flush()


def gzipped(request: Request, response: AnyResponse) -> AnyResponse:
    """``response`` with its body gzipped if the request accepts it and it is worth it."""
    if len(response.body) < MINIMUM_BYTES or "content-encoding" in response.headers:
        return response
    response.headers.add_vary_header("Accept-Encoding")
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        response.body = gzip_body(response.body)
        response.headers["content-length"] = str(len(response.body))
        response.headers["content-encoding"] = "gzip"
    return response
