"""Rate limits shared by every worker: one token bucket per key in Redis, taken in one Lua
call (Redis's clock refills it, so hosts need not agree on the time); each limiter falls back
to its own local buckets while Redis is away, and tries Redis again a few seconds later."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.web.plumbing.limits import RateLimiter

logger = logging.getLogger(__name__)

RETRY_SECONDS = 5.0
"""How long a limiter uses its local buckets after Redis failed it, before trying again."""
TIMEOUT_SECONDS = 0.25
"""The longest a request waits on Redis for its token: then the local bucket decides."""

# KEYS[1]: the bucket; ARGV: capacity, tokens per second. Returns the wait, as text (Redis
# would truncate a Lua number to an integer). Kept as long as it takes to refill, no longer.
BUCKET_SCRIPT = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + 1000)
return tostring(wait)
"""


class SharedRateLimiter:
    """A :class:`RateLimiter` whose buckets live in Redis, shared by every worker."""

    def __init__(
        self,
        client: Redis,
        prefix: str,
        local: RateLimiter,
        *,
        clock: Callable[[], float] = time.monotonic,
        retry_seconds: float = RETRY_SECONDS,
    ) -> None:
        self.prefix = prefix
        self.local = local
        self.capacity = local.capacity
        self.clock = clock
        self.retry_seconds = retry_seconds
        self._take = client.register_script(BUCKET_SCRIPT)
        self._local_until = float("-inf")

    @property
    def shared(self) -> bool:
        """Whether the buckets in Redis decide (else, for now, the local ones)."""
        return self.clock() >= self._local_until

    async def acquire(self, action: str, address: str) -> float:
        """Take a token for ``action`` from ``address``: 0 if it may go ahead, else the
        seconds until it may (no token is taken then)."""
        if self.capacity <= 0:
            return 0.0
        if self.shared:
            try:
                key = f"{self.prefix}:{action}:{address}"
                wait = await self._take(keys=[key], args=[self.capacity, self.local.rate])
                return float(wait)
            except (RedisError, OSError) as error:
                logger.warning("rate limits: Redis is away (%s); limiting locally", error)
                self._local_until = self.clock() + self.retry_seconds
        return self.local.take(action, address)


class SharedLimits:
    """The one Redis connection pool of a worker's shared limiters."""

    def __init__(self, url: str, prefix: str) -> None:
        self.prefix = prefix
        self.client = Redis.from_url(
            url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS
        )

    def limiter(self, name: str, per_minute: int) -> SharedRateLimiter:
        """A shared limiter of ``per_minute`` tokens; ``name`` keeps its keys apart."""
        return SharedRateLimiter(self.client, f"{self.prefix}:{name}", RateLimiter(per_minute))

    async def close(self) -> None:
        await self.client.aclose()
