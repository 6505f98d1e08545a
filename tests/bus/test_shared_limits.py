"""Rate limits shared by workers in Redis (two limiters stand for two workers: each has its
own connection and its own local buckets), and the fall back to local buckets and back."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from app.web.plumbing.shared_limits import SharedLimits
from tests.hardening.conftest import run_async
from tests.live_server import Server
from tests.redis_server import RedisServer


def test_workers_share_one_bucket_per_key(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        one, two = SharedLimits(redis_server.url, "t"), SharedLimits(redis_server.url, "t")
        first, second = one.limiter("create", 4), two.limiter("create", 4)
        waits = [
            await limiter.acquire("create", "198.51.100.7")
            for limiter in (first, second, first, second, first, second)
        ]
        # Four a minute between them: each alone would have let all of its three through.
        assert waits[:4] == [0.0] * 4
        assert waits[4] == pytest.approx(15.0, abs=0.5)
        assert waits[5] == pytest.approx(15.0, abs=0.5)
        assert await first.acquire("create", "198.51.100.8") == 0.0, "one bucket per address"
        assert await first.acquire("join", "198.51.100.7") == 0.0, "one bucket per action"
        assert first.shared
        assert second.shared
        await one.close()
        await two.close()

    run_async(scenario())


def test_with_redis_away_each_worker_limits_locally_then_shares_again(
    redis_server: RedisServer,
) -> None:
    now = [0.0]

    async def scenario() -> None:
        limits = SharedLimits(redis_server.url, "t")
        limiter = limits.limiter("create", 2)
        limiter.clock = lambda: now[0]
        assert await limiter.acquire("create", "a") == 0.0  # one of Redis's two
        redis_server.stop()
        # Redis gone: the request is answered from the local bucket, full, not refused.
        assert await limiter.acquire("create", "a") == 0.0
        assert not limiter.shared
        assert await limiter.acquire("create", "a") == 0.0
        assert await limiter.acquire("create", "a") == pytest.approx(30.0, abs=0.5)
        redis_server.start()
        assert not limiter.shared  # until the retry time has passed
        now[0] += limiter.retry_seconds
        assert limiter.shared
        # Redis again (restarted empty): its bucket is full, the local one was empty.
        assert await limiter.acquire("create", "a") == 0.0
        assert await limiter.acquire("create", "a") == 0.0
        assert await limiter.acquire("create", "a") == pytest.approx(30.0, abs=0.5)
        assert limiter.shared
        await limits.close()

    run_async(scenario())


def test_never_started_redis_means_local_limits() -> None:
    async def scenario() -> None:
        limits = SharedLimits("redis://127.0.0.1:1/0", "t")  # nothing listens on port 1
        limiter = limits.limiter("create", 1)
        assert await limiter.acquire("create", "a") == 0.0
        assert await limiter.acquire("create", "a") == pytest.approx(60.0, abs=0.5)
        assert not limiter.shared
        await limits.close()

    run_async(scenario())


def test_the_action_limit_counts_requests_made_to_any_worker(
    start_workers: Callable[..., list[Server]],
) -> None:
    a, b = start_workers(2, PENTA_ACTIONS_PER_MINUTE="4")
    answers = [
        httpx.post(f"{worker.url}/api/v1/games", json={"name": "Ann"}, timeout=10).status_code
        for worker in (a, b, a, b, a, b)
    ]
    assert answers == [201, 201, 201, 201, 429, 429]
