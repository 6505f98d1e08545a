"""The cluster bench's own logic: how it reads a stream and how it sums up its rounds.

The bench itself is not run here (it needs minutes and both cores); these check, without a
server, the parts whose mistakes printed wrong figures before: a refused stream lightened one
worker's load unseen, and one run's ratio was taken for a measurement."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from bench.cluster import Client, StreamRefusedError, _end, read_events
from bench.cluster_figures import ONE, idles, rows, shares
from tests.hardening.conftest import run_async


def _client(measure_from: float, stop_at: float) -> Client:
    return Client([], 0, 0.0, (measure_from, stop_at), spread="routed")


async def _feed(head: bytes, client: Client) -> None:
    """A stream of two game events, answered with ``head``, read by ``client``."""
    reader = asyncio.StreamReader()
    reader.feed_data(head)
    reader.feed_data(b"event: game\nid: 3\ndata: {}\n\nevent: game\nid: 4\ndata: {}\n\n")
    reader.feed_eof()
    await read_events(reader, client)


def _read(head: bytes, client: Client) -> None:
    run_async(_feed(head, client))


def test_a_refused_stream_stops_the_bench_instead_of_lightening_the_load() -> None:
    client = _client(0, float("inf"))
    with pytest.raises(StreamRefusedError, match="429 Too Many Requests"):
        _read(b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n", client)
    assert client.events == 0
    # Its stream runs beside the client's moves: the error reaches the bench when it ends.
    refused = _client(0, float("inf"))

    async def stream_then_end() -> None:
        task = asyncio.create_task(_feed(b"HTTP/1.1 429 Too Many Requests\r\n\r\n", refused))
        await asyncio.sleep(0.01)
        _end(task)

    with pytest.raises(StreamRefusedError):
        run_async(stream_then_end())


def test_a_stream_answered_without_a_reason_phrase_is_open() -> None:
    client = _client(0, float("inf"))
    _read(b"HTTP/1.1 200\r\n\r\n", client)
    assert client.events == 2


def test_a_stream_counts_its_game_events_in_the_measured_window_only() -> None:
    inside = _client(0, float("inf"))
    _read(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n", inside)
    assert inside.events == 2
    after = _client(0, time.perf_counter() - 1)
    _read(b"HTTP/1.1 200 OK\r\n\r\n", after)
    assert after.events == 0
    before = _client(time.perf_counter() + 60, float("inf"))
    _read(b"HTTP/1.1 200 OK\r\n\r\n", before)
    assert before.events == 0


def _measured(
    cpu_seconds: float,
    actions: int = 1000,
    events: int = 1000,
    p99: float = 20.0,
    new_backends: int = 0,
) -> dict[str, Any]:
    """A cell's measurement whose CPU is all the workers'."""
    cpu = {"workers": cpu_seconds, "postgres": 0.0, "redis": 0.0, "new backends": new_backends}
    return {"actions": actions, "seconds": 10.0, "cpu": cpu, "events": events, "p99": p99}


def test_a_cell_is_compared_with_the_fewest_workers_of_its_own_round() -> None:
    # The machine is slower in round 2: both cells cost more, their ratio stays 1.10.
    rounds = [
        {(1, ONE): _measured(5.0), (2, "routed"): _measured(5.5)},
        {(1, ONE): _measured(8.0), (2, "routed"): _measured(8.8)},
        {(1, ONE): _measured(5.0), (2, "routed"): _measured(9.0, events=1500)},
    ]
    one, two = rows(rounds)
    assert (one.workers, one.spread, one.ratio, one.within_target) == (1, ONE, 1.0, True)
    assert two.ratios == pytest.approx((1.10, 1.10, 1.80))
    assert two.ratio == pytest.approx(1.10)  # the median, not the mean (1.33)
    assert two.within_target
    assert two.cpu["total"] == pytest.approx(8.8)  # ms per action, median of 5.5, 8.8, 9.0
    assert (two.low, two.high) == pytest.approx((5.5, 9.0))
    assert two.events_per_action == 1.0


def test_every_column_is_the_median_of_its_rounds() -> None:
    busy = _measured(9.0, actions=2000, events=3000, p99=90, new_backends=7)
    rounds = [
        {(1, ONE): _measured(5.0), (2, "routed"): _measured(5.5, p99=10)},
        {(1, ONE): _measured(5.0), (2, "routed"): _measured(8.8, actions=900)},
        {(1, ONE): _measured(5.0), (2, "routed"): busy},
    ]
    two = rows(rounds)[1]
    assert two.cpu["workers"] == pytest.approx(5.5)  # of 5.5, 9.78, 4.5 ms per action
    assert two.actions_per_second == 100.0  # of 100, 90, 200
    assert two.events_per_action == pytest.approx(1000 / 900)  # of 1.0, 1.11, 1.5
    assert (two.p99, two.new_backends) == (20.0, 0)  # of 10, 20, 90 and of 0, 0, 7


def test_without_one_worker_a_cell_is_compared_with_the_same_spread_on_the_fewest() -> None:
    rounds = [
        {
            (2, "routed"): _measured(5.0),
            (2, "alternate"): _measured(6.0),
            (4, "routed"): _measured(5.5),
            (4, "alternate"): _measured(9.0),
        }
    ]
    assert [row.ratio for row in rows(rounds)] == pytest.approx([1.0, 1.0, 1.10, 1.50])


def test_a_cell_beyond_fifteen_percent_is_not_within_the_target() -> None:
    rounds = [{(1, ONE): _measured(5.0), (4, "alternate"): _measured(5.8)}]
    assert not rows(rounds)[1].within_target  # +16 %
    rounds = [{(1, ONE): _measured(5.0), (4, "alternate"): _measured(4.3)}]
    assert rows(rounds)[1].within_target  # -14 %
    rounds = [{(1, ONE): _measured(5.0), (4, "alternate"): _measured(4.2)}]
    assert not rows(rounds)[1].within_target  # -16 %


def test_the_fixed_share_is_the_median_of_the_rounds_and_says_when_unmeasured() -> None:
    text = shares(
        [
            {1: _measured(1, actions=300), 2: None},
            {1: _measured(1, actions=500), 2: None},
            {1: _measured(1, actions=400), 2: None},
        ]
    )
    assert "     40.0  ( 30.0- 50.0)" in text
    assert "2  (no cgroup could be made: not measured)" in text


def test_the_idle_cost_is_the_median_of_the_rounds() -> None:
    text = idles([{1: 12.0, 4: 30.0}, {1: 20.0, 4: 40.0}, {1: 16.0, 4: 35.0}])
    assert text.splitlines()[1:] == [
        "      1      16.0  ( 12.0- 20.0)",
        "      4      35.0  ( 30.0- 40.0)",
    ]


def test_workers_apart_are_compared_with_one_worker_apart() -> None:
    rounds = [
        {
            (1, ONE): _measured(5.0),
            (1, "apart"): _measured(4.0),
            (2, "routed"): _measured(5.5),
            (2, "apart"): _measured(4.4),
        }
    ]
    assert [row.ratio for row in rows(rounds)] == pytest.approx([1.0, 1.0, 1.10, 1.10])
