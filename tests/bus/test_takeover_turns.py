"""The look for deadlines a dead worker left is taken in turns: one worker of all looks in
each period, so that the looks cost the database the same however many workers run; while
Redis is away every worker looks, as a lone one does."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient
from redis.asyncio import Redis

from app.live.broker import Broker
from app.live.bus.redis_bus import RedisBus
from app.service.runner import Scheduler
from tests.bus.test_redis_bus import started, until
from tests.hardening.conftest import run_async
from tests.redis_server import RedisServer

WAIT = 10.0


def test_one_worker_of_all_takes_each_turn_and_every_worker_while_redis_is_away(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> None:
        first = await started(redis_server, Broker())
        second = await started(redis_server, Broker())
        # A turn lasts 0.9 of the period: the others are refused it, and so is the holder's
        # own next look within it.
        assert await first.takeover_turn(60) is True
        assert await second.takeover_turn(60) is False
        assert await first.takeover_turn(60) is False
        client = Redis.from_url(redis_server.url)
        assert 53_000 < await client.pttl("penta-test:takeover-turn") <= 54_000
        await client.delete("penta-test:takeover-turn")
        # Once a turn has run out, whoever asks first has the next.
        assert await second.takeover_turn(0.2) is True
        assert await first.takeover_turn(0.2) is False
        taken: list[RedisBus] = []

        async def first_to_take() -> bool:
            for worker in (first, second):
                if await worker.takeover_turn(0.2):
                    taken.append(worker)
            return bool(taken)

        deadline = time.monotonic() + WAIT
        while not await first_to_take():
            assert time.monotonic() < deadline, "the turn never ran out"
        assert len(taken) == 1  # the one that asked first after it ran out, not both
        await client.aclose()
        redis_server.stop()
        await until(lambda: first.status == second.status == "down", "Redis never went")
        assert await first.takeover_turn(60) is True
        assert await second.takeover_turn(60) is True
        await first.stop()
        await second.stop()

    run_async(scenario())


def test_workers_take_the_look_for_overdue_deadlines_in_turns(
    redis_server: RedisServer,
    make_client: Callable[..., TestClient],
    database_url: str | None,
    tmp_path: Path,
) -> None:
    shared = {
        "database_url": database_url or f"sqlite:///{tmp_path / 'shared.db'}",
        "bus_url": redis_server.url,
        "bus_channel": f"penta-test:{tmp_path.name}",
        "takeover_seconds": 0.05,
    }
    workers = [make_client(**shared), make_client(**shared)]
    schedulers: list[Scheduler] = [worker.app.state.scheduler for worker in workers]  # type: ignore[attr-defined]
    deadline = time.monotonic() + WAIT
    while any(scheduler.looks + scheduler.turns_missed < 10 for scheduler in schedulers):
        assert time.monotonic() < deadline, "the schedulers never looked"
        time.sleep(0.01)
    looks = sum(scheduler.looks for scheduler in schedulers)
    missed = sum(scheduler.turns_missed for scheduler in schedulers)
    assert looks >= 1
    assert missed >= 1, "every worker looked every time: the turns were not taken"
