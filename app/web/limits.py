"""Per-address rate limits on what costs the server a new row: creating games, taking seats.

A token bucket per client address and action, in memory (Penta runs as one process): each
address may do an action ``per_minute`` times a minute, in bursts of as many. Behind a
reverse proxy the address is the one uvicorn takes from ``X-Forwarded-For`` when the proxy
is trusted (``--proxy-headers`` with ``FORWARDED_ALLOW_IPS``, see the README).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from fastapi import Depends, Request

from app.service.errors import ServiceError

MAX_ADDRESSES = 10_000
"""Buckets kept per action; the least recently used goes first (it would be full by now,
unless the limiter is under a flood of addresses, when forgetting one costs little)."""


class RateLimitedError(ServiceError):
    """Too many requests of one kind from one address: 429, with when to try again."""

    status = 429

    def __init__(self, retry_after: float) -> None:
        self.retry_after = math.ceil(retry_after)
        super().__init__(
            "rate_limited",
            f"too many requests from your address: try again in {self.retry_after} s",
        )


class RateLimiter:
    """Token buckets of ``per_minute`` tokens, refilled at ``per_minute`` a minute."""

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, action: str, address: str) -> float:
        """Take a token for ``action`` from ``address``: 0 if it may go ahead, else the
        seconds until it may (no token is taken then)."""
        if self.capacity <= 0:
            return 0.0
        key = (action, address)
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
            while len(self._buckets) > MAX_ADDRESSES:
                self._buckets.popitem(last=False)
        return wait


def client_address(request: Request) -> str:
    """The client's address (uvicorn's, after any trusted proxy headers)."""
    return request.client.host if request.client else "unknown"


def rate_limited(action: str) -> Callable[[Request], Awaitable[None]]:
    """A dependency that refuses ``action`` with 429 when the client's bucket is empty."""

    async def check(request: Request) -> None:
        limiter: RateLimiter = request.app.state.rate_limiter
        wait = limiter.take(action, client_address(request))
        if wait > 0:
            raise RateLimitedError(wait)

    return check


CreateLimit = Depends(rate_limited("create"))
JoinLimit = Depends(rate_limited("join"))
