"""The Redis bus between real worker processes: a stream on one worker follows every change
made on another; with Redis away moves go on, streams poll, and ``/healthz`` says so."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import httpx

from tests.live.test_live_updates import create, events, post
from tests.live_server import Server
from tests.operator.test_metrics import TOKEN, scrape, value
from tests.redis_server import RedisServer

READ_TIMEOUT = 10.0


def health(server: Server) -> dict[str, object]:
    response = httpx.get(f"{server.url}/healthz", timeout=5)
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def wait_for_bus(server: Server, status: str) -> None:
    """Until the worker's ``/healthz`` reports the bus ``status`` (its reconnect is jittered)."""
    deadline = time.monotonic() + 20
    while health(server)["bus"] != status:
        assert time.monotonic() < deadline, f"the bus never became {status}"
        time.sleep(0.1)


def stream_of(client: httpx.Client, game_id: str) -> Iterator[dict[str, str]]:
    with client.stream("GET", f"/api/v1/games/{game_id}/events") as stream:
        yield from events(stream.iter_lines())


def test_a_stream_on_one_worker_sees_every_move_made_on_another(
    start_workers: Callable[..., list[Server]],
) -> None:
    # No periodic check in the test's time: the changes can only come over the bus.
    a, b = start_workers(2, PENTA_BUS_CHECK_SECONDS="600")
    wait_for_bus(a, "up")
    wait_for_bus(b, "up")
    with (
        httpx.Client(base_url=b.url, timeout=10) as on_b,
        httpx.Client(base_url=a.url, timeout=READ_TIMEOUT) as on_a,
    ):
        game_id, token = create(on_b)
        post(on_b, f"/api/v1/games/{game_id}/start", token)
        received = stream_of(on_a, game_id)
        seen = [int(next(received)["id"])]
        for _ in range(3):
            rolled = post(on_b, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
            event = next(received)
            assert int(event["id"]) == rolled["version"]
            assert json.loads(event["data"])["dice"] == rolled["dice"]
            seen.append(int(event["id"]))
        assert seen == sorted(set(seen))
        assert len(seen) == 4
    assert health(a)["status"] == "ok"


def test_with_redis_away_moves_go_on_and_streams_catch_up_by_polling(
    start_workers: Callable[..., list[Server]], redis_server: RedisServer
) -> None:
    a, b = start_workers(2)
    wait_for_bus(a, "up")
    with (
        httpx.Client(base_url=b.url, timeout=10) as on_b,
        httpx.Client(base_url=a.url, timeout=READ_TIMEOUT) as on_a,
    ):
        game_id, token = create(on_b)
        started = post(on_b, f"/api/v1/games/{game_id}/start", token)
        received = stream_of(on_a, game_id)
        assert int(next(received)["id"]) == started["version"]

        redis_server.stop()
        wait_for_bus(a, "down")
        wait_for_bus(b, "down")
        assert health(a)["status"] == "ok"  # slower live updates, not an unhealthy server
        rolled = post(on_b, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
        event = next(received)  # from A's poll of the database: Redis carries nothing
        assert int(event["id"]) == rolled["version"]

        redis_server.start()
        wait_for_bus(a, "up")
        wait_for_bus(b, "up")
        rolled = post(on_b, f"/api/v1/games/{game_id}/roll", token, {"hold": [0]})
        event = next(received)
        assert int(event["id"]) == rolled["version"]
        assert json.loads(event["data"])["dice"] == rolled["dice"]


def test_the_metrics_say_the_bus_is_down_and_count_what_it_dropped(
    start_workers: Callable[..., list[Server]], redis_server: RedisServer
) -> None:
    """``penta_bus_up`` reads 0 while Redis is away, every move's message is counted dropped,
    and the first move after it comes back is sent (not tried on a connection from before)."""
    (worker,) = start_workers(1, PENTA_METRICS_TOKEN=TOKEN, PENTA_BUS_CHECK_SECONDS="600")
    wait_for_bus(worker, "up")
    with httpx.Client(base_url=worker.url, timeout=10) as client:
        game_id, token = create(client)
        post(client, f"/api/v1/games/{game_id}/start", token)
        up = scrape(worker.url)[1]
        assert value(up, "penta_bus_up") == 1

        redis_server.stop()
        wait_for_bus(worker, "down")
        down = scrape(worker.url)[1]
        assert value(down, "penta_bus_up") == 0
        for _ in range(3):  # each move's message to the other workers: nothing to send it with
            post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
        dropped = value(scrape(worker.url)[1], "penta_bus_dropped_total")
        assert dropped == value(down, "penta_bus_dropped_total") + 3

        redis_server.start()
        wait_for_bus(worker, "up")
        post(client, f"/api/v1/games/{game_id}/auto", token)
        back = scrape(worker.url)[1]
    assert value(back, "penta_bus_up") == 1
    assert value(back, "penta_bus_dropped_total") == dropped, "sent again, not dropped"
    sent = "penta_bus_messages_total"
    assert value(back, sent, direction="sent") == value(down, sent, direction="sent") + 1
