"""Presence while the bus between workers is down: a seat whose stream is on another worker
is not handed to the computer on a guess, and a stream that sees its seat handed over anyway
(by a worker that could not see it) takes the seat back at once. Redis is killed and
restarted under two real workers."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx

from app.live.presence import REMOTE_EXPIRE_SECONDS
from tests.bus.test_bus_across_processes import wait_for_bus
from tests.live.test_live_updates import api
from tests.live.test_table_live import bearer, friends, wait_until
from tests.live_server import Server
from tests.redis_server import RedisServer


def test_a_present_seat_is_not_handed_over_while_the_bus_is_down_and_a_wrong_hand_over_is_undone(
    start_workers: Callable[..., list[Server]],
    start_server: Callable[..., Server],
    redis_server: RedisServer,
    database_url: str | None,
    tmp_path: Path,
) -> None:
    a, b = start_workers(
        2,
        PENTA_BUS_CHECK_SECONDS="600",
        PENTA_ABSENT_SECONDS="1",
        PENTA_COMPUTER_PACE_SECONDS="3600",
    )
    wait_for_bus(a, "up")
    wait_for_bus(b, "up")
    with api(b) as on_b, api(a) as on_a:
        game_id, ann, bob = friends(on_b)
        hand_over = f"/api/v1/games/{game_id}/stand-in"

        def refusal(on: httpx.Client) -> str:
            answer = on.post(hand_over, json={"seat": 0}, headers=bearer(bob))
            return str(answer.json()["error"]["code"]) if answer.status_code == 409 else ""

        def stand_in() -> bool:
            return bool(on_a.get(f"/api/v1/games/{game_id}").json()["players"][0]["stand_in"])

        with on_a.stream("GET", f"/api/v1/games/{game_id}/events", headers=bearer(ann)):
            time.sleep(1.2)  # had she been away, it would be long enough
            assert wait_until(lambda: refusal(on_b) == "present"), "B hears Ann's stream on A"

            redis_server.stop()
            wait_for_bus(a, "down")
            wait_for_bus(b, "down")
            # What A said of Ann expires on B: B cannot tell whether she is there.
            time.sleep(REMOTE_EXPIRE_SECONDS + 0.5)
            assert refusal(on_b) == "presence_unknown"
            assert not stand_in()

            # A worker that cannot see A's streams at all (no bus) hands her seat over: A,
            # polling the database while the bus is down, shows her stream the hand-over,
            # and the stream takes the seat back.
            blind = start_server(
                PENTA_DATABASE_URL=database_url or f"sqlite:///{tmp_path / 'shared.db'}",
                PENTA_ABSENT_SECONDS="1",
                PENTA_COMPUTER_PACE_SECONDS="3600",
            )
            time.sleep(1.1)  # away for as long as that worker has known
            with api(blind) as on_blind:
                handed = on_blind.post(hand_over, json={"seat": 0}, headers=bearer(bob))
                assert handed.status_code == 200, handed.text
                assert handed.json()["players"][0]["stand_in"]
            assert wait_until(lambda: not stand_in()), "her open stream took the seat back"
            game = on_a.get(f"/api/v1/games/{game_id}").json()
            assert game["version"] == handed.json()["version"] + 1, "given back, nothing played"
            assert (game["turn"], game["rolls_left"]) == (0, 3)

            # Redis is back: once the workers have repeated what they hold, B sees her again.
            redis_server.start()
            wait_for_bus(b, "up")
            assert wait_until(lambda: refusal(on_b) == "present", REMOTE_EXPIRE_SECONDS + 5)
        assert not stand_in()
