"""Rate limits: per client address on creating games (rematch included) and taking seats,
and on every action, per address and per seat.

A token bucket per client and action, in memory (with several workers, in Redis: see
:mod:`app.web.plumbing.shared_limits`): each client may do an action ``per_minute`` times a minute,
in bursts of as many. Behind a reverse
proxy the address is the one taken from ``X-Forwarded-For`` when the proxy is trusted
(see the README). An IPv6 client is counted by its /64 network, which one subscriber
usually holds whole: counted by address, it would have billions of buckets.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Protocol

from fastapi import Depends, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.service.errors import ServiceError
from app.web.plumbing.errors import service_error_response

MAX_ADDRESSES = 10_000
"""Buckets kept per action; the least recently used goes first (it would be full by now,
unless the limiter is under a flood of addresses, when forgetting one costs little)."""


class RateLimitedError(ServiceError):
    """Too many requests of one kind from one address: 429, with when to try again."""

    status = 429

    def __init__(self, retry_after: float) -> None:
        self.retry_after = math.ceil(retry_after)
        super().__init__("rate_limited", seconds=self.retry_after)


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

    async def acquire(self, action: str, address: str) -> float:
        """:meth:`take`, as a shared limiter is called (it may ask Redis)."""
        return self.take(action, address)


class Limiter(Protocol):
    """A local :class:`RateLimiter` or a shared one (in Redis)."""

    capacity: float

    async def acquire(self, action: str, address: str) -> float: ...


class SeatLimitedError(ServiceError):
    """Too many actions from one seat: 429, with when to try again."""

    status = 429

    def __init__(self, retry_after: float) -> None:
        self.retry_after = math.ceil(retry_after)
        super().__init__("rate_limited", "seat_limited", seconds=self.retry_after)


IPV6_PREFIX = 64


def address_bucket(host: str) -> str:
    """The bucket of a client address: itself for IPv4, its /64 network for IPv6.

    >>> address_bucket("203.0.113.9"), address_bucket("2001:db8:1:2:aa::1")
    ('203.0.113.9', '2001:db8:1:2::/64')
    >>> address_bucket("::ffff:198.51.100.1")
    '198.51.100.1'
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return host


def client_address(request: Request) -> str:
    """The client's address bucket (after any trusted proxy headers)."""
    return scope_address(request.scope)


def scope_address(scope: Scope) -> str:
    """The address bucket of the client of an ASGI connection."""
    client = scope.get("client")
    return address_bucket(client[0]) if client else "unknown"


def rate_limited(action: str) -> Callable[[Request], Awaitable[None]]:
    """A dependency that refuses ``action`` with 429 when the client's bucket is empty."""

    async def check(request: Request) -> None:
        limiter: Limiter = request.app.state.rate_limiter
        wait = await limiter.acquire(action, client_address(request))
        if wait > 0:
            raise RateLimitedError(wait)

    return check


CreateLimit = Depends(rate_limited("create"))
JoinLimit = Depends(rate_limited("join"))


_GAME_PATH = re.compile(r"^(?:/api/v1)?/games/([^/]+)/")
_ACTION_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _seat_key(scope: Scope) -> str | None:
    """Who acts, when it names a game: the game and a digest of the seat's secret (its
    cookie for that game, or the bearer token); None for no game or no seat."""
    match = _GAME_PATH.match(scope["path"])
    if match is None:
        return None
    game_id = match.group(1)
    cookie_name = f"penta_seat_{game_id}=".encode()
    secret = None
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            secret = value[7:].strip()
        elif name == b"cookie" and secret is None:
            for part in value.split(b";"):
                part = part.strip()
                if part.startswith(cookie_name):
                    secret = part[len(cookie_name) :]
    if not secret:
        return None
    return f"{game_id}:{hashlib.sha256(secret).hexdigest()[:32]}"


class ActionLimitMiddleware:
    """Every request that changes something (any POST, whatever the route, so routes added
    later are covered too) takes a token from its address's bucket and, when it acts in a
    game with a seat, from that seat's bucket: 429 with ``Retry-After`` when either is empty.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        per_address: int,
        per_seat: int,
        shared: Callable[[str, int], Limiter] | None = None,
    ) -> None:
        """``shared``: makes a limiter shared by every worker, from a name and a rate."""
        self.app = app
        self.addresses: Limiter = (
            shared("action", per_address) if shared else RateLimiter(per_address)
        )
        self.seats: Limiter = shared("seat", per_seat) if shared else RateLimiter(per_seat)

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """A read is the app's, handed on: no coroutine of this middleware runs for it."""
        if scope["type"] == "http" and scope["method"] in _ACTION_METHODS:
            return self._limited(scope, receive, send)
        return self.app(scope, receive, send)

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal: ServiceError | None = None
        wait = await self.addresses.acquire("action", scope_address(scope))
        if wait > 0:
            refusal = RateLimitedError(wait)
        elif self.seats.capacity > 0:
            seat = _seat_key(scope)
            wait = await self.seats.acquire("seat", seat) if seat else 0.0
            if wait > 0:
                refusal = SeatLimitedError(wait)
        if refusal is not None:
            response = service_error_response(Request(scope), refusal)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
